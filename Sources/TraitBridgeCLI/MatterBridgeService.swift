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

/// serve's Matter bridges: one ``MatterDeviceServer`` per bridge, whose endpoints are the offered
/// unified devices (``MatterBridgeLayout``: the aggregator on endpoint 1, each device its endpoint or a
/// composed tree, numbered as the registry keeps them). More devices than `devicesPerBridge` make more
/// bridges (``MatterBridgeSplit``), each its own node with its own codes, port and fabrics; the bridges
/// the registry knows start at once, a new one when more devices need it. Each change the bridge
/// publishes gives the changed devices' endpoints again; a controller's command or write goes into the
/// unified command path (``MatterBridgeFollower``); each node's commissioning state is written to the
/// registry whenever it changes. It exists apart from the device server, which knows nothing of the
/// bridge, as the HomeKit bridges do.
final class MatterBridgeService: Service, Sendable {
    private let follower: MatterBridgeFollower
    private let makeServer: MakeServer

    /// Makes bridge `number`'s device server serving `endpoints`, handing requests to `forward`.
    typealias MakeServer =
        @Sendable (
            _ number: Int, _ endpoints: [BridgedEndpoint], _ forward: @escaping @Sendable (EndpointRequest) -> Void
        ) throws -> MatterDeviceServer
    private let logger: Logger
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    private let needed: AsyncStream<Int>
    private let neededContinuation: AsyncStream<Int>.Continuation

    /// The device servers running now, by bridge number.
    var servers: [Int: MatterDeviceServer] { follower.servers }

