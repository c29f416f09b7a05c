import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// A Home Assistant device as the bridge keeps it: its entities, and the device they were merged
/// into when another source knows the same physical device (then `keyMap` renames clashing keys).
struct HADeviceRuntime: Sendable {
    var entityKeys: Set<String> = []
    var target: DeviceID?
    /// Entity device type key → key on the target device.
    var keyMap: [String: String] = [:]
}

extension BridgeState {
    /// A message on `<prefix>/…`: a config (an entity, a device config, or a removal); anything
    /// else under the prefix (HA's own `homeassistant/status`, state topics) is not discovery.
    mutating func handleHomeAssistantConfig(topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = homeAssistant, let parsed = source.configKey(topic) else { return }
        let metadata = ["tb.mqtt.topic": topic, "tb.source": HADiscoverySource.family]
        let component: String
        let key: String
        switch parsed {
        case .failure(let problem):
            effects.log(.warning, "rejected Home Assistant discovery config: \(problem.message)", metadata)
            return
        case .success(let value): (component, key) = value
        }
        let message: HADiscoverySource.ConfigMessage
        switch source.configMessage(component: component, key: key, topic: topic, payload: payload) {
        case .failure(let problem):
            effects.log(.warning, "rejected Home Assistant discovery config: \(problem.message)", metadata)
            return
        case .success(let value): message = value
        }
        var touched: Set<DeviceID> = []
        switch message {
        case .removal:
            for entityKey in haConfigKeys.removeValue(forKey: topic) ?? [] where haEntities[entityKey]?.isMigrating != true {
                if let id = unregisterHomeAssistantEntity(entityKey) { touched.insert(id) }
            }
        case .migration:
            let known = haConfigKeys[topic] ?? []
            for entityKey in known { haEntities[entityKey]?.isMigrating = true }
            if !known.isEmpty { effects.log(.info, "Home Assistant entity announced its move to a device config; kept until then", metadata) }
        case .entities(let results, let keys, let removedKeys):
            let dropped = (haConfigKeys[topic] ?? []).filter { !keys.contains($0) } + removedKeys
            for entityKey in Set(dropped) { if let id = unregisterHomeAssistantEntity(entityKey) { touched.insert(id) } }
            var accepted: [String] = []
            for result in results {
                switch result {
                case .failure(let problem):
                    effects.log(.warning, "rejected Home Assistant entity: \(problem)", metadata)
                case .success(let entity):
                    if haDevices[entity.deviceRef.deviceID] == nil,
                        !admitsNewDevice("Home Assistant", count: haDevices.count, topic: topic, effects: &effects)
                    { continue }
                    if let origin = entity.origin?.lowercased(), plugins.contains(where: { $0.family == origin }) {
                        // Its devices are read from zigbee2mqtt itself, with more detail: no twin.
                        effects.log(.debug, "skipped Home Assistant entity \(entity.key): published by Zigbee2MQTT, which TraitBridge reads directly", metadata)
                        continue
                    }
                    if let uniqueID = entity.uniqueID, let owner = haUniqueIDs[uniqueID], owner != entity.key {
                        guard haEntities[owner]?.isMigrating == true else {
                            effects.log(.warning, "rejected Home Assistant entity \(entity.key): unique_id '\(uniqueID)' is already used by \(haEntities[owner]?.configTopic ?? owner); give each entity its own unique_id", metadata)
                            continue
                        }
                        if let id = unregisterHomeAssistantEntity(owner) { touched.insert(id) }
                    }
                    for note in entity.notes { effects.log(.notice, "Home Assistant entity \(entity.key): \(note.message)", metadata) }
                    touched.formUnion(registerHomeAssistantEntity(entity, effects: &effects))
                    accepted.append(entity.key)
                }
            }
            haConfigKeys[topic] = accepted.isEmpty ? nil : accepted
        }
        for id in touched.sorted() { registerHomeAssistantDevice(id, now: now, effects: &effects) }
    }

