import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// Home Assistant MQTT discovery behind the plug-in boundary: configs under the discovery prefix
/// make entities, the entities of one HA device make one device (which joins the device another
/// source has for the same physical device), and each entity reads its own topics, with its own
/// availability (combined by its mode) and staleness.
public struct HADiscoveryPlugin: SourcePlugin {
    public let source: HADiscoverySource
    public let locality: TraitLocality
    public let staleness: Duration
    /// Entities published by these (lowercased) origins are skipped: the bridge reads those
    /// sources directly, with more detail (zigbee2mqtt's own HA discovery).
    public let skippedOrigins: Set<String>
    /// Entities by key (`switch/bla`, `device/<id>/<component>`), the keys of each config topic,
    /// the entities reading each topic, the entities of each HA device, entity by unique id.
    private var entities: [String: HADiscoveryEntity] = [:]
    private var configKeys: [String: [String]] = [:]
    private var readers: [String: [String]] = [:]
    private var devices: [DeviceID: Set<String>] = [:]
    private var uniqueIDs: [String: String] = [:]
    /// Per entity: what each of its availability topics said last.
    private var said: [String: [String: Bool]] = [:]
    /// Each device as last described (a config published again changes nothing).
    private var lastDescribed: [DeviceID: SourceDevice] = [:]

    public init(
        source: HADiscoverySource, locality: TraitLocality, staleness: Duration, skippedOrigins: Set<String> = []
    ) {
        self.source = source
        self.locality = locality
        self.staleness = staleness
        self.skippedOrigins = skippedOrigins
    }

    public var family: String { HADiscoverySource.family }
    public var instance: String { source.instance }
    public var joinsOtherDevices: Bool { true }
    public var devicesAreHomeAssistants: Bool { true }
    public var subscriptions: [String] { [source.prefix + "/#"] }
    public var deviceIDs: [DeviceID] { devices.keys.sorted() }
    public var deviceCount: Int { devices.count }

    public func claims(_ topic: String) -> Bool { topic.hasPrefix(source.prefix + "/") }