    /// The bridges `stored` (the registry's) and those the devices need, started as `makeServer` makes
    /// them; `follower` splits the devices and follows them.
    init(
        follower makeFollower: (@escaping @Sendable (Int) -> Void) -> MatterBridgeFollower, stored: [Int],
        makeServer: @escaping MakeServer, logger: Logger
    ) throws {
        let (needed, neededContinuation) = AsyncStream.makeStream(of: Int.self)
        let follower = makeFollower { neededContinuation.yield($0) }
        // The first sync (every device) is made before the servers serve: controllers find whole nodes.
        follower.sync()
        for number in Set([1] + stored).sorted() {
            _ = try follower.attach(number) { try makeServer(number, $0, follower.forwarder(number)) }
        }
        self.follower = follower
        self.makeServer = makeServer
        self.logger = logger
        (self.needed, self.neededContinuation) = (needed, neededContinuation)
        (wake, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Called for every change the bridge publishes.
    func observe(_ bridge: Bridge) {
        let (follower, continuation) = (follower, wakeContinuation)
        bridge.observeChanges { states, descriptions in
            follower.changed.withLock { changed in
                changed?.formUnion(states)
                changed?.formUnion(descriptions)
            }
            continuation.yield()
        }
    }

    /// Serves every bridge until graceful shutdown; meanwhile the endpoints follow the devices, and a
    /// bridge more devices need starts.
    func run() async throws {
        let (follower, wake, needed, logger, makeServer) = (follower, wake, needed, logger, makeServer)
        // Every device once more: the bridge restored its registry and heard retained state since init.
        follower.changed.withLock { $0 = nil }
        wakeContinuation.yield()
        let started = servers
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                // A bridge that does not start at first stops serve (its port is taken: say so at once).
                for server in started.values { group.addTask { try await server.run() } }
                group.addTask {
                    for await _ in wake { follower.sync() }
                }
                for await number in needed where follower.servers[number] == nil {
                    let server: MatterDeviceServer
                    do {
                        server = try follower.attach(number) { try makeServer(number, $0, follower.forwarder(number)) }
                    } catch {
                        logger.error("Matter: bridge \(number) could not start: \(error); its devices are not offered")
                        continue
                    }
                    logger.notice(
                        """
                        Matter: more devices than one bridge holds: bridge \(number) starts; commission it too \
                        (`traitbridge matter show` prints its codes)
                        """)
                    group.addTask {
                        do { try await server.run() } catch {
                            logger.error("Matter: bridge \(number) stopped: \(error); its devices are not offered")
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            self.wakeContinuation.finish()
            self.neededContinuation.finish()
        }
    }
}

extension ServeCommand {
    /// The Matter bridges of the `matterBridge` section: their identities and fabrics from the registry
    /// (made on a bridge's first start), kept there as they change.
    static func makeMatterBridge(
        _ settings: MatterBridgeSettings, configurationMappings: String?, bridge: Bridge, logger: Logger
    ) throws -> MatterBridgeService {
        guard let store = bridge.store else {
            throw ValidationError("matterBridge: the bridge has no registry to keep its fabrics in; give it a dataDir")
        }
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
        let (assignments, serving, stored): ([MatterEndpointAssignment], [String: Int], [Int])
        do {
            (assignments, serving, stored) = (
                try store.matterEndpoints(), try store.matterBridgeDevices(), try store.matterBridgeNumbers()
            )
        } catch {
            throw ValidationError("matterBridge: the bridges' endpoints could not be read from the registry: \(error)")
        }
        if let files = settings.attestation {
            logger.notice("Matter: attesting as \(files.checked) (DAC \(files.dac), PAI \(files.pai), CD \(files.cd))")
        } else {
            logger.notice("Matter: attesting with the SDK's public test DAC: commissioners must trust the test PAA")
        }
        let split = MatterBridgeSplit(capacity: settings.devicesPerBridge, serving: serving, kept: assignments)
        let planner = BridgedDevicePlanner(catalog: bridge.snapshot.catalog, table: table)
        let service = try MatterBridgeService(
            follower: { needs in
                MatterBridgeFollower(
                    bridge: bridge, store: store, planner: planner, split: split, kept: assignments,
                    rules: settings.exportRules, logger: logger, needs: needs)
            }, stored: stored.filter { MatterBridgeSplit.bridgeRange.contains($0) },
            makeServer: { number, endpoints, forward in
                try makeMatterNode(
                    number, settings, store: store, endpoints: endpoints, forward: forward, logger: logger)
            }, logger: logger)
        service.observe(bridge)
        return service
    }

    /// Bridge `number`'s device server: the first has the configured passcode, discriminator, port and
    /// name; the others draw a passcode (kept), take a discriminator apart from the first's and the next
    /// ports, and are named with their number.
    static func makeMatterNode(
        _ number: Int, _ settings: MatterBridgeSettings, store: DeviceStore, endpoints: [BridgedEndpoint],
        forward: @escaping @Sendable (EndpointRequest) -> Void, logger parent: Logger
    ) throws -> MatterDeviceServer {
        var bridgeLogger = parent
        if number > 1 { bridgeLogger[metadataKey: "tb.matter.bridge"] = "\(number)" }
        let logger = bridgeLogger
        // NodeLabel holds 32 bytes: the configured name is cut to leave room for " 16".
        let name =
            number == 1 ? settings.name : UTF8Text.cut(settings.name ?? "TraitBridge", toBytes: 29) + " \(number)"
        var discriminator = settings.discriminator
        if number > 1, try store.matterBridge(number) == nil, let first = try store.matterBridge(1) {
            // 257 × (number − 1) apart, modulo 4096: never the first's (a commissioner finds a node by it).
            discriminator = UInt16((Int(first.setup.discriminator) + 257 * (number - 1)) % 4096)
        }
        let state: MatterBridgeState
        do {
            state = try MatterBridgeState.load(
                from: store, bridge: number, passcode: number == 1 ? settings.passcode : nil,
                discriminator: discriminator, vendorID: settings.vendorID ?? MatterBridgeState.testVendorID,
                productID: settings.productID ?? MatterBridgeState.testProductID, name: name)
        } catch {
            throw ValidationError("matterBridge: bridge \(number): \(error)")
        }
        let port = settings.port == 0 ? 0 : settings.port + number - 1
        guard port <= 65535 else {
            throw ValidationError("matterBridge: bridge \(number) would listen on port \(port); give a lower port")
        }
        let serverSettings = MatterDeviceServer.Settings(
            host: settings.listen, port: port,
            mdnsInterfaces: settings.mdnsInterfaces.isEmpty ? nil : settings.mdnsInterfaces)
        var information = DeviceInformation()
        // The node's own UniqueID names it a TraitBridge bridge, so a Matter source never imports it back
        // (it would be every device twice); the rest is the salt's (public, kept in the registry).
        information.uniqueID =
            MatterSource.ownBridgePrefix + state.setup.salt.prefix(8).map { String(format: "%02x", $0) }.joined()
        if let name { information.nodeLabel = name }
        if let vendorID = settings.vendorID { information.vendorID = vendorID }
        if let productID = settings.productID { information.productID = productID }
        return MatterDeviceServer(
            setup: state.setup, settings: serverSettings, information: information,
            attestation: settings.attestation?.attestation ?? .sdkTestCredentials, endpoints: endpoints,
            forwarded: forward, restoring: state.node,
            persist: { node in
                // Fabrics, resumption records and labels in one transaction; the records' secrets are never logged.
                do {
                    try store.saveMatterBridge(
                        state.keeping(node, configuredName: name).record, bridge: number, now: Date())
                    let (fabrics, records) = (node.commissioning.fabrics.count, node.resumptions.count)
                    let counts = "\(fabrics) fabric(s), \(records) CASE resumption record(s)"
                    logger.info("Matter: the commissioning state is kept (\(counts))")
                } catch {
                    logger.error("Matter: the commissioning state was not kept: \(error)")
                }
            }, logger: logger)
    }
}
