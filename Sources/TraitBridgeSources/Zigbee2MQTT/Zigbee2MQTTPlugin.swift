import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// zigbee2mqtt behind the plug-in boundary: `<base>/bridge/state` is the parent of every
/// device, `<base>/bridge/devices` adds, updates and removes them, `<base>/<name>` carries
/// values and `<base>/<name>/availability` each device's own word.
public struct Zigbee2MQTTPlugin: SourcePlugin {
    public let source: Zigbee2MQTTSource
    public let baseTopic: String
    public let locality: TraitLocality
    /// Staleness budgets: by IEEE address or friendly name first, then by power source.
    public let mainsStaleness: Duration
    public let batteryStaleness: Duration
    public let deviceStaleness: [String: Duration]
    /// Devices by id, with their bindings.
    private(set) var devices: [DeviceID: Zigbee2MQTTDevice] = [:]
    /// State and availability topics of known devices.
    private var deviceTopics: [String: (id: DeviceID, isAvailability: Bool)] = [:]

    public init(
        source: Zigbee2MQTTSource, baseTopic: String, locality: TraitLocality,
        mainsStaleness: Duration? = nil, batteryStaleness: Duration? = nil, deviceStaleness: [String: Duration] = [:]
    ) {
        self.source = source
        self.baseTopic = baseTopic
        self.locality = locality
        self.mainsStaleness = mainsStaleness ?? source.table.mainsStaleness
        self.batteryStaleness = batteryStaleness ?? source.table.batteryStaleness
        self.deviceStaleness = deviceStaleness
    }

    public var family: String { Zigbee2MQTTSource.family }
    public var instance: String { source.instance }
    public var subscriptions: [String] { [baseTopic + "/#"] }
    public var deviceIDs: [DeviceID] { devices.keys.sorted() }
    public var staleness: Duration { mainsStaleness }
    public var deviceCount: Int { devices.count }
    var bridgeStateTopic: String { baseTopic + "/bridge/state" }
    var devicesTopic: String { baseTopic + "/bridge/devices" }

    public func claims(_ topic: String) -> Bool {
        topic.utf8.count > baseTopic.utf8.count && topic.hasPrefix(baseTopic + "/")
    }

    public func carriesList(_ topic: String) -> Bool { topic == devicesTopic }

