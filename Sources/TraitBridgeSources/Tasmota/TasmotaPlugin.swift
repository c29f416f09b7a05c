import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// Tasmota behind the plug-in boundary: `<discovery>/<mac>/config` makes (or, empty, removes) a
/// device, `…/sensors` adds its measurements, and the device's own `tele/`, `stat/` topics
/// (FullTopic expanded) carry its LWT and values. A Tasmota speaks for itself: no source bridge.
public struct TasmotaPlugin: SourcePlugin {
    public let source: TasmotaSource
    public let discoveryPrefix: String
    public let locality: TraitLocality
    public let staleness: Duration
    /// Devices by id, with their topics.
    private(set) var devices: [DeviceID: TasmotaDevice] = [:]
    /// Each known device's topics and what they carry.
    private var deviceTopics: [String: (id: DeviceID, kind: TasmotaSource.MessageKind)] = [:]

    public init(source: TasmotaSource, discoveryPrefix: String, locality: TraitLocality, staleness: Duration) {
        self.source = source
        self.discoveryPrefix = discoveryPrefix
        self.locality = locality
        self.staleness = staleness
    }

    public var family: String { TasmotaSource.family }
    public var instance: String { source.instance }
    public var subscriptions: [String] { [discoveryPrefix + "/#"] }
    public var deviceIDs: [DeviceID] { devices.keys.sorted() }
    public var deviceCount: Int { devices.count }

    public func claims(_ topic: String) -> Bool { topic.hasPrefix(discoveryPrefix + "/") }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        if let known = deviceTopics[message.topic] {
            deviceMessage(known.id, known.kind, message, into: &events)
        } else if claims(message.topic) {
            discovery(message, into: &events)
        }
    }

    /// `<prefix>/<mac>/config` (a device, or its removal by an empty payload) and `…/sensors`.
    private mutating func discovery(_ message: SourceMessage, into events: inout [SourceEvent]) {
        let parts = message.topic.dropFirst(discoveryPrefix.count + 1).split(separator: "/")
        guard parts.count == 2, parts[1] == "config" || parts[1] == "sensors" else { return }
        let id = DeviceID.derived(source: TasmotaSource.family, nativeID: String(parts[0]))
        let isConfig = parts[1] == "config"
        if message.payload.isEmpty {
            if isConfig, let gone = devices.removeValue(forKey: id) {
                let topics = Array(gone.messageKinds.keys)
                for topic in topics { deviceTopics.removeValue(forKey: topic) }
                events.append(.unroute(topics))
                events.append(.removed(id, reason: "its discovery config was cleared"))
            }
            return
        }
        let root: JSON
        do {
            root = try JSONDocument.parse(message.payload).root
        } catch {
            events.append(.log(.warning, "rejected discovery message: \(error)", device: nil))
            return
        }
        guard isConfig else {
            guard var device = devices[id] else {
                events.append(.keepUntilKnown)  // the config comes first; keep the sample until then
                return
            }
            for problem in source.addSensors(root, to: &device) {
                events.append(.log(.notice, "Tasmota sensors: \(problem)", device: nil))
            }
            register(device, into: &events)
            return
        }
        switch source.device(fromConfig: root) {
        case .failure(let problem):
            events.append(.log(.warning, "rejected Tasmota discovery config: \(problem)", device: nil))
        case .success(var device):
            if devices[id] == nil, devices.count >= message.deviceLimit {
                events.append(.refusedDevice("a new Tasmota device: \(devices.count) are known already"))
                return
            }
            for problem in device.problems {
                events.append(.log(.notice, "Tasmota discovery: \(problem)", device: nil))
            }
            if let previous = devices[id] {
                // A config published again keeps the measurements its sensors sample added.
                for (name, bindings) in previous.sensors { device.sensors[name] = bindings }
                let sensorKeys = Set(previous.sensors.values.joined().map(\.key))
                for type in previous.device.deviceTypes
                where device.device.deviceType(key: type.key) == nil && sensorKeys.contains(type.key) {
                    try? device.device.addDeviceType(type)
                }
            }
            register(device, into: &events)
            events.append(.replay(["\(discoveryPrefix)/\(parts[0])/sensors"]))
        }
    }

    /// Adds or updates the device with its topics.
    private mutating func register(_ device: TasmotaDevice, into events: inout [SourceEvent]) {
        let id = device.device.id
        let previous = devices.updateValue(device, forKey: id)
        let kinds = device.messageKinds
        // The same config again (retained, re-published at every boot) changes nothing.
        if let previous, previous.device == device.device, Set(previous.messageKinds.keys) == Set(kinds.keys) { return }
        if let previous {
            let old = Array(previous.messageKinds.keys)
            for topic in old { deviceTopics.removeValue(forKey: topic) }
            events.append(.unroute(old))
        }
        for (topic, kind) in kinds { deviceTopics[topic] = (id, kind) }
        events.append(.route(kinds.keys.sorted()))
        events.append(.subscribe([device.topic(.telemetry, "+"), device.topic(.status, "+")]))
        events.append(.described(SourceDevice(device: device.device, stalenessBudget: staleness)))
        if previous == nil {
            // Its STATE went out before we subscribed to its topics (and comes again only every
            // TelePeriod): ask for it now; Tasmota answers on stat/<topic>/RESULT.
            events.append(.publish(SourceOutgoing(topic: device.topic(.command, "STATE"), payload: [])))
        }
    }

    /// A message on one of a known device's topics.
    private func deviceMessage(
        _ id: DeviceID, _ kind: TasmotaSource.MessageKind, _ message: SourceMessage,
        into events: inout [SourceEvent]
    ) {
        guard let device = devices[id] else { return }
        if kind == .lastWill {
            guard let isOnline = source.availability(message.payload, of: device) else {
                events.append(
                    .log(
                        .warning, "ignored LWT: expected '\(device.onlinePayload)' or '\(device.offlinePayload)'",
                        device: id))
                return
            }
            events.append(
                .availability(
                    SourceReference(family: family, instance: instance, nativeID: device.mac), isOnline: isOnline))
            return
        }
        guard !message.payload.isEmpty else { return }  // Tasmota polls its own cmnd/…/POWER with an empty payload
        let (updates, problems) = source.updates(kind, payload: message.payload, of: device)
        for problem in problems { events.append(.log(.notice, "ignored: \(problem)", device: id)) }
        events.append(.values(id, updates, isNews: false))
    }

    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard !writes.isEmpty else { return [] }
        guard let device = devices[id] else {
            throw .notSupported("device '\(id)' has not been announced by Tasmota discovery since start")
        }
        do {
            return try source.commands(for: writes, on: device).map {
                SourceOutgoing(topic: $0.topic, payload: Array($0.payload.utf8))
            }
        } catch {
            throw .notSupported(error.description)
        }
    }
}
