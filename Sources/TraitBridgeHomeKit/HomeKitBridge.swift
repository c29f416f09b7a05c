import Foundation
public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization
public import TraitBridgeCloud
import TraitBridgeDNSSD
public import TraitBridgeEngine
public import TraitBridgeMapping
public import TraitBridgeModel
public import TraitBridgeStore

/// One HomeKit bridge (HAP over IP): the devices it is given are its bridged accessories. Runs the
/// HAP server, keeps the pairing state and the accessory database, sends events when the bridge says
/// devices changed, and announces itself through Avahi. `HomeKitBridges` runs one or more of them.
public final class HomeKitBridge: Service, Sendable {
    /// The `homekit` section of the serve configuration.
    public struct Settings: Sendable {
        /// The accessory's name in the Home app.
        public var name = "TraitBridge"
        /// The address the HAP server listens on.
        public var listen = "0.0.0.0"
        public var port = 51827
        /// Interfaces whose IPv4 addresses are announced by mDNS (through avahi-daemon); none: not announced.
        public var mdnsInterfaces: [String] = []
        /// The setup code to use on first start (otherwise a random one); ignored once paired.
        public var setupCode: String?
        /// Controller connections open at once; more are closed at once.
        public var connectionLimit = 64
        /// Which devices are offered (the `export` rules' form: include, then exclude).
        public var exportRules = ExportRules()
        /// Accessories per bridge (at most HAP's 149): more devices make more bridges.
        public var accessoriesPerBridge = HAPDatabase.accessoryLimit
        public init() {}
    }

    let bridge: Bridge
    let store: DeviceStore
    let table: HomeKitTable
    let settings: Settings
    /// 1 for the first bridge, 2… for the ones more devices need.
    public let slot: Int
    /// This bridge's share of the offered accessories (nil: all of them).
    let share: @Sendable (HomeGraph) -> Set<String>?
    let logger: Logger
    let version: String
    let shared: Mutex<Shared>
    let boundPort = Mutex<Int?>(nil)
    let wake: AsyncStream<Void>
    let wakeContinuation: AsyncStream<Void>.Continuation

    struct Shared: Sendable {
        var pairing: PairingState
        var database: HAPDatabase
        var connections: [Int: HAPConnection] = [:]
        /// Connections whose controller passed pair-verify (the rest may be closed to admit others).
        var verified: Set<Int> = []
        var nextConnection = 1
        var changedDevices: Set<DeviceID> = []
        var descriptionsChanged = false
    }

