import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

extension BridgeState {
    /// Gen1 lives under `shellies/`; a Gen2 prefix is free, so its three topic shapes are
    /// subscribed at depth one and two (`shellyplus1pm-…/events/rpc`, `shelly-ht/kitchen/events/rpc`).
    static let shellySubscriptions = [
        "\(ShellySource.gen1Root)/#", "+/events/rpc", "+/+/events/rpc", "+/online", "+/+/online", "+/status/+", "+/+/status/+",
    ]

    /// One message on a Shelly topic. Devices are made by their first announce or value; an
    /// `online` or Gen2 status for a device not known yet waits (the newest per topic) until it is.
    mutating func handleShellyMessage(_ message: ShellySource.Message, topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        guard let source = shelly else { return }
        switch message {
        case .announce(let base):
            guard let root = try? JSONDocument.parse(payload).root, let id = root["id"]?.string, !id.isEmpty else {
                effects.log(.warning, "ignored Shelly announce: expected a JSON object with the device's \"id\"", ["tb.mqtt.topic": topic])
                return
            }
            let base = base ?? "\(ShellySource.gen1Root)/\(id)"
            guard var device = shellyDevice(.gen1, base: base, nativeID: id, topic: topic, effects: &effects) else { return }
            source.applyAnnounce(root, to: &device)
            store(device, now: now, effects: &effects)
        case .info(let base):
            guard let root = try? JSONDocument.parse(payload).root, root.kind == .object else {
                effects.log(.notice, "ignored Shelly info: not a JSON object", ["tb.mqtt.topic": topic])
                return
            }
            guard var device = shellyDevice(.gen1, base: base, nativeID: Self.gen1ID(base), topic: topic, effects: &effects) else { return }
            source.applyAnnounce(root, to: &device)
            store(device, now: now, effects: &effects)
        case .online(let base):
            guard let device = shellyDevices[base] else {
                keepPending(topic: topic, payload: payload, effects: &effects)
                return
            }
            guard let isOnline = source.availability(payload) else {
                effects.log(.warning, "ignored Shelly online message: expected true or false", ["tb.mqtt.topic": topic, "tb.device.id": device.device.id.rawValue])
                return
            }
            setAvailability(isOnline, of: device.device.id, topic: topic, staleness: configuration.shelly?.staleness ?? .seconds(900), now: now, effects: &effects)
        case .gen1(let base, let rules, let channel):
            guard var device = shellyDevice(.gen1, base: base, nativeID: Self.gen1ID(base), topic: topic, effects: &effects) else { return }
            let (updates, problems) = source.gen1Updates(rules: rules, channel: channel, payload: payload, device: &device)
            apply(updates, problems, to: device, topic: topic, now: now, effects: &effects)
        case .gen2Event(let base):
            switch source.gen2Event(payload) {
            case .failure(let problem):
                effects.log(.notice, "ignored Shelly event: \(problem)", ["tb.mqtt.topic": topic])
            case .success(let event):
                guard var device = shellyDevice(.gen2, base: base, nativeID: event.source, topic: topic, effects: &effects) else { return }
                var updates: [AttributeUpdate] = []
                var problems: [SourceProblem] = []
                for (name, status) in event.components {
                    let result = source.gen2Updates(component: name, status: status, device: &device)
                    updates += result.updates
                    problems += result.problems
                }
                apply(updates, problems, to: device, topic: topic, now: now, effects: &effects)
            }
        case .gen2Status(let base, let component):
            guard var device = shellyDevices[base], device.generation == .gen2 else {
                keepPending(topic: topic, payload: payload, effects: &effects)
                return
            }
            guard let root = try? JSONDocument.parse(payload).root, root.kind == .object else {
                effects.log(.notice, "ignored Shelly status: not a JSON object", ["tb.mqtt.topic": topic, "tb.device.id": device.device.id.rawValue])
                return
            }
            let (updates, problems) = source.gen2Updates(component: component, status: root, device: &device)
            apply(updates, problems, to: device, topic: topic, now: now, effects: &effects)
        }
    }

