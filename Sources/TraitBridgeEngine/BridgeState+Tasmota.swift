import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

extension BridgeState {
    /// `tasmota/discovery/<mac>/config` (a device, or its removal by an empty payload) and
    /// `…/sensors` (its measurements).
    mutating func handleTasmotaDiscovery(topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = tasmota, let prefix = configuration.tasmota?.discoveryPrefix else { return }
        let parts = topic.dropFirst(prefix.count + 1).split(separator: "/")
        guard parts.count == 2, parts[1] == "config" || parts[1] == "sensors" else { return }
        let id = DeviceID.derived(source: TasmotaSource.family, nativeID: String(parts[0]))
        if payload.isEmpty {
            if parts[1] == "config" { removeTasmotaDevice(id, now: now, effects: &effects) }
            return
        }
        let root: JSON
        do {
            root = try JSONDocument.parse(payload).root
        } catch {
            effects.log(.warning, "rejected discovery message: \(error)", ["tb.mqtt.topic": topic])
            return
        }
        if parts[1] == "sensors" {
            guard var device = tasmotaDevices[id] else {
                keepPending(topic: topic, payload: payload, effects: &effects)  // the config comes first; keep the sample until then
                return
            }
            for problem in source.addSensors(root, to: &device) { effects.log(.notice, "Tasmota sensors: \(problem)", ["tb.mqtt.topic": topic]) }
            register(device, now: now, effects: &effects)
            return
        }
        switch source.device(fromConfig: root) {
        case .failure(let problem):
            effects.log(.warning, "rejected Tasmota discovery config: \(problem)", ["tb.mqtt.topic": topic])
        case .success(var device):
            if tasmotaDevices[id] == nil, !admitsNewDevice("Tasmota", count: tasmotaDevices.count, topic: topic, effects: &effects) { return }
            for problem in device.problems { effects.log(.notice, "Tasmota discovery: \(problem)", ["tb.mqtt.topic": topic]) }
            if let previous = tasmotaDevices[id] {
                // A config published again keeps the measurements its sensors sample added.
                for (name, bindings) in previous.sensors { device.sensors[name] = bindings }
                for type in previous.device.deviceTypes where device.device.deviceType(key: type.key) == nil && bindingsKeys(previous).contains(type.key) {
                    try? device.device.addDeviceType(type)
                }
            }
            register(device, now: now, effects: &effects)
            let sensorsTopic = "\(prefix)/\(parts[0])/sensors"
            if let pending = takePending(sensorsTopic) {
                handleTasmotaDiscovery(topic: sensorsTopic, payload: pending, now: now, effects: &effects)
            }
        }
    }

    private func bindingsKeys(_ device: TasmotaDevice) -> Set<String> {
        Set(device.sensors.values.joined().map(\.key))
    }

    /// Adds or updates the device, its routes and subscriptions, and publishes it.
    private mutating func register(_ tasmotaDevice: TasmotaDevice, now: Date, effects: inout BridgeEffects) {
        let id = tasmotaDevice.device.id
        upsertSourceDevice(tasmotaDevice.device, family: TasmotaSource.family, effects: &effects)
        let isNew = tasmotaDevices[id] == nil
        if let old = tasmotaDevices[id] { for topic in old.messageKinds.keys { routes.removeValue(forKey: topic) } }
        tasmotaDevices[id] = tasmotaDevice
        for (topic, kind) in tasmotaDevice.messageKinds { routes[topic] = .tasmota(id, kind) }
        effects.subscriptions += [tasmotaDevice.topic(.telemetry, "+"), tasmotaDevice.topic(.status, "+")]
        if isNew {
            // The device's STATE went out before we subscribed to its topics (and comes again only
            // every TelePeriod): ask for it now; Tasmota answers on stat/<topic>/RESULT.
            effects.publish(tasmotaDevice.topic(.command, "STATE"), [], retain: false)
        }
        if liveness[id] == nil { liveness[id] = DeviceLiveness(stalenessBudget: configuration.tasmota?.staleness ?? .seconds(900)) }
        effects.storeChanges.append(.upsert(record(for: id)))
        refresh(id, now: now, effects: &effects, republishDescription: true)
    }

    mutating func removeTasmotaDevice(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard let device = tasmotaDevices.removeValue(forKey: id) else { return }
        for topic in device.messageKinds.keys { routes.removeValue(forKey: topic) }
        removeFromGraph(id, effects: &effects)
        effects.log(.info, "removed device \(device.device.name): its discovery config was cleared", ["tb.device.id": id.rawValue])
        detachHomeAssistant(from: id, now: now, effects: &effects)
    }

    /// A message on one of a Tasmota device's topics.
    mutating func handleTasmotaMessage(_ id: DeviceID, _ kind: TasmotaSource.MessageKind, topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = tasmota, let device = tasmotaDevices[id] else { return }
        if kind == .lastWill {
            guard let isOnline = source.availability(payload, of: device) else {
                effects.log(.warning, "ignored LWT: expected '\(device.onlinePayload)' or '\(device.offlinePayload)'", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
                return
            }
            setAvailability(isOnline, of: id, topic: topic, staleness: configuration.tasmota?.staleness ?? .seconds(900), now: now, effects: &effects)
            return
        }
        guard !payload.isEmpty else { return }  // Tasmota polls its own cmnd/…/POWER with an empty payload
        let (updates, problems) = source.updates(kind, payload: payload, of: device)
        report(updates, problems: problems, on: id, topic: topic, now: now, effects: &effects)
    }

    /// `cmnd/<topic>/…` messages for writes on a Tasmota device's traits.
    func tasmotaCommands(_ writes: [AttributeUpdate], on id: DeviceID) throws(CommandFailure) -> [Outgoing] {
        guard !writes.isEmpty else { return [] }
        guard let source = tasmota, let device = tasmotaDevices[id] else {
            throw CommandFailure(.notSupported, "device '\(id)' has not been announced by Tasmota discovery since start")
        }
        do {
            return try source.commands(for: writes, on: device).map { Outgoing(topic: $0.topic, payload: Array($0.payload.utf8), isRetained: false) }
        } catch {
            throw CommandFailure(.notSupported, error.description)
        }
    }
}
