import FoundationEssentials
import TraitBridgeModel

/// What the bridge published to Home Assistant's discovery: each device's config by the hash of
/// its bytes (published again only when they change) and its object id, and the bridge's own
/// config. The one owner of that; `BridgeState+HomeAssistant` asks it before publishing.
struct HomeAssistantLedger: Sendable {
    private var configs: [DeviceID: (objectID: String, hash: Int?, entities: Int)] = [:]
    private var objectIDs: Set<String> = []
    private var bridgeHash: Int?
    /// Devices whose config was just published: their state is sent again once Home Assistant has
    /// had time to make the new entities (an entity added to a config subscribes to a state topic
    /// Home Assistant already has, and gets no retained copy of it).
    private var restate: Set<DeviceID> = []
    private var restateAt: Date?

    /// Devices whose description changed: their config is made and published once the batch is due
    /// (a device described, then growing a component, then its first values makes one config, not three).
    private var due: [DeviceID: String] = [:]
    private var dueObjectIDs: Set<String> = []
    private var dueAt: Date?

    /// How long after a config its state is sent again, in seconds.
    static let restateDelay: TimeInterval = 1.5
    /// How long a changed description waits for the next ones before its config is made, in seconds.
    static let batchDelay: TimeInterval = 1

    /// The device's description changed at `now`: its config (object id `objectID`) is due in a moment.
    mutating func configLater(_ id: DeviceID, objectID: String, now: Date) {
        due[id] = objectID
        dueObjectIDs.insert(objectID)
        if dueAt == nil { dueAt = now.addingTimeInterval(Self.batchDelay) }
    }

    /// Configs made per tick at most: 10 000 devices' take some seconds, and the engine must not stop
    /// for them (a tick's share is some tens of milliseconds).
    static let batchLimit = 256

    /// The devices whose config is due at `now` (each once, at most ``batchLimit``; the rest at the next tick).
    mutating func takeDue(now: Date) -> [DeviceID] {
        guard let at = dueAt, now >= at else { return [] }
        let taken = due.count <= Self.batchLimit ? Array(due.keys) : Array(due.keys.sorted().prefix(Self.batchLimit))
        for id in taken {
            if let objectID = due.removeValue(forKey: id) { dueObjectIDs.remove(objectID) }
        }
        if due.isEmpty { dueAt = nil }
        return taken.sorted()
    }

    /// Every device's config due now (Home Assistant started again).
    mutating func allDue(_ ids: [(DeviceID, String)], now: Date) {
        for (id, objectID) in ids {
            due[id] = objectID
            dueObjectIDs.insert(objectID)
        }
        dueAt = now
    }

    /// How many devices have a config on the broker.
    var count: Int { configs.count }
    /// How many entities those configs give.
    private(set) var entities = 0

    /// Records the device's config; whether it differs from what was published (publish it).
    mutating func publish(_ id: DeviceID, objectID: String, hash: Int, entities count: Int) -> Bool {
        if let known = configs[id], known.hash == hash, known.objectID == objectID { return false }
        if let known = configs[id] {
            if known.objectID != objectID { objectIDs.remove(known.objectID) }
            entities -= known.entities
        }
        entities += count
        configs[id] = (objectID, hash, count)
        objectIDs.insert(objectID)
        return true
    }

    /// The device's config was published at `now`: its state is due again after ``restateDelay``.
    mutating func restateLater(_ id: DeviceID, now: Date) {
        restate.insert(id)
        if restateAt == nil { restateAt = now.addingTimeInterval(Self.restateDelay) }
    }

    /// The devices whose state is due again at `now` (each once; at most four batches' worth a tick).
    mutating func takeRestates(now: Date) -> [DeviceID] {
        guard let due = restateAt, now >= due else { return [] }
        let taken = restate.count <= 4 * Self.batchLimit ? Array(restate) : Array(restate.prefix(4 * Self.batchLimit))
        restate.subtract(taken)
        if restate.isEmpty { restateAt = nil }
        return taken.sorted()
    }

    /// Forgets the device's config; its object id when one was published (clear it).
    mutating func remove(_ id: DeviceID) -> String? {
        guard let known = configs.removeValue(forKey: id) else { return nil }
        objectIDs.remove(known.objectID)
        entities -= known.entities
        return known.objectID
    }

    /// Whether a config on the broker is one this run published, or is about to.
    func isPublished(objectID: Substring) -> Bool {
        let objectID = String(objectID)
        return objectIDs.contains(objectID) || dueObjectIDs.contains(objectID)
    }

    /// Records the bridge's config; whether it differs from what was published.
    mutating func publishBridge(hash: Int) -> Bool {
        guard bridgeHash != hash else { return false }
        bridgeHash = hash
        return true
    }

    /// Home Assistant started again, or the broker connection is new: everything is published
    /// again. The object ids stay known, so the configs on the broker are not taken for leftovers.
    mutating func forgetHashes() {
        for (id, known) in configs { configs[id] = (known.objectID, nil, known.entities) }
        bridgeHash = nil
    }
}