    /// Loads (or makes and keeps) the accessory's identity from the registry. `share` tells which of
    /// the offered accessories are this bridge's (nil: all).
    public init(
        bridge: Bridge, store: DeviceStore, table: HomeKitTable, settings: Settings, slot: Int = 1,
        share: @escaping @Sendable (HomeGraph) -> Set<String>? = { _ in nil }, version: String, logger: Logger
    ) throws {
        self.bridge = bridge
        self.store = store
        self.table = table
        self.settings = settings
        self.slot = slot
        self.share = share
        self.logger = logger
        self.version = version
        var identity: HomeKitIdentity
        if let bytes = try store.homeKitIdentity(name: Self.storeName(slot: slot)) {
            identity = try JSONDecoder().decode(HomeKitIdentity.self, from: Data(bytes))
        } else {
            identity = HomeKitIdentity.make { (0..<64).map { _ in UInt8.random(in: 0...255) } }
            if let code = settings.setupCode.flatMap(SetupCode.format) { identity.setupCode = code }
        }
        let graph = bridge.snapshot.graph
        let database = HAPDatabase(
            graph: graph, table: table, rules: settings.exportRules, bridgeName: Self.name(settings.name, slot: slot),
            version: version, admitted: share(graph), identity: &identity)
        // The configuration number is compared and bumped once the bridge has its devices (the
        // first rebuild), not here: before `start` the graph is still empty.
        try store.saveHomeKitIdentity(
            name: Self.storeName(slot: slot), identity: Array(JSONEncoder().encode(identity)), now: Date())
        shared = Mutex(Shared(pairing: PairingState(identity: identity), database: database))
        (wake, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        bridge.observeChanges { [weak self] states, descriptions in
            guard let self else { return }
            shared.withLock { shared in
                shared.changedDevices.formUnion(states)
                shared.changedDevices.formUnion(descriptions)
                if !descriptions.isEmpty { shared.descriptionsChanged = true }
            }
            wakeContinuation.yield()
        }
    }

    /// The registry's name of bridge `slot`'s identity: "main", then "bridge-2"…
    public static func storeName(slot: Int) -> String { slot == 1 ? "main" : "bridge-\(slot)" }

    /// The name in the Home app: the configured one, then "<name> 2"…
    static func name(_ configured: String, slot: Int) -> String {
        slot == 1 ? configured : String(configured.prefix(60)) + " \(slot)"
    }

    /// This bridge's name in the Home app.
    public var name: String { Self.name(settings.name, slot: slot) }

    /// The port to listen on: the configured one for the first bridge, the next ones for the others
    /// (0: any free port for each).
    var configuredPort: Int { settings.port == 0 ? 0 : min(65535, settings.port + slot - 1) }

    /// The identity now (pairing id, setup code, controllers).
    public var identity: HomeKitIdentity { shared.withLock { $0.pairing.identity } }

    /// The port the server listens on once it runs (the configured one, or the one the system gave for 0).
    public var port: Int? { boundPort.withLock { $0 } }

    /// The QR payload of the setup code (a bridge is category 2).
    public var qrPayload: String {
        let identity = identity
        return SetupCode.qrPayload(code: identity.setupCode, setupID: identity.setupID, category: 2) ?? ""
    }

    /// Serves until graceful shutdown.
    public func run() async throws {
        let accepted = AcceptedConnections()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: settings.listen, port: configuredPort) { child in
                child.eventLoop.makeCompletedFuture { try accepted.accept(child) }
            }
        let port = server.channel.localAddress?.port ?? configuredPort
        boundPort.withLock { $0 = port }
        let advertiser = AvahiAdvertiser(label: "HomeKit", setting: "homekit.mdns", logger: logger)
        announce(advertiser, port: port)
        let identity = identity
        logger.info(
            """
            HomeKit: bridge "\(name)" (id \(identity.pairingID)) on \(settings.listen):\(port), setup code \
            \(identity.setupCode), \
            \(identity.isPaired ? "paired with \(identity.controllers.count) controller(s)" : "not paired yet") \
            (\(shared.withLock { $0.database.accessories.count - 1 }) accessories)
            """)
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followChanges(advertiser: advertiser, port: port) }
            group.addTask {
                await withGracefulShutdownHandler {
                    do {
                        try await server.executeThenClose { inbound in
                            try await withThrowingDiscardingTaskGroup { connections in
                                for try await connection in inbound where accepted.take(connection) {
                                    connections.addTask { await self.serve(connection) }
                                }
                            }
                        }
                    } catch {
                        self.logger.error("HomeKit: the server on port \(port) stopped: \(error)")
                    }
                    // Connections accepted but never handed out (queued when the server closed) are
                    // finished and closed here, whichever way the server ended.
                    let unserved = await accepted.closeRest()
                    if unserved > 0 { self.logger.debug("HomeKit: \(unserved) queued connection(s) closed") }
                } onGracefulShutdown: {
                    self.stop(server.channel)
                }
            }
        }
        advertiser.stop()
    }

    private func stop(_ server: any Channel) {
        wakeContinuation.finish()
        server.close(promise: nil)
        for connection in shared.withLock({ Array($0.connections.values) }) {
            Task { await connection.close() }
        }
    }

    /// Persists the identity after a pairing change; a failure is logged (the pairing still holds
    /// until restart).
    func persist(_ identity: HomeKitIdentity) {
        do {
            try store.saveHomeKitIdentity(
                name: Self.storeName(slot: slot), identity: Array(JSONEncoder().encode(identity)), now: Date())
        } catch {
            logger.error("HomeKit: could not keep the pairing state in the registry: \(error); check its folder")
        }
    }
}