    public func bindings(of id: DeviceID, at address: TraitAddress) -> [SourceBinding]? {
        devices[id].map { Array($0.bindings.values.joined().filter { $0.address == address }) }
    }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        if let known = deviceTopics[message.topic] {
            if known.isAvailability {
                availability(known.id, message, into: &events)
            } else {
                state(known.id, message, into: &events)
            }
        } else if message.topic == bridgeStateTopic {
            guard let isOnline = Zigbee2MQTTSource.availability(message.payload) else {
                events.append(
                    .log(.warning, "ignored bridge state: expected online/offline or {\"state\":…}", device: nil))
                return
            }
            events.append(.sourceAvailability(isOnline: isOnline))
        } else if message.topic == devicesTopic {
            discover(message, into: &events)
        } else if !isIgnored(message.topic) {
            events.append(.keepUntilKnown)  // a device's topic before bridge/devices named it
        }
    }

    /// Topics zigbee2mqtt itself uses that are neither state nor availability.
    func isIgnored(_ topic: String) -> Bool {
        let rest = topic.dropFirst(baseTopic.count + 1)
        return rest.hasPrefix("bridge/") || rest.hasSuffix("/set") || rest.hasSuffix("/get") || rest.contains("/set/")
    }

    private mutating func discover(_ message: SourceMessage, into events: inout [SourceEvent]) {
        // Read one entry at a time (the list can be tens of MB); nothing is applied unless it all reads.
        var discovery = Zigbee2MQTTSource.Discovery(exposesAsText: true)
        do {
            let isArray = try JSONDocument.forEachElement(
                ofArray: message.payload, maxDepth: 128, projection: Zigbee2MQTTSource.entryProjection
            ) { index, entry in
                source.discover(entry, at: index, into: &discovery)
            }
            if !isArray {
                let root = try JSONDocument.parse(message.payload, maxDepth: 128).root
                events.append(
                    .log(
                        .error,
                        "rejected bridge/devices: expected an array of devices, found \(root.kind); "
                            + "the known devices are kept as they are", device: nil))
                return
            }
        } catch {
            events.append(
                .log(.error, "rejected bridge/devices: \(error); the known devices are kept as they are", device: nil))
            return
        }
        for problem in discovery.problems { events.append(.log(.warning, "skipped a device: \(problem)", device: nil)) }
        if !discovery.canRemove, !devices.isEmpty {
            events.append(
                .log(
                    .warning, "bridge/devices has entries without an ieee_address: no device is removed on this list",
                    device: nil))
        }
        for id in devices.keys.sorted() where discovery.removes(id) {
            guard let gone = devices.removeValue(forKey: id) else { continue }
            let topics = topics(of: gone)
            for topic in topics { deviceTopics.removeValue(forKey: topic) }
            events.append(.unroute(topics))
            events.append(.removed(id, reason: "zigbee2mqtt no longer lists it"))
        }
        for var mapped in discovery.devices {
            let id = mapped.device.id
            let reference = SourceReference(family: family, instance: instance, nativeID: mapped.ieeeAddress)
            for address in mapped.device.traitAddresses {
                try? mapped.device.modifyTrait(at: address) { $0.source = reference }
            }
            let existing = devices[id]
            if let existing, existing.friendlyName == mapped.friendlyName,
                existing.device.hasSameShape(as: mapped.device)
            {
                continue  // unchanged: a no-op
            }
            if existing == nil, devices.count >= message.deviceLimit {
                events.append(.refusedDevice("a new zigbee2mqtt device: \(devices.count) are known already"))
                continue
            }
            if let existing, existing.friendlyName != mapped.friendlyName {
                let old = topics(of: existing)
                for topic in old { deviceTopics.removeValue(forKey: topic) }
                events.append(.unroute(old))
            }
            devices[id] = mapped
            let (state, availability) = (
                baseTopic + "/" + mapped.friendlyName, baseTopic + "/" + mapped.friendlyName + "/availability"
            )
            deviceTopics[state] = (id, false)
            deviceTopics[availability] = (id, true)
            events.append(.route([state, availability]))
            events.append(
                .described(SourceDevice(device: mapped.device, stalenessBudget: stalenessBudget(for: mapped))))
            events.append(.replay([availability, state]))  // what came before the device was known, availability first
        }
    }

    private func topics(of device: Zigbee2MQTTDevice) -> [String] {
        [baseTopic + "/" + device.friendlyName, baseTopic + "/" + device.friendlyName + "/availability"]
    }

    private func state(_ id: DeviceID, _ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let mapped = devices[id] else { return }
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(message.payload)
        } catch {
            events.append(.log(.warning, "rejected message: \(error)", device: id))
            return
        }
        guard document.root.kind == .object else {
            events.append(
                .log(.warning, "rejected message: expected a JSON object, found \(document.root.kind)", device: id))
            return
        }
        let (updates, problems) = source.updates(from: document.root, of: mapped)
        for problem in problems { events.append(.log(.warning, "ignored a value: \(problem)", device: id)) }
        events.append(.values(id, updates, isNews: true))
        for key in mapped.notifyingKeys {
            // An action that became a value is a notification too (the engine drops retained ones).
            guard let binding = mapped.bindings[key]?.first, let action = document.root[key]?.string,
                updates.contains(where: {
                    $0.address == binding.address && $0.attribute == binding.attribute && $0.value == .string(action)
                })
            else { continue }
            events.append(
                .notification(id, trait: binding.address.traitID, ["kind": "action", "action": .string(action)]))
        }
    }

    /// An empty payload (left by a rename) is ignored.
    private func availability(_ id: DeviceID, _ message: SourceMessage, into events: inout [SourceEvent]) {
        guard !message.payload.isEmpty else { return }
        guard let isOnline = Zigbee2MQTTSource.availability(message.payload) else {
            events.append(
                .log(.warning, "ignored availability: expected online/offline or {\"state\":…}", device: id))
            return
        }
        guard let mapped = devices[id] else { return }
        events.append(
            .availability(
                SourceReference(family: family, instance: instance, nativeID: mapped.ieeeAddress), isOnline: isOnline))
    }

    private func stalenessBudget(for device: Zigbee2MQTTDevice) -> Duration {
        if let budget = deviceStaleness[device.ieeeAddress] ?? deviceStaleness[device.friendlyName] { return budget }
        return device.isBatteryPowered ? batteryStaleness : mainsStaleness
    }

    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard !writes.isEmpty else { return [] }
        guard let mapped = devices[id] else {
            throw .notSupported("device '\(id)' has not been listed by zigbee2mqtt since start")
        }
        let payload = try source.commandPayload(for: writes, on: mapped)
        return [
            SourceOutgoing(topic: baseTopic + "/" + mapped.friendlyName + "/set", payload: payload.serializedBytes())
        ]
    }
}

extension Device {
    /// Same name, device types and traits (values aside): a source describing it again changes nothing.
    public func hasSameShape(as other: Device) -> Bool {
        name == other.name && deviceTypes.count == other.deviceTypes.count
            && zip(deviceTypes, other.deviceTypes).allSatisfy { x, y in
                x.key == y.key && x.typeID == y.typeID && x.isPrimaryType == y.isPrimaryType
                    && x.traits.map(\.traitID) == y.traits.map(\.traitID)
            }
    }
}
