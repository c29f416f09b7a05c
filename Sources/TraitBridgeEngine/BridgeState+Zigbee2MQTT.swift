import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

extension BridgeState {
    /// `<base>/bridge/state`: the parent of every zigbee2mqtt device (its LWT).
    mutating func handleZigbee2MQTTBridgeState(topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let isOnline = Zigbee2MQTTSource.availability(payload) else {
            effects.log(.warning, "ignored bridge state: expected online/offline or {\"state\":…}", ["tb.mqtt.topic": topic])
            return
        }
        let status: LinkState.Status = isOnline ? .up : .down
        guard z2mBridge.status != status else { return }
        z2mBridge = LinkState(status: status, since: now, origin: topic)
        effects.log(isOnline ? .info : .warning, "zigbee2mqtt bridge is \(isOnline ? "online" : "offline")", ["tb.mqtt.topic": topic, "tb.source": "zigbee2mqtt"])
        for id in z2mDevices.keys.sorted() { refresh(id, now: now, effects: &effects) }
    }

    /// `<base>/bridge/devices`: add, update (or leave alone when unchanged) and remove devices.
    mutating func handleZigbee2MQTTDevices(topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = zigbee2mqtt, let instance = configuration.zigbee2mqtt else { return }
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(payload, maxDepth: 128)
        } catch {
            effects.log(.error, "rejected bridge/devices: \(error); the known devices are kept as they are", ["tb.mqtt.topic": topic])
            return
        }
        guard document.root.kind == .array else {
            effects.log(.error, "rejected bridge/devices: expected an array of devices, found \(document.root.kind); the known devices are kept as they are",
                        ["tb.mqtt.topic": topic, "tb.source": "zigbee2mqtt"])
            return
        }
        let discovery = source.discover(document.root)
        for problem in discovery.problems {
            effects.log(.warning, "skipped a device: \(problem)", ["tb.mqtt.topic": topic, "tb.source": "zigbee2mqtt"])
        }
        if !discovery.canRemove, !z2mDevices.isEmpty {
            effects.log(.warning, "bridge/devices has entries without an ieee_address: no device is removed on this list",
                        ["tb.mqtt.topic": topic, "tb.source": "zigbee2mqtt"])
        }
        for id in z2mDevices.keys.sorted() where discovery.removes(id) {
            removeZigbee2MQTTDevice(id, now: now, effects: &effects)
        }
        let discovered = discovery.devices
        for var mapped in discovered {
            let id = mapped.device.id
            let sourceReference = SourceReference(family: Zigbee2MQTTSource.family, instance: instance.instance, nativeID: mapped.ieeeAddress)
            for address in mapped.device.traitAddresses {
                try? mapped.device.modifyTrait(at: address) { $0.source = sourceReference }
            }
            if let existing = z2mDevices[id], existing.friendlyName == mapped.friendlyName,
                Self.sameShape(existing.device, mapped.device)
            {
                continue  // unchanged: a no-op
            }
            if z2mDevices[id] == nil, !admitsNewDevice("zigbee2mqtt", count: z2mDevices.count, topic: topic, effects: &effects) { continue }
            addOrUpdate(mapped, instance: instance, now: now, effects: &effects)
        }
    }

    private mutating func addOrUpdate(_ mapped: Zigbee2MQTTDevice, instance: BridgeConfiguration.Zigbee2MQTTInstance, now: Date, effects: inout BridgeEffects) {
        let id = mapped.device.id
        upsertSourceDevice(mapped.device, family: "zigbee2mqtt", effects: &effects)
        if let old = z2mDevices[id], old.friendlyName != mapped.friendlyName {
            routes.removeValue(forKey: "\(instance.baseTopic)/\(old.friendlyName)")
            routes.removeValue(forKey: "\(instance.baseTopic)/\(old.friendlyName)/availability")
        }
        z2mDevices[id] = mapped
        let stateTopic = "\(instance.baseTopic)/\(mapped.friendlyName)"
        let availabilityTopic = stateTopic + "/availability"
        routes[stateTopic] = .z2mDeviceState(id)
        routes[availabilityTopic] = .z2mAvailability(id)
        if liveness[id] == nil {
            liveness[id] = DeviceLiveness(stalenessBudget: stalenessBudget(for: mapped, instance: instance))
        }
        effects.storeChanges.append(.upsert(record(for: id)))
        refresh(id, now: now, effects: &effects, republishDescription: true)
        // Messages that came before the device was known, availability first.
        for topic in [availabilityTopic, stateTopic] {
            if let route = routes[topic], let payload = takePending(topic) {
                apply(route, topic: topic, payload: payload, now: now, effects: &effects)
            }
        }
        replayPendingGeneric(for: id, now: now, effects: &effects)
    }

    mutating func removeZigbee2MQTTDevice(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard let mapped = z2mDevices.removeValue(forKey: id), let base = configuration.zigbee2mqtt?.baseTopic else { return }
        routes.removeValue(forKey: "\(base)/\(mapped.friendlyName)")
        routes.removeValue(forKey: "\(base)/\(mapped.friendlyName)/availability")
        removeFromGraph(id, effects: &effects)
        effects.log(.info, "removed device \(mapped.friendlyName): zigbee2mqtt no longer lists it", ["tb.device.id": id.rawValue])
        detachHomeAssistant(from: id, now: now, effects: &effects)
    }

    /// `<base>/<name>`: values for the device's traits.
    mutating func handleZigbee2MQTTState(_ id: DeviceID, topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = zigbee2mqtt, let mapped = z2mDevices[id] else { return }
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(payload)
        } catch {
            effects.log(.warning, "rejected message: \(error)", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
            return
        }
        guard document.root.kind == .object else {
            effects.log(.warning, "rejected message: expected a JSON object, found \(document.root.kind)", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
            return
        }
        let (updates, problems) = source.updates(from: document.root, of: mapped)
        for problem in problems {
            effects.log(.warning, "ignored a value: \(problem)", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
        }
        var changed = false
        let catalog = catalog
        _ = try? graph.modifyDevice(id) { device in
            for update in updates {
                do {
                    if try device.report(update.value, attribute: update.attribute, at: update.address, catalog: catalog, time: now) {
                        changed = true
                    }
                } catch {
                    effects.log(.warning, "rejected a value: \(error)", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
                }
            }
        }
        if changed { lastUpdate[id] = now }
        liveness[id]?.lastSeen = now
        liveness[id]?.lastTopic = topic
        confirmCommands(for: id, now: now, effects: &effects)
        refresh(id, now: now, effects: &effects, valuesChanged: changed)
    }

    /// `<base>/<name>/availability`: the device's own state; an empty payload (left by a rename) is ignored.
    mutating func handleZigbee2MQTTAvailability(_ id: DeviceID, topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard !payload.isEmpty else { return }
        guard let isOnline = Zigbee2MQTTSource.availability(payload) else {
            effects.log(.warning, "ignored availability: expected online/offline or {\"state\":…}", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
            return
        }
        let status: LinkState.Status = isOnline ? .up : .down
        guard liveness[id]?.availability.status != status else { return }
        liveness[id]?.availability = LinkState(status: status, since: now, origin: topic)
        refresh(id, now: now, effects: &effects)
    }

    private func stalenessBudget(for device: Zigbee2MQTTDevice, instance: BridgeConfiguration.Zigbee2MQTTInstance) -> Duration {
        if let budget = instance.deviceStaleness[device.ieeeAddress] ?? instance.deviceStaleness[device.friendlyName] { return budget }
        let table = zigbee2mqtt?.table
        if device.isBatteryPowered { return instance.batteryStaleness ?? table?.batteryStaleness ?? .seconds(90_000) }
        return instance.mainsStaleness ?? table?.mainsStaleness ?? .seconds(600)
    }

    /// Same device types and traits (values aside).
    static func sameShape(_ a: Device, _ b: Device) -> Bool {
        a.name == b.name && a.deviceTypes.count == b.deviceTypes.count
            && zip(a.deviceTypes, b.deviceTypes).allSatisfy { x, y in
                x.key == y.key && x.typeID == y.typeID && x.isPrimaryType == y.isPrimaryType && x.traits.map(\.traitID) == y.traits.map(\.traitID)
            }
    }
}
