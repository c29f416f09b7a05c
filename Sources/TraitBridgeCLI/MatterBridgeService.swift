import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeMatterBridge
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeStore

/// serve's Matter bridge: a ``MatterDeviceServer`` whose endpoints are the offered unified devices
/// (``MatterBridgeLayout``: the aggregator on endpoint 1, each device its endpoint or a composed tree,
/// numbered as the registry keeps them). Each change the bridge publishes gives the changed devices'
/// endpoints again; a controller's command or write goes into the unified command path (a refusal
/// gives the device's endpoints again, so the controller sees the device's real state); the
/// commissioning state is written to the registry whenever it changes. It exists apart from the
/// device server, which knows nothing of the bridge, as the HomeKit bridge does.
final class MatterBridgeService: Service, Sendable {
    let server: MatterDeviceServer
    private let follower: Follower
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// What the device server's callback and the follow loop share: the layout, the devices changed
    /// since the last sync, the bridge and its registry.
    private final class Follower: Sendable {
        let bridge: Bridge
        let store: DeviceStore
        let selection: MatterBridgeSelection
        let logger: Logger
        let layout: Mutex<MatterBridgeLayout>
        /// Devices changed since the last sync; nil: every device (the first sync).
        let changed = Mutex<Set<DeviceID>?>(nil)
        let server = Mutex<MatterDeviceServer?>(nil)

        init(bridge: Bridge, store: DeviceStore, layout: MatterBridgeLayout, rules: ExportRules, logger: Logger) {
            self.bridge = bridge
            self.store = store
            self.selection = MatterBridgeSelection(rules: rules)
            self.logger = logger
            self.layout = Mutex(layout)
        }

        /// Gives the server the endpoints of the devices changed since the last call.
        func sync() {
            let ids = changed.withLock { changed in
                defer { changed = [] }
                return changed
            }
            guard ids?.isEmpty != true else { return }
            // One sync at a time, from reading the state to handing the endpoints over: two at once (the
            // follow loop, a refused request) must not hand the server an older state after a newer one.
            layout.withLock { layout in
                let graph = bridge.snapshot.graph
                var devices: [DeviceID: Device?] = [:]
                // Every device: those the graph has, and those served that it no longer has (they go).
                for id in ids ?? Set(graph.devices.keys).union(layout.deviceIDs) {
                    devices[id] = graph.devices[id].flatMap {
                        selection.offers($0, room: graph.room(of: $0.id)?.name) ? $0 : nil
                    }
                }
                var generator = SystemRandomNumberGenerator()
                let change = layout.update(devices, using: &generator)
                keep(change)
                server.withLock { $0 }?.replace(change.changed, removing: change.removed)
            }
        }

        /// Writes the numbers given for the first time to the registry, and says what was left out.
        private func keep(_ change: MatterBridgeLayout.Change) {
            if !change.assigned.isEmpty {
                do {
                    try store.saveMatterEndpoints(change.assigned, now: Date())
                } catch {
                    logger.error("Matter: the endpoint numbers given were not kept (\(error)): a restart may renumber")
                }
                for assignment in change.assigned {
                    logger.info("Matter: \(assignment.key) is endpoint \(assignment.endpoint)")
                }
            }
            if !change.exhausted.isEmpty {
                let count = change.exhausted.count
                logger.warning("Matter: every endpoint number is taken: \(count) endpoint(s) left out (`matter reset`)")
            }
        }

        /// A controller's command or write: into the unified command path; a refusal gives the device's
        /// endpoints again.
        func forward(_ request: EndpointRequest) {
            if request.cluster == BridgedInformation.clusterID,
                case .write(BridgedInformation.Attribute.nodeLabel, let value) = request.action,
                case TLVValue.string(let name) = value
            {
                return rename(endpoint: request.endpoint, to: name)
            }
            let (planner, target) = layout.withLock { ($0.planner, $0.targets[request.endpoint]) }
            guard let target else {
                logger.warning("Matter: a request for endpoint \(request.endpoint), which no device serves, is dropped")
                answer(request, .failure)
                return
            }
            let unified: UnifiedRequest
            switch planner.unified(request, deviceTypeKey: target.deviceTypeKey) {
            case .success(let found): unified = found
            case .failure(let error):
                logger.warning("Matter: a request for \(target.device) was not carried out: \(error)")
                answer(request, .failure)
                return
            }
            Task {
                let reply = await bridge.command(target.device, payload: Self.payload(unified).serializedBytes())
                let root = try? JSONDocument.parse(reply).root
                let status = root?["status"]?.string ?? "no answer"
                let matterStatus = MatterCommandStatus.of(status: status, code: root?["code"]?.string)
                answer(request, matterStatus)
                logger.info("Matter: a controller's \(Self.describe(unified)) for \(target.device): \(status)")
                if matterStatus != .success {
                    let reason = root?["message"]?.string ?? status
                    logger.warning(
                        "Matter: \(target.device) refused \(Self.describe(unified)) (\(matterStatus)): \(reason)")
                    layout.withLock { $0.resend(target.device) }
                    changed.withLock { _ = $0?.insert(target.device) }
                    sync()
                }
            }
        }