    /// Keeps an entity and its topics; the ids of the devices it changes (its own, and the one it
    /// left when its config names another device now).
    private mutating func registerHomeAssistantEntity(_ entity: HADiscoveryEntity, effects: inout BridgeEffects) -> Set<DeviceID> {
        var previousDevice: DeviceID?
        if haEntities[entity.key] != nil { previousDevice = unregisterHomeAssistantEntity(entity.key, keepLiveness: true) }
        let id = entity.deviceRef.deviceID
        haEntities[entity.key] = entity
        if let uniqueID = entity.uniqueID { haUniqueIDs[uniqueID] = entity.key }
        if let native = entity.source?.nativeID { haEntityBySource[native] = entity.key }
        for topic in entity.topics { haTopics[topic, default: []].append(entity.key) }
        haDevices[id, default: HADeviceRuntime()].entityKeys.insert(entity.key)
        if haLiveness[entity.key] == nil { haLiveness[entity.key] = DeviceLiveness(stalenessBudget: configuration.homeAssistant?.staleness ?? .seconds(900)) }
        // Keep what the availability topics that remain said.
        let kept = Set(entity.availability.map(\.topic))
        haAvailability[entity.key] = haAvailability[entity.key]?.filter { kept.contains($0.key) }
        effects.subscriptions += entity.topics.sorted()
        return Set([id] + [previousDevice].compactMap { $0 })
    }

    /// Forgets an entity; the id of the device it belonged to.
    @discardableResult
    private mutating func unregisterHomeAssistantEntity(_ key: String, keepLiveness: Bool = false) -> DeviceID? {
        guard let entity = haEntities.removeValue(forKey: key) else { return nil }
        if let uniqueID = entity.uniqueID, haUniqueIDs[uniqueID] == key { haUniqueIDs.removeValue(forKey: uniqueID) }
        if let native = entity.source?.nativeID, haEntityBySource[native] == key { haEntityBySource.removeValue(forKey: native) }
        for topic in entity.topics {
            haTopics[topic]?.removeAll { $0 == key }
            if haTopics[topic]?.isEmpty == true { haTopics.removeValue(forKey: topic) }
        }
        if !keepLiveness {
            haLiveness.removeValue(forKey: key)
            haAvailability.removeValue(forKey: key)
        }
        let id = entity.deviceRef.deviceID
        haDevices[id]?.entityKeys.remove(key)
        return id
    }

    /// A message on a topic entities read: availability words, then values.
    mutating func handleHomeAssistantMessage(_ keys: [String], topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = homeAssistant else { return }
        // Parsed at most once, and only when some entity reads it as JSON.
        var document: JSON?
        var parsed = false
        func json() -> JSON? {
            if !parsed { parsed = true; document = try? JSONDocument.parse(payload).root }
            return document
        }
        var reports: [DeviceID: (updates: [AttributeUpdate], problems: [SourceProblem])] = [:]
        for key in keys {
            guard let entity = haEntities[key] else { continue }
            let own = entity.deviceRef.deviceID
            let runtime = haDevices[own]
            let target = runtime?.target ?? own
            for entry in entity.availability where entry.topic == topic {
                guard let isAvailable = source.availability(entry, payload: payload, document: entry.template.readsJSON ? json() : nil) else {
                    effects.log(.notice, "ignored availability of \(key): expected '\(entry.available)' or '\(entry.notAvailable)'", ["tb.mqtt.topic": topic])
                    continue
                }
                setHomeAssistantAvailability(isAvailable, of: entity, topic: topic, target: target, now: now, effects: &effects)
            }
            var updates: [AttributeUpdate] = []
            var problems: [SourceProblem] = []
            for channel in entity.channels where channel.topic == topic {
                let needsJSON = channel.template.readsJSON || { if case .jsonLight = channel.reading { true } else { false } }()
                source.read(channel, payload: payload, document: needsJSON ? json() : nil, into: &updates, problems: &problems)
            }
            guard !updates.isEmpty || !problems.isEmpty else { continue }
            // Only a message that carried a value is news of the entity (a malformed one changes nothing).
            if !updates.isEmpty {
                haLiveness[key]?.lastSeen = now
                haLiveness[key]?.lastTopic = topic
            }
            if let keyMap = runtime?.keyMap, !keyMap.isEmpty {
                for index in updates.indices { updates[index].address.deviceTypeKey = keyMap[updates[index].address.deviceTypeKey] ?? updates[index].address.deviceTypeKey }
            }
            reports[target, default: ([], [])].updates += updates
            reports[target, default: ([], [])].problems += problems.map { SourceProblem(location: "\(key): \($0.location)", message: $0.message) }
        }
        for (target, report) in reports.sorted(by: { $0.key < $1.key }) {
            for problem in report.problems { effects.log(.notice, "ignored: \(problem)", ["tb.mqtt.topic": topic, "tb.device.id": target.rawValue]) }
            self.report(report.updates, on: target, seen: [], topic: topic, now: now, effects: &effects)
        }
    }

