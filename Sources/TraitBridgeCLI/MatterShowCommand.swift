import ArgumentParser
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeModel
import TraitBridgeStore

/// `traitbridge matter show`.
struct MatterShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the manual pairing code, the QR payload, the fabrics and the bridged endpoints.",
        discussion: """
            The manual pairing code is what a controller's "add device" asks for (Home Assistant, Apple Home, \
            Google Home); the QR payload (MT:…) is what a QR code generator turns into the code to scan. \
            The QR payload names the vendor and product serve last attested as (matterBridge's vendorId and \
            productId). Endpoint 1 is the aggregator; each offered device has an endpoint (a composed one, \
            such as a climate sensor, one more per device type), kept for good: a controller's rooms and \
            automations find it again after a restart or a rename. Operational keys and CASE resumption \
            secrets stay in the registry.
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    @Option(help: "Only this bridge (1…16; serve runs more than one past matterBridge.devicesPerBridge).")
    var bridge: Int?

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        let numbers = try MatterCommand.bridges(in: store, only: bridge)
        for (position, number) in numbers.enumerated() {
            if numbers.count > 1 || number > 1 {
                print("\(position == 0 ? "" : "\n")bridge \(number)\(numbers.count > 1 ? " of \(numbers.count)" : "")")
            }
            try show(number, store)
        }
    }

    private func show(_ number: Int, _ store: DeviceStore) throws {
        guard let state = try MatterCommand.state(in: store, bridge: number) else { throw ExitCode.failure }
        print("manual code     \(state.setup.manualPairingCode)")
        print("QR payload      \(state.setup.qrCode)")
        print("passcode        \(state.setup.payload.passcode.value)")
        print("discriminator   \(state.setup.payload.discriminator)")
        print("vendor/product  \(Self.hexID(state.vendorID))/\(Self.hexID(state.productID))")
        if let label = state.nodeLabel, !label.isEmpty { print("node label      \"\(label)\"") }
        if let location = state.location { print("location        \(location)") }
        // Checked when the state was read: each fabric restores.
        let fabrics = (try? CommissioningState(restoring: state.snapshot))?.fabrics ?? []
        defer { Self.printEndpoints(store, bridge: number) }
        guard !fabrics.isEmpty else {
            print("not commissioned: a controller can commission the bridge with the codes")
            return
        }
        print("commissioned on \(fabrics.count) fabric\(fabrics.count == 1 ? "" : "s"):")
        for fabric in fabrics {
            let vendor = String(fabric.vendorID, radix: 16, uppercase: true)
            print(
                "  fabric \(fabric.index)  fabric id \(hex(fabric.fabricID))  node id "
                    + "\(hex(fabric.nodeID))  vendor 0x\(vendor)"
                    + (fabric.label.isEmpty ? "" : "  label \"\(fabric.label)\""))
            // How many controllers can resume a session after a restart; never a record's secret or ID.
            let resumable = state.resumptions.count { $0.fabricIndex == fabric.index }
            if resumable > 0 { print("    \(resumable) CASE session(s) resumable") }
        }
    }

    /// The endpoints bridge `bridge` gave devices, with the devices' names as the registry has them.
    static func printEndpoints(_ store: DeviceStore, bridge: Int) {
        let assignments: [MatterEndpointAssignment]
        do { assignments = try store.matterEndpoints(bridge: bridge) } catch {
            print("endpoints: not readable from the registry (\(error))")
            return
        }
        guard !assignments.isEmpty else {
            print("no bridged endpoint yet: serve gives each offered device one")
            return
        }
        let names = Dictionary(((try? store.all()) ?? []).map { ($0.id.rawValue, $0.record.name) }) { first, _ in first
        }
        print("\(assignments.count) bridged endpoint(s) (1 is the aggregator):")
        for assignment in assignments.sorted(by: { $0.endpoint < $1.endpoint }) {
            let device = String(assignment.key.prefix { $0 != "/" })
            let part = assignment.key.count > device.count ? "  part \(assignment.key.dropFirst(device.count + 1))" : ""
            let name = names[device].map { "  \"\($0)\"" } ?? "  (not in the registry)"
            print("  \(assignment.endpoint)  \(device)\(name)\(part)")
        }
    }

    static func hexID(_ id: UInt16) -> String {
        let digits = String(id, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