        /// A controller wrote a device's NodeLabel: the device is renamed (kept in the registry, as
        /// `traitbridge rename` does); a refused name gives the endpoint its name back.
        private func rename(endpoint: UInt16, to name: String) {
            guard let device = layout.withLock({ $0.owners[endpoint] }) else { return }
            let payload: JSONValue = ["device": .string(device.rawValue), "name": .string(name)]
            Task {
                let reply = await bridge.request("rename", payload: payload.serializedBytes())
                let root = try? JSONDocument.parse(reply).root
                if root?["status"]?.string == "error" {
                    let reason = root?["message"]?.string ?? "refused"
                    logger.warning("Matter: a controller's name for \(device) was not taken: \(reason)")
                    layout.withLock { $0.resend(device) }
                } else {
                    logger.info("Matter: a controller renamed \(device) \"\(name)\"")
                }
                changed.withLock { _ = $0?.insert(device) }
                sync()
            }
        }

        /// The controller's answer to a request that waits for it (a command with a token).
        private func answer(_ request: EndpointRequest, _ status: StatusCode) {
            guard let token = request.token else { return }
            server.withLock { $0 }?.complete(token, status: status)
        }

        static func payload(_ request: UnifiedRequest) -> JSONValue {
            var object: JSONObject = [
                "deviceType": .string(request.deviceTypeKey), "trait": .string(request.trait.description),
            ]
            switch request.action {
            case .invoke(let command, let arguments):
                object["command"] = .string(command)
                var fields = JSONObject()
                for (name, value) in arguments.sorted(by: { $0.key < $1.key }) { fields[name] = value.jsonValue }
                if !arguments.isEmpty { object["arguments"] = .object(fields) }
            case .write(let attribute, let value):
                object["attribute"] = .string(attribute)
                object["value"] = value.jsonValue
            }
            return .object(object)
        }

        static func describe(_ request: UnifiedRequest) -> String {
            switch request.action {
            case .invoke(let command, _): "\(request.trait).\(command)"
            case .write(let attribute, _): "\(request.trait).\(attribute) write"
            }
        }
    }

    /// The device server of `state`'s identity, announced and listening as `settings` say, serving the
    /// devices `planner` plans; `persist` keeps the commissioning state each time it changes.
    init(
        settings: MatterBridgeSettings, state: MatterBridgeState, bridge: Bridge, store: DeviceStore,
        planner: BridgedDevicePlanner, assignments: [MatterEndpointAssignment],
        persist: @escaping MatterDeviceServer.SnapshotObserver, logger: Logger
    ) {
        let follower = Follower(
            bridge: bridge, store: store, layout: MatterBridgeLayout(planner: planner, assignments: assignments),
            rules: settings.exportRules, logger: logger)
        let serverSettings = MatterDeviceServer.Settings(
            host: settings.listen, port: settings.port,
            mdnsInterfaces: settings.mdnsInterfaces.isEmpty ? nil : settings.mdnsInterfaces)
        var information = DeviceInformation()
        // The node's own UniqueID names it a TraitBridge bridge, so a Matter source never imports it back
        // (it would be every device twice); the rest is the salt's (public, kept in the registry).
        information.uniqueID =
            MatterSource.ownBridgePrefix + state.setup.salt.prefix(8).map { String(format: "%02x", $0) }.joined()
        if let name = settings.name { information.nodeLabel = name }
        if let vendorID = settings.vendorID { information.vendorID = vendorID }
        if let productID = settings.productID { information.productID = productID }
        if let files = settings.attestation {
            logger.notice("Matter: attesting as \(files.checked) (DAC \(files.dac), PAI \(files.pai), CD \(files.cd))")
        } else {
            logger.notice("Matter: attesting with the SDK's public test DAC: commissioners must trust the test PAA")
        }
        // The first sync (every device) is made before the server serves: controllers find the whole node.
        follower.sync()
        let server = MatterDeviceServer(
            setup: state.setup, settings: serverSettings, information: information,
            attestation: settings.attestation?.attestation ?? .sdkTestCredentials,
            endpoints: follower.layout.withLock { $0.endpoints },
            forwarded: { request in follower.forward(request) }, restoring: state.node,
            persist: persist, logger: logger)
        follower.server.withLock { $0 = server }
        self.server = server
        self.follower = follower
        (wake, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        let continuation = wakeContinuation
        bridge.observeChanges { [follower] states, descriptions in
            follower.changed.withLock { changed in
                changed?.formUnion(states)
                changed?.formUnion(descriptions)
            }
            continuation.yield()
        }
    }

    /// Serves the node until graceful shutdown; meanwhile the endpoints follow the devices.
    func run() async throws {
        let follower = follower
        let wake = wake
        // Every device once more: the bridge restored its registry and heard retained state since init.
        follower.changed.withLock { $0 = nil }
        wakeContinuation.yield()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in wake { follower.sync() }
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
        _ settings: MatterBridgeSettings, configurationMappings: String?, bridge: Bridge, logger: Logger
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
        let mappings: MappingsFolder
        do { mappings = try MappingsFolder(overlay: configurationMappings) } catch {
            throw ValidationError(error.description)
        }
        let table: MatterClusterTable
        do {
            table = try MatterClusterTable.load(mappingsDirectory: mappings.path, catalog: bridge.snapshot.catalog)
        } catch {
            throw ValidationError(mappings.explain("\(error)"))
        }
        let assignments: [MatterEndpointAssignment]
        do { assignments = try store.matterEndpoints() } catch {
            throw ValidationError("matterBridge: the endpoint numbers could not be read from the registry: \(error)")
        }
        return MatterBridgeService(
            settings: settings, state: state, bridge: bridge, store: store,
            planner: BridgedDevicePlanner(catalog: bridge.snapshot.catalog, table: table), assignments: assignments,
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
