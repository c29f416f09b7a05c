import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// Shelly behind the plug-in boundary: Gen1 under `shellies/`, Gen2+ under any prefix (its three
/// topic shapes at depth one and two). A device is made by its first announce or value; an
/// `online` or Gen2 status for a device not known yet waits until it is.
public struct ShellyPlugin: SourcePlugin {
    public let source: ShellySource
    public let locality: TraitLocality
    public let staleness: Duration
    /// Devices by topic base (`shellies/<id>`, a Gen2 prefix), and their bases by id.
    private(set) var devices: [String: ShellyDevice] = [:]
    private var bases: [DeviceID: String] = [:]
    /// Topics of known devices, classified once.
    private var classified: [String: ShellySource.Message] = [:]
    /// The id of the next JSON-RPC call to a Gen2 device.
    private var nextRequest = 1

    public init(source: ShellySource, locality: TraitLocality, staleness: Duration) {
        self.source = source
        self.locality = locality
        self.staleness = staleness
    }

    public var family: String { ShellySource.family }
    public var instance: String { source.instance }
    public var deviceIDs: [DeviceID] { bases.keys.sorted() }
    public var deviceCount: Int { devices.count }
    public var subscriptions: [String] {
        [
            "\(ShellySource.gen1Root)/#", "+/events/rpc", "+/+/events/rpc", "+/online", "+/+/online", "+/status/+",
            "+/+/status/+",
        ]
    }

    public func claims(_ topic: String) -> Bool { source.classify(topic) != nil }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let kind = classified[message.topic] ?? source.classify(message.topic) else { return }
        handle(kind, message, into: &events)
        // Classified once: later messages on a known device's topic are one lookup.
        if classified[message.topic] == nil, let base = kind.base, devices[base] != nil {
            classified[message.topic] = kind
            events.append(.route([message.topic]))
        }
    }

    private mutating func handle(
        _ kind: ShellySource.Message, _ message: SourceMessage, into events: inout [SourceEvent]
    ) {
        switch kind {
        case .announce(let base):
            guard let root = try? JSONDocument.parse(message.payload).root, let id = root["id"]?.string, !id.isEmpty
            else {
                events.append(
                    .log(
                        .warning, "ignored Shelly announce: expected a JSON object with the device's \"id\"",
                        device: nil))
                return
            }
            let base = base ?? "\(ShellySource.gen1Root)/\(id)"
            guard var device = device(.gen1, base: base, nativeID: id, message, into: &events) else { return }
            source.applyAnnounce(root, to: &device)
            store(device, into: &events)
        case .info(let base):
            guard let root = try? JSONDocument.parse(message.payload).root, root.kind == .object else {
                events.append(.log(.notice, "ignored Shelly info: not a JSON object", device: nil))
                return
            }
            guard var device = device(.gen1, base: base, nativeID: Self.gen1ID(base), message, into: &events) else {
                return
            }
            source.applyAnnounce(root, to: &device)
            store(device, into: &events)
        case .online(let base):
            guard let device = devices[base] else {
                events.append(.keepUntilKnown)
                return
            }
            guard let isOnline = source.availability(message.payload) else {
                events.append(
                    .log(.warning, "ignored Shelly online message: expected true or false", device: device.device.id))
                return
            }
            events.append(
                .availability(
                    SourceReference(family: family, instance: instance, nativeID: device.nativeID), isOnline: isOnline))
        case .gen1(let base, let rules, let channel):
            guard var device = device(.gen1, base: base, nativeID: Self.gen1ID(base), message, into: &events) else {
                return
            }
            let (updates, problems) = source.gen1Updates(
                rules: rules, channel: channel, payload: message.payload, device: &device)
            report(updates, problems, on: device, into: &events)
        case .gen2Event(let base):
            switch source.gen2Event(message.payload) {
            case .failure(let problem):
                events.append(.log(.notice, "ignored Shelly event: \(problem)", device: nil))
            case .success(let event):
                guard var device = device(.gen2, base: base, nativeID: event.source, message, into: &events) else {
                    return
                }
                var updates: [AttributeUpdate] = []
                var problems: [SourceProblem] = []
                for (name, status) in event.components {
                    let result = source.gen2Updates(component: name, status: status, device: &device)
                    updates += result.updates
                    problems += result.problems
                }
                report(updates, problems, on: device, into: &events)
            }
        case .gen2Status(let base, let component):
            guard var device = devices[base], device.generation == .gen2 else {
                events.append(.keepUntilKnown)
                return
            }
            guard let root = try? JSONDocument.parse(message.payload).root, root.kind == .object else {
                events.append(.log(.notice, "ignored Shelly status: not a JSON object", device: device.device.id))
                return
            }
            let (updates, problems) = source.gen2Updates(component: component, status: root, device: &device)
            report(updates, problems, on: device, into: &events)
        }
    }

    /// `shellies/<id>` → `<id>` (which may itself contain `/`).
    static func gen1ID(_ base: String) -> String {
        String(base.dropFirst(ShellySource.gen1Root.count + 1))
    }

    /// The known device at `base`, or a new one.
    private func device(
        _ generation: ShellyDevice.Generation, base: String, nativeID: String, _ message: SourceMessage,
        into events: inout [SourceEvent]
    ) -> ShellyDevice? {
        if let known = devices[base] { return known }
        guard devices.count < message.deviceLimit else {
            events.append(.refusedDevice("a new Shelly device: \(devices.count) are known already"))
            return nil
        }
        do {
            return try source.newDevice(generation, base: base, nativeID: nativeID)
        } catch {
            events.append(.log(.warning, "ignored Shelly device: \(error)", device: nil))
            return nil
        }
    }

    /// Keeps the device; describes it when its shape, identity or info changed (the source's
    /// device holds no values), then lets what waited for it through.
    private mutating func store(_ device: ShellyDevice, into events: inout [SourceEvent]) {
        let previous = devices.updateValue(device, forKey: device.base)
        bases[device.device.id] = device.base
        guard device.hasComponents, previous?.device != device.device || previous?.hasComponents != true else { return }
        events.append(.described(SourceDevice(device: device.device, stalenessBudget: staleness, keepsName: true)))
        events.append(.replayUnder(device.base + "/"))
    }

    /// Keeps the device (it may have grown a component) and reports the values.
    private mutating func report(
        _ updates: [AttributeUpdate], _ problems: [SourceProblem], on device: ShellyDevice,
        into events: inout [SourceEvent]
    ) {
        store(device, into: &events)
        for problem in problems { events.append(.log(.notice, "ignored: \(problem)", device: device.device.id)) }
        if device.hasComponents { events.append(.values(device.device.id, updates, isNews: false)) }
    }

    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard !writes.isEmpty else { return [] }
        guard let base = bases[id], let device = devices[base] else {
            throw .notSupported(
                "device '\(id)' has not been heard from since start; a Shelly is known again by its next message")
        }
        do {
            let messages = try source.commands(for: writes, on: device, requestID: nextRequest)
            nextRequest += messages.count
            return messages.map { SourceOutgoing(topic: $0.topic, payload: $0.payload) }
        } catch {
            throw .notSupported(error.description)
        }
    }
}