    /// What the device's entities at this device type feed and accept (their own ranges).
    public func bindings(of id: DeviceID, at address: TraitAddress) -> [SourceBinding]? {
        guard let keys = devices[id] else { return nil }
        var bindings: [SourceBinding] = []
        for key in keys.sorted() {
            guard let entity = entities[key], entity.deviceType.key == address.deviceTypeKey else { continue }
            bindings += entity.bindings(at: address, catalog: source.catalog)
        }
        return bindings.isEmpty ? nil : bindings
    }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        if let keys = readers[message.topic] { read(keys, message, into: &events) }
        if claims(message.topic) { config(message, into: &events) }
    }

    // MARK: Configs

    /// A config (an entity, a device config, or a removal); anything else under the prefix
    /// (HA's own `homeassistant/status`, state topics) is not discovery.
    private mutating func config(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let parsed = source.configKey(message.topic) else { return }
        let component: String
        let key: String
        switch parsed {
        case .failure(let problem):
            events.append(.log(.warning, "rejected Home Assistant discovery config: \(problem.message)", device: nil))
            return
        case .success(let value): (component, key) = value
        }
        let configMessage: HADiscoverySource.ConfigMessage
        switch source.configMessage(component: component, key: key, topic: message.topic, payload: message.payload) {
        case .failure(let problem):
            events.append(.log(.warning, "rejected Home Assistant discovery config: \(problem.message)", device: nil))
            return
        case .success(let value): configMessage = value
        }
        var touched: Set<DeviceID> = []
        switch configMessage {
        case .removal:
            for entityKey in configKeys.removeValue(forKey: message.topic) ?? []
            where entities[entityKey]?.isMigrating != true {
                if let id = unregister(entityKey, into: &events) { touched.insert(id) }
            }
        case .migration:
            let known = configKeys[message.topic] ?? []
            for entityKey in known { entities[entityKey]?.isMigrating = true }
            if !known.isEmpty {
                events.append(
                    .log(
                        .info, "Home Assistant entity announced its move to a device config; kept until then",
                        device: nil))
            }
        case .entities(let results, let keys, let removedKeys):
            let dropped = (configKeys[message.topic] ?? []).filter { !keys.contains($0) } + removedKeys
            for entityKey in Set(dropped) { if let id = unregister(entityKey, into: &events) { touched.insert(id) } }
            var accepted: [String] = []
            for result in results {
                switch result {
                case .failure(let problem):
                    events.append(.log(.warning, "rejected Home Assistant entity: \(problem)", device: nil))
                case .success(let entity):
                    guard admits(entity, message, into: &events, touched: &touched) else { continue }
                    for note in entity.notes {
                        events.append(
                            .log(.notice, "Home Assistant entity \(entity.key): \(note.message)", device: nil))
                    }
                    touched.formUnion(register(entity, into: &events))
                    accepted.append(entity.key)
                }
            }
            configKeys[message.topic] = accepted.isEmpty ? nil : accepted
        }
        for id in touched.sorted() { describe(id, into: &events) }
    }

    /// Whether an entity may be kept: within the device bound, not one of a source read
    /// directly, and with a unique id of its own (a migrating entity gives its id up).
    private mutating func admits(
        _ entity: HADiscoveryEntity, _ message: SourceMessage, into events: inout [SourceEvent],
        touched: inout Set<DeviceID>
    ) -> Bool {
        if devices[entity.deviceRef.deviceID] == nil, devices.count >= message.deviceLimit {
            events.append(.refusedDevice("a new Home Assistant device: \(devices.count) are known already"))
            return false
        }
        if let origin = entity.origin?.lowercased(), skippedOrigins.contains(origin) {
            events.append(
                .log(
                    .debug,
                    "skipped Home Assistant entity \(entity.key): published by \(entity.origin ?? origin), "
                        + "which TraitBridge reads directly", device: nil))
            return false
        }
        if let uniqueID = entity.uniqueID, let owner = uniqueIDs[uniqueID], owner != entity.key {
            guard entities[owner]?.isMigrating == true else {
                events.append(
                    .log(
                        .warning,
                        "rejected Home Assistant entity \(entity.key): unique_id '\(uniqueID)' is already used by "
                            + "\(entities[owner]?.configTopic ?? owner); give each entity its own unique_id",
                        device: nil))
                return false
            }
            if let id = unregister(owner, into: &events) { touched.insert(id) }
        }
        return true
    }

    /// Keeps an entity and its topics; the ids of the devices it changes (its own, and the one it
    /// left when its config names another device now).
    private mutating func register(_ entity: HADiscoveryEntity, into events: inout [SourceEvent]) -> Set<DeviceID> {
        var previousDevice: DeviceID?
        if entities[entity.key] != nil { previousDevice = unregister(entity.key, keepingWords: true, into: &events) }
        let id = entity.deviceRef.deviceID
        entities[entity.key] = entity
        if let uniqueID = entity.uniqueID { uniqueIDs[uniqueID] = entity.key }
        for topic in entity.topics { readers[topic, default: []].append(entity.key) }
        devices[id, default: []].insert(entity.key)
        // Keep what the availability topics that remain said.
        let kept = Set(entity.availability.map(\.topic))
        said[entity.key] = said[entity.key]?.filter { kept.contains($0.key) }
        events.append(.route(entity.topics.sorted()))
        events.append(.subscribe(entity.topics.sorted()))
        return Set([id] + [previousDevice].compactMap { $0 })
    }

    /// Forgets an entity; the id of the device it belonged to.
    private mutating func unregister(_ key: String, keepingWords: Bool = false, into events: inout [SourceEvent])
        -> DeviceID?
    {
        guard let entity = entities.removeValue(forKey: key) else { return nil }
        if let uniqueID = entity.uniqueID, uniqueIDs[uniqueID] == key { uniqueIDs.removeValue(forKey: uniqueID) }
        var unread: [String] = []
        for topic in entity.topics.sorted() {
            readers[topic]?.removeAll { $0 == key }
            if readers[topic]?.isEmpty == true {
                readers.removeValue(forKey: topic)
                unread.append(topic)
            }
        }
        if !unread.isEmpty { events.append(.unroute(unread)) }
        if !keepingWords { said.removeValue(forKey: key) }
        let id = entity.deviceRef.deviceID
        devices[id]?.remove(key)
        return id
    }

    /// The device of an HA device's entities, or its removal when none is left.
    private mutating func describe(_ id: DeviceID, into events: inout [SourceEvent]) {
        let members = (devices[id] ?? []).compactMap { entities[$0] }
        guard !members.isEmpty else {
            lastDescribed.removeValue(forKey: id)
            if devices.removeValue(forKey: id) != nil {
                events.append(.removed(id, reason: "its Home Assistant discovery configs were cleared"))
            }
            return
        }
        do {
            let device = try source.device(id: id, entities: members)
            let described = SourceDevice(
                device: device, stalenessBudget: staleness, joining: .sameIdentity, keyPrefix: "ha-",
                suggestedArea: members.compactMap(\.deviceRef.suggestedArea).first)
            if let last = lastDescribed[id], last.device == device, last.suggestedArea == described.suggestedArea {
                return
            }
            lastDescribed[id] = described
            events.append(.described(described))
        } catch {
            events.append(.log(.warning, "rejected Home Assistant device \(id): \(error)", device: id))
        }
    }

    // MARK: Values and availability

    /// A message on a topic entities read: availability words, then values.
    private mutating func read(_ keys: [String], _ message: SourceMessage, into events: inout [SourceEvent]) {
        // Parsed at most once, and only when some entity reads it as JSON.
        var document: JSON?
        var parsed = false
        func json() -> JSON? {
            if !parsed {
                parsed = true
                document = try? JSONDocument.parse(message.payload).root
            }
            return document
        }
        var byDevice: [DeviceID: [AttributeUpdate]] = [:]
        for key in keys {
            guard let entity = entities[key] else { continue }
            for entry in entity.availability where entry.topic == message.topic {
                guard
                    let isAvailable = source.availability(
                        entry, payload: message.payload, document: entry.template.readsJSON ? json() : nil)
                else {
                    events.append(
                        .log(
                            .notice,
                            "ignored availability of \(key): expected '\(entry.available)' or '\(entry.notAvailable)'",
                            device: nil))
                    continue
                }
                said[entity.key, default: [:]][message.topic] = isAvailable
                if let reference = entity.source {
                    events.append(.availability(reference, isOnline: combined(entity, latest: isAvailable)))
                }
            }
            var updates: [AttributeUpdate] = []
            var problems: [SourceProblem] = []
            for channel in entity.channels where channel.topic == message.topic {
                let needsJSON =
                    channel.template.readsJSON || { if case .jsonLight = channel.reading { true } else { false } }()
                source.read(
                    channel, payload: message.payload, document: needsJSON ? json() : nil, into: &updates,
                    problems: &problems)
            }
            let own = entity.deviceRef.deviceID
            for problem in problems { events.append(.log(.notice, "ignored: \(key): \(problem)", device: own)) }
            guard !updates.isEmpty || !problems.isEmpty else { continue }
            byDevice[own, default: []] += updates
        }
        for (id, updates) in byDevice.sorted(by: { $0.key < $1.key }) {
            events.append(.values(id, updates, isNews: false))
        }
    }

    /// An entity's availability topics combined by its mode (all / any / latest).
    private func combined(_ entity: HADiscoveryEntity, latest: Bool) -> Bool? {
        let words = said[entity.key] ?? [:]
        let states = entity.availability.map { words[$0.topic] }
        switch entity.availabilityMode {
        case .latest: return latest
        case .all: return states.contains(false) ? false : states.allSatisfy { $0 == true } ? true : nil
        case .any: return states.contains(true) ? true : states.allSatisfy { $0 == false } ? false : nil
        }
    }

    // MARK: Commands

    /// Command-topic messages for writes on an HA device's traits, entity by entity.
    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard !writes.isEmpty else { return [] }
        let owned = (devices[id] ?? []).sorted().compactMap { entities[$0] }
        var byEntity: [String: [AttributeUpdate]] = [:]
        for write in writes {
            let key = write.address.deviceTypeKey
            guard
                let entity = owned.first(where: {
                    $0.deviceType.key == key && $0.deviceType.trait(write.address.traitID) != nil
                })
                    ?? owned.first(where: { $0.key.replacing("/", with: "-") == key })
            else {
                throw .notSupported("\(write.address) has no Home Assistant entity since start")
            }
            var local = write
            local.address.deviceTypeKey = entity.deviceType.key
            byEntity[entity.key, default: []].append(local)
        }
        var outgoing: [SourceOutgoing] = []
        for (key, entityWrites) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = entities[key] else { continue }
            do {
                outgoing += try source.commands(for: entityWrites, on: entity).map {
                    SourceOutgoing(topic: $0.topic, payload: Array($0.payload.utf8))
                }
            } catch {
                throw .notSupported(error.description)
            }
        }
        return outgoing
    }
}
