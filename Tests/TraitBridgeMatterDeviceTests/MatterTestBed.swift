import Foundation
import TraitBridgeLocalBroker
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeTesting

/// What a Matter controller in a network sandbox needs to find and commission the device announced on
/// the sandbox's host side: avahi-daemon in the sandbox, and a folder with the SDK's test PAA (the root
/// the device's test attestation chains to) as the controllers' trust store.
struct MatterTestBed {
    let sandbox: NetworkSandbox
    let folder: URL
    /// The PAA folder to give a controller (`--paa-dir`, the Matter Server's `--paa-root-cert-dir`).
    let paa: URL
    /// The sandbox's D-Bus, for the device's avahi-publish.
    let bus: String

    init() throws {
        sandbox = try NetworkSandbox(repository: SDKController.repository)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-matter-bed-\(UUID().uuidString)")
        paa = folder.appendingPathComponent("paa")
        do {
            try FileManager.default.createDirectory(at: paa, withIntermediateDirectories: true)
            try Data(DeviceAttestation.sdkTestPAACertificate).write(
                to: paa.appendingPathComponent("Chip-Test-PAA-FFF1-Cert.der"))
            bus = try MDNSResponder.start(in: sandbox, repository: SDKController.repository, folder: folder)
        } catch {
            sandbox.remove()
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// A device on the sandbox's host address, a free port, announced through the sandbox's Avahi.
    var deviceSettings: MatterDeviceServer.Settings {
        var settings = MatterDeviceServer.Settings(
            host: sandbox.hostAddress, port: 0, mdnsInterfaces: [sandbox.hostInterface])
        settings.mdnsEnvironment = ["DBUS_SYSTEM_BUS_ADDRESS": bus]
        return settings
    }

    /// Removes the sandbox (and what runs in it) and the folder.
    func remove() {
        sandbox.remove()
        try? FileManager.default.removeItem(at: folder)
    }
}
