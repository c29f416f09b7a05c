import FoundationEssentials
public import Logging
public import ServiceLifecycle
import Synchronization
public import TraitBridgeEngine
import TraitBridgeJSON
public import TraitBridgeStore

/// Every cloud link of a running bridge: the config file's, and the registry's — added, changed
/// and removed with `traitbridge cloud link add|remove` while the bridge runs, seen within
/// ``checkInterval``. Each link runs as its own task; a removed link's devices go with it.
public final class CloudLinks: Service, Sendable {
    let configured: [CloudLinkSettings]
    let bridge: Bridge
    let store: DeviceStore?
    let homeGraph: LinkHomeGraph
    let logger: Logger
    public var checkInterval: Duration { .seconds(2) }
    /// Registry links as last read or written here (a refreshed token is not a changed link).
    private let known = Mutex<[String: JSONValue]>([:])

    public init(
        configured: [CloudLinkSettings], bridge: Bridge, store: DeviceStore?, homeGraph: LinkHomeGraph, logger: Logger
    ) {
        self.configured = configured
        self.bridge = bridge
        self.store = store
        self.homeGraph = homeGraph
        self.logger = logger
    }

    struct Running {
        var task: Task<Void, Never>
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.supervise() }
    }

    private func supervise() async {
        var running: [String: Running] = [:]
        var warned = Set<String>()
        var lastWanted: [JSONValue]?
        while !Task.isCancelled {
            let (wanted, known) = wanted(warned: &warned)
            let wantedNames = Set(wanted.map(\.name))
            for (name, link) in running where !wantedNames.contains(name) {
                link.task.cancel()
                await link.task.value
                running.removeValue(forKey: name)
                logger.info("cloud link \(name) removed", metadata: ["tb.link": "\(name)"])
            }
            // New, or changed by `cloud link add` (not by this bridge's own token refresh).
            for settings in wanted where running[settings.name] == nil || known[settings.name] != settings.stored {
                if let old = running.removeValue(forKey: settings.name) {
                    old.task.cancel()
                    await old.task.value
                }
                running[settings.name] = start(settings)
            }
            // The bridge is told when the set of links or their settings change (not every 2 s).
            let signature = wanted.map { JSONValue.array([.string($0.name), $0.stored]) }
            if signature != lastWanted {
                lastWanted = signature
                let staleness = Dictionary(wanted.map { ($0.name, $0.staleness) }) { first, _ in first }
                bridge.setCloudLinks(wantedNames, staleness: staleness)
                do { try homeGraph.update(wanted) } catch { logger.error("cloud links: \(error)") }
            }
            try? await Task.sleep(for: checkInterval)
        }
        for link in running.values { link.task.cancel() }
        for link in running.values { await link.task.value }
    }

    /// The config file's links, then the registry's (a registry link named like a config link
    /// is left out, once said), and the settings each running link was started or refreshed with.
    func wanted(warned: inout Set<String>) -> (links: [CloudLinkSettings], known: [String: JSONValue]) {
        var links = configured
        guard let store else { return (links, known.withLock { $0 }) }
        // Read under the lock a refresh writes under: the rows and `known` agree.
        let (rows, known) = known.withLock { known in (Result { try store.cloudLinks() }, known) }
        let read: [(name: String, settings: [UInt8])]
        switch rows {
        case .success(let rows): read = rows
        case .failure(let error):
            logger.error("cloud links: \(error)")
            return (links, known)
        }
        for row in read {
            if configured.contains(where: { $0.name == row.name }) {
                if warned.insert(row.name).inserted {
                    logger.warning(
                        "cloud link \(row.name) is in the config file and in the registry; the config file's is used")
                }
                continue
            }
            do { links.append(try CloudLinkSettings(name: row.name, stored: row.settings)) } catch {
                if warned.insert(row.name).inserted { logger.error("\(error)") }
            }
        }
        return (links, known)
    }

    func start(_ settings: CloudLinkSettings) -> Running {
        let name = settings.name
        let fromRegistry = !configured.contains { $0.name == name }
        let store = fromRegistry ? store : nil
        known.withLock { $0[name] = settings.stored }
        let onRefresh: @Sendable (String, OAuthGrant) -> Void = { [weak self] token, grant in
            var renewed = settings
            renewed.token = token
            renewed.oauth = grant
            self?.known.withLock { known in
                known[name] = renewed.stored
                do {
                    try store?.saveCloudLink(name: name, settings: renewed.stored.serializedBytes(), now: Date())
                } catch {
                    self?.logger.error("cloud link \(name): the refreshed token could not be kept: \(error)")
                }
            }
        }
        let link: CloudLink
        do { link = try CloudLink(settings: settings, bridge: bridge, logger: logger, onRefresh: onRefresh) } catch {
            logger.error("cloud link \(name): \(error)")
            return Running(task: Task {})
        }
        homeGraph.attach(link)
        logger.info("cloud link \(name) started: \(settings.url)", metadata: ["tb.link": "\(name)"])
        return Running(task: Task { try? await link.run() })
    }
}
