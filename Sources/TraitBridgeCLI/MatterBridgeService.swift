import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeModel
import TraitBridgeStore

/// serve's Matter bridge: a ``MatterDeviceServer`` with one On/Off Light (endpoint 1) that stands
/// for one unified device. The light follows the device's `matter.OnOff` (each change the bridge
/// publishes), a controller's On/Off/Toggle goes into the unified command path as
/// `matter.OnOff.on`/`off`, and the commissioning state is written to the registry whenever it
/// changes, so controllers find the bridge commissioned after a restart. It exists apart from the
/// device server, which knows nothing of the bridge, as the HomeKit bridge does.
final class MatterBridgeService: Service, Sendable {
    static let endpoint: UInt16 = 1
    static let onOff = TraitID.matter("OnOff")

    let server: MatterDeviceServer
    private let relay: Relay
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// What the device server's callback and the follow loop share: the bridge, the device, the
    /// state last given to the light (nil: give it again).
    private final class Relay: Sendable {
        let bridge: Bridge
        let device: String
        let logger: Logger
        let lastGiven = Mutex<Bool?>(nil)
        let deviceID = Mutex<DeviceID?>(nil)
        let server = Mutex<MatterDeviceServer?>(nil)

        init(bridge: Bridge, device: String, logger: Logger) {
            self.bridge = bridge
            self.device = device
            self.logger = logger
        }

        /// The device's `matter.OnOff` onOff now (the primary type's first), with its type's key.
        func current() -> (id: DeviceID, key: String, isOn: Bool?)? {
            let snapshot = bridge.snapshot
            guard let id = snapshot.deviceID(named: device), let found = snapshot.graph.devices[id] else { return nil }
            deviceID.withLock { $0 = id }
            let types = (found.primaryType.map { [$0] } ?? []) + found.deviceTypes
            guard let type = types.first(where: { $0.trait(MatterBridgeService.onOff) != nil }) else { return nil }
            let value = type.trait(MatterBridgeService.onOff)?.attributes["onOff"]
            if case .bool(let isOn)? = value { return (id, type.key, isOn) }
            return (id, type.key, nil)
        }

        /// A controller switched the light: the command goes to the device; when it is refused the
        /// light is given the device's state again.
        func commanded(isOn: Bool) {
            lastGiven.withLock { $0 = nil }
            Task {
                guard let (id, key, _) = current() else {
                    logger.warning(
                        "Matter: a controller switched the light, but no device '\(device)' with matter.OnOff is known")
                    return
                }
                let payload: JSONValue = [
                    "deviceType": .string(key), "trait": "matter.OnOff", "command": .string(isOn ? "on" : "off"),
                ]
                let answer = await bridge.command(id, payload: payload.serializedBytes())
                let root = try? JSONDocument.parse(answer).root
                let status = root?["status"]?.string ?? "no answer"
                logger.info("Matter: a controller switched \(id) \(isOn ? "on" : "off"): \(status)")
                if status != "confirmed" && status != "assumed" {
                    logger.warning("Matter: \(id) refused matter.OnOff: \(root?["message"]?.string ?? status)")
                    give()
                }
            }
        }

        /// Gives the light the device's state when it differs from the last one given.
        func give() {
            guard let isOn = current()?.isOn else { return }
            let changed = lastGiven.withLock { last in
                defer { last = isOn }
                return last != isOn
            }
            if changed { server.withLock { $0 }?.setOnOff(endpoint: MatterBridgeService.endpoint, isOn: isOn) }
        }
    }

    /// The device server of `state`'s identity, announced and listening as `settings` say;
    /// `persist` keeps the commissioning state each time it changes.
    init(
        settings: MatterBridgeSettings, state: MatterBridgeState, bridge: Bridge,
        persist: @escaping MatterDeviceServer.SnapshotObserver, logger: Logger
    ) {
        let relay = Relay(bridge: bridge, device: settings.device, logger: logger)
        let serverSettings = MatterDeviceServer.Settings(
            host: settings.listen, port: settings.port,
            mdnsInterfaces: settings.mdnsInterfaces.isEmpty ? nil : settings.mdnsInterfaces)
        var information = DeviceInformation()
        if let name = settings.name { information.nodeLabel = name }
        if let vendorID = settings.vendorID { information.vendorID = vendorID }
        if let productID = settings.productID { information.productID = productID }
        if let files = settings.attestation {
            logger.notice("Matter: attesting as \(files.checked) (DAC \(files.dac), PAI \(files.pai), CD \(files.cd))")
        } else {
            logger.notice("Matter: attesting with the SDK's public test DAC: commissioners must trust the test PAA")
        }
        let server = MatterDeviceServer(
            setup: state.setup, settings: serverSettings, information: information,
            attestation: settings.attestation?.attestation ?? .sdkTestCredentials,
            endpoints: [OnOffLight(id: Self.endpoint)],
            onOffCommanded: { _, isOn in relay.commanded(isOn: isOn) }, restoring: state.node,
            persist: persist, logger: logger)
        relay.server.withLock { $0 = server }
        self.server = server
        self.relay = relay
        (wake, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        let continuation = wakeContinuation
        bridge.observeChanges { [relay] states, descriptions in
            let id = relay.deviceID.withLock { $0 }
            if !descriptions.isEmpty || id.map(states.contains) == true { continuation.yield() }
        }
    }

    /// Serves the device until graceful shutdown; meanwhile the light follows the device.
    func run() async throws {
        let relay = relay
        let wake = wake
        wakeContinuation.yield()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in wake { relay.give() }
            }
            try await server.run()
            group.cancelAll()
        }
    }
}

extension ServeCommand {
    /// The Matter bridge of the `matterBridge` section: its identity and fabrics from the registry
    /// (made on the first start), kept there as they change.
    static func makeMatterBridge(
        _ settings: MatterBridgeSettings, bridge: Bridge, logger: Logger
    ) throws -> MatterBridgeService {
        guard let store = bridge.store else {
            throw ValidationError("matterBridge: the bridge has no registry to keep its fabrics in; give it a dataDir")
        }
        let state: MatterBridgeState
        do {
            state = try MatterBridgeState.load(
                from: store, passcode: settings.passcode, discriminator: settings.discriminator,
                vendorID: settings.vendorID ?? MatterBridgeState.testVendorID,
                productID: settings.productID ?? MatterBridgeState.testProductID, name: settings.name)
        } catch {
            throw ValidationError("matterBridge: \(error)")
        }
        let (kept, name) = (state, settings.name)
        // avahi-publish inherits serve's environment (DBUS_SYSTEM_BUS_ADDRESS included).
        return MatterBridgeService(
            settings: settings, state: state, bridge: bridge,
            persist: { node in
                // Fabrics, resumption records and labels in one transaction; the records' secrets are never logged.
                do {
                    try store.saveMatterBridge(kept.keeping(node, configuredName: name).record, now: Date())
                    let (fabrics, records) = (node.commissioning.fabrics.count, node.resumptions.count)
                    let counts = "\(fabrics) fabric(s), \(records) CASE resumption record(s)"
                    logger.info("Matter: the commissioning state is kept (\(counts))")
                } catch {
                    logger.error("Matter: the commissioning state was not kept: \(error)")
                }
            }, logger: logger)
    }
}