    /// `shellies/<id>` → `<id>` (which may itself contain `/`).
    static func gen1ID(_ base: String) -> String {
        String(base.dropFirst(ShellySource.gen1Root.count + 1))
    }

    /// The known device at `base`, or a new one; a new one takes the messages that waited for it.
    private mutating func shellyDevice(_ generation: ShellyDevice.Generation, base: String, nativeID: String, topic: String, effects: inout BridgeEffects) -> ShellyDevice? {
        if let known = shellyDevices[base] { return known }
        guard let source = shelly, admitsNewDevice("Shelly", count: shellyDevices.count, topic: topic, effects: &effects) else { return nil }
        do {
            return try source.newDevice(generation, base: base, nativeID: nativeID)
        } catch {
            effects.log(.warning, "ignored Shelly device: \(error)", ["tb.mqtt.topic": topic])
            return nil
        }
    }

    /// Stores the device; registers it (graph, routes, registry) when its shape changed.
    private mutating func store(_ device: ShellyDevice, now: Date, effects: inout BridgeEffects) {
        let previous = shellyDevices.updateValue(device, forKey: device.base)
        let id = device.device.id
        shellyBases[id] = device.base
        guard device.hasComponents else { return }
        // The source's device holds no values: it differs only when its shape, identity or info do.
        guard previous?.device != device.device || graph.devices[id] == nil else { return }
        upsertSourceDevice(device.device, family: ShellySource.family, keepsName: true, effects: &effects)
        if liveness[id] == nil { liveness[id] = DeviceLiveness(stalenessBudget: configuration.shelly?.staleness ?? .seconds(900)) }
        effects.storeChanges.append(.upsert(record(for: id)))
        refresh(id, now: now, effects: &effects, republishDescription: true)
        replayPending(below: device.base, now: now, effects: &effects)
    }

    /// Messages kept for `<base>/online` and `<base>/status/…` before the device was known.
    private mutating func replayPending(below base: String, now: Date, effects: inout BridgeEffects) {
        let waiting = pending.topics(under: base + "/")
        guard !waiting.isEmpty, let source = shelly else { return }
        for topic in waiting {
            guard let payload = takePending(topic) else { continue }
            if let message = source.classify(topic) { handleShellyMessage(message, topic: topic, payload: payload, now: now, effects: &effects) }
        }
    }

    /// Stores the device (it may have grown a component) and reports the values.
    private mutating func apply(_ updates: [AttributeUpdate], _ problems: [SourceProblem], to device: ShellyDevice, topic: String, now: Date, effects: inout BridgeEffects) {
        store(device, now: now, effects: &effects)
        guard device.hasComponents else {
            for problem in problems { effects.log(.notice, "ignored: \(problem)", ["tb.mqtt.topic": topic, "tb.device.id": device.device.id.rawValue]) }
            return
        }
        report(updates, problems: problems, on: device.device.id, topic: topic, now: now, effects: &effects)
    }

    /// Gen1 `…/command` messages or Gen2 JSON-RPC calls for writes on a Shelly device's traits.
    mutating func shellyCommands(_ writes: [AttributeUpdate], on id: DeviceID) throws(CommandFailure) -> [Outgoing] {
        guard !writes.isEmpty else { return [] }
        guard let source = shelly, let base = shellyBases[id], let device = shellyDevices[base] else {
            throw CommandFailure(.notSupported, "device '\(id)' has not been heard from since start; a Shelly is known again by its next message")
        }
        do {
            let messages = try source.commands(for: writes, on: device, requestID: nextShellyRequest)
            nextShellyRequest += messages.count
            return messages.map { Outgoing(topic: $0.topic, payload: $0.payload, isRetained: false) }
        } catch {
            throw CommandFailure(.notSupported, error.description)
        }
    }
}
