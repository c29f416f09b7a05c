import Foundation
public import Logging
public import ServiceLifecycle
import Synchronization
public import TraitBridgeEngine
public import TraitBridgeMapping
import TraitBridgeModel
public import TraitBridgeStore

/// TraitBridge in HomeKit: one bridge, or several when the home has more accessories than one
/// bridge may hold (HAP: 149). Each bridge is its own accessory with its own pairing, port and mDNS
/// announcement; an accessory stays on the bridge it was first offered by (`BridgeAssignment`), so
/// adding devices never moves one the Home app already placed. The bridges the registry knows start
/// at once, a new one when more devices need it. Composes the bridges; owns only the assignment.
public final class HomeKitBridges: Service, Sendable {
    /// Bridges at most (16 × 149 = 2 384 accessories); more are left out, and the log says so.
    public static let bridgeLimit = 16

    private let bridge: Bridge
    private let store: DeviceStore
    private let table: HomeKitTable
    private let settings: HomeKitBridge.Settings
    private let version: String
    private let logger: Logger
    private let state: Mutex<State>
    private let needed: AsyncStream<Int>
    private let neededContinuation: AsyncStream<Int>.Continuation

    private struct State: Sendable {
        var assignment: BridgeAssignment
        var bridges: [HomeKitBridge] = []
        /// Slots running or being started.
        var started: Set<Int> = []
        var saidLeftOut = 0
        /// The split made for the last graph asked about.
        var lastSplit: (graph: HomeGraph, split: BridgeAssignment.Split)?
    }

    /// Loads every bridge the registry keeps (at least the first).
    public init(
        bridge: Bridge, store: DeviceStore, table: HomeKitTable, settings: HomeKitBridge.Settings, version: String,
        logger: Logger
    ) throws {
        self.bridge = bridge
        self.store = store
        self.table = table
        self.settings = settings
        self.version = version
        self.logger = logger
        var offered: [[String]] = []
        var kept: [[String]] = []
        var stored = [1]
        for slot in 1...Self.bridgeLimit {
            guard let bytes = try store.homeKitIdentity(name: HomeKitBridge.storeName(slot: slot)) else { continue }
            if slot > 1 { stored.append(slot) }
            while kept.count < slot - 1 {
                kept.append([])
                offered.append([])
            }
            let identity = try? JSONDecoder().decode(HomeKitIdentity.self, from: Data(bytes))
            let ids = identity?.accessoryIDs ?? [:]
            kept.append(ids.keys.sorted { (ids[$0] ?? 0, $0) < (ids[$1] ?? 0, $1) })
            offered.append(identity?.offered ?? [])
        }
        state = Mutex(
            State(
                assignment: BridgeAssignment(
                    capacity: settings.accessoriesPerBridge, bridgeLimit: Self.bridgeLimit, offered: offered,
                    kept: kept),
                started: Set(stored)))
        (needed, neededContinuation) = AsyncStream.makeStream()
        let made = try stored.map { try makeBridge(slot: $0) }
        state.withLock { $0.bridges = made }
    }

    /// The bridges running now, the first first.
    public var bridges: [HomeKitBridge] { state.withLock { $0.bridges } }

    /// The first bridge (always there).
    public var primary: HomeKitBridge { state.withLock { $0.bridges[0] } }

    private func makeBridge(slot: Int) throws -> HomeKitBridge {
        try HomeKitBridge(
            bridge: bridge, store: store, table: table, settings: settings, slot: slot,
            share: { [weak self] graph in self?.share(of: slot, graph: graph) }, version: version, logger: logger)
    }

    /// Bridge `slot`'s accessories for `graph`; asks for the bridges the split needs and are not running.
    /// Every bridge asks after a change: the split is made once per graph and shared.
    func share(of slot: Int, graph: HomeGraph) -> Set<String> {
        let (split, missing, leftOut) = state.withLock { state in
            if let last = state.lastSplit, last.graph == graph {
                return (last.split, [Int](), Int?.none)
            }
            let split = state.assignment.assign(
                HAPDatabase.offeredKeys(graph: graph, table: table, rules: settings.exportRules))
            state.lastSplit = (graph, split)
            let missing = (1...split.bridges.count).filter {
                !state.started.contains($0) && !split.bridges[$0 - 1].isEmpty
            }
            state.started.formUnion(missing)
            defer { state.saidLeftOut = split.leftOut }
            return (split, missing, split.leftOut != state.saidLeftOut ? split.leftOut : nil)
        }
        for slot in missing { neededContinuation.yield(slot) }
        if let leftOut, leftOut > 0 {
            logger.warning(
                """
                HomeKit: \(leftOut) device(s) and scene(s) are not offered: \(Self.bridgeLimit) bridges of \
                \(settings.accessoriesPerBridge) accessories are full; narrow homekit's include/exclude
                """)
        }
        return slot <= split.bridges.count ? split.bridges[slot - 1] : []
    }

    /// Runs every bridge until graceful shutdown; starts the ones more devices need.
    public func run() async throws {
        await withDiscardingTaskGroup { group in
            for bridge in bridges {
                group.addTask { await self.run(bridge) }
            }
            await withGracefulShutdownHandler {
                for await slot in needed {
                    do {
                        let made = try makeBridge(slot: slot)
                        state.withLock { $0.bridges.append(made) }
                        logger.notice(
                            """
                            HomeKit: more accessories than one bridge holds (\(settings.accessoriesPerBridge)): \
                            bridge \(slot) "\(made.name)" starts; add it in the Home app too \
                            (setup code \(made.identity.setupCode))
                            """)
                        group.addTask { await self.run(made) }
                    } catch {
                        logger.error(
                            "HomeKit: bridge \(slot) could not start: \(error); its accessories are not offered")
                    }
                }
            } onGracefulShutdown: {
                self.neededContinuation.finish()
            }
        }
    }

    private func run(_ bridge: HomeKitBridge) async {
        do { try await bridge.run() } catch {
            logger.error("HomeKit: bridge \(bridge.slot) stopped: \(error)")
        }
    }
}