    /// Combines an entity's availability topics by its mode (all / any / latest).
    private mutating func setHomeAssistantAvailability(_ isAvailable: Bool, of entity: HADiscoveryEntity, topic: String, target: DeviceID, now: Date, effects: inout BridgeEffects) {
        haAvailability[entity.key, default: [:]][topic] = LinkState(status: isAvailable ? .up : .down, since: now, origin: topic)
        let said = haAvailability[entity.key] ?? [:]
        let states = entity.availability.map { said[$0.topic]?.status ?? .unknown }
        let status: LinkState.Status
        switch entity.availabilityMode {
        case .latest: status = isAvailable ? .up : .down
        case .all: status = states.contains(.down) ? .down : states.allSatisfy { $0 == .up } ? .up : .unknown
        case .any: status = states.contains(.up) ? .up : states.allSatisfy { $0 == .down } ? .down : .unknown
        }
        guard haLiveness[entity.key]?.availability.status != status else { return }
        haLiveness[entity.key]?.availability = LinkState(status: status, since: now, origin: topic)
        refresh(target, now: now, effects: &effects)
    }

    /// The connectivity of the traits one entity feeds.
    func homeAssistantConnectivity(_ source: SourceReference, now: Date) -> TraitConnectivity? {
        guard let key = haEntityBySource[source.nativeID], let live = haLiveness[key] else { return nil }
        return ConnectivityChain.resolve(
            broker: broker, brokerURL: configuration.brokerDescription, sourceBridge: LinkState(),
            device: live, locality: configuration.homeAssistant?.locality ?? .localPeer, now: now)
    }

    /// Command-topic messages for writes on traits Home Assistant entities feed.
    func homeAssistantCommands(_ writes: [AttributeUpdate], on id: DeviceID) throws(CommandFailure) -> [Outgoing] {
        guard !writes.isEmpty else { return [] }
        guard let source = homeAssistant, let device = graph.devices[id] else {
            throw CommandFailure(.notSupported, "device '\(id)' has no Home Assistant entity since start")
        }
        var byEntity: [String: [AttributeUpdate]] = [:]
        for write in writes {
            guard let native = device.trait(at: write.address)?.source?.nativeID, let key = haEntityBySource[native], let entity = haEntities[key] else {
                throw CommandFailure(.notSupported, "\(write.address) has no Home Assistant entity since start")
            }
            // Back from the key on a merged device to the entity's own key.
            let own = entity.deviceRef.deviceID
            var local = write
            if let original = haDevices[own]?.keyMap.first(where: { $0.value == write.address.deviceTypeKey })?.key { local.address.deviceTypeKey = original }
            byEntity[key, default: []].append(local)
        }
        var outgoing: [Outgoing] = []
        for (key, entityWrites) in byEntity.sorted(by: { $0.key < $1.key }) {
            guard let entity = haEntities[key] else { continue }
            do {
                outgoing += try source.commands(for: entityWrites, on: entity).map { Outgoing(topic: $0.topic, payload: Array($0.payload.utf8), isRetained: false) }
            } catch {
                throw CommandFailure(.notSupported, error.description)
            }
        }
        return outgoing
    }
}
