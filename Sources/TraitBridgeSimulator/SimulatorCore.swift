public import TraitBridgeJSON

/// The simulator as a value: messages in, messages out, no broker and no clock — so every
/// protocol's answers are tested without I/O, and ``Simulator`` only adds the connection and time.
public struct SimulatorCore: Sendable {
    /// A message to publish.
    public struct Message: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool

        public init(_ topic: String, _ payload: [UInt8], retain: Bool = false) {
            self.topic = topic
            self.payload = payload
            self.retain = retain
        }

        public init(_ topic: String, text: String, retain: Bool = false) {
            self.init(topic, Array(text.utf8), retain: retain)
        }
        public init(_ topic: String, json: JSONValue, retain: Bool = false) {
            self.init(topic, json.serializedBytes(), retain: retain)
        }
        public var text: String { String(decoding: payload, as: UTF8.self) }
    }

    public let scenario: Scenario
    /// The devices with their current values.
    public internal(set) var devices: [Scenario.Device]
    /// Devices that do not answer commands (fault `mute`).
    public internal(set) var muted: Set<String> = []
    /// Devices that said they are offline.
    public internal(set) var offline: Set<String> = []
    var driftSigns: [Int: Double] = [:]
    var rpcCounter = 0

    public init(scenario: Scenario) {
        self.scenario = scenario
        self.devices = scenario.devices
    }

    var base: String { scenario.zigbee2mqttBaseTopic }

    /// What to subscribe to: the command topics of every simulated device.
    public var subscriptions: [String] {
        var filters: [String] = []
        if devices.contains(where: { $0.deviceProtocol == .zigbee2mqtt }) {
            filters += ["\(base)/+/set", "\(base)/+/+/set"]
        }
        for device in devices {
            switch device.deviceProtocol {
            case .zigbee2mqtt: continue
            case .tasmota: filters.append("cmnd/\(device.topic)/+")
            case .shellyGen1: filters.append("shellies/\(device.id)/#")
            case .shellyGen2: filters.append("\(device.topic)/rpc")
            case .homeAssistant: filters += ["\(device.topic)/set", "\(device.topic)/+/set"]
            case .frigate: filters.append("\(device.topic)/\(device.id)/+/set")
            case .cam2mqtt: filters.append("\(device.topic)/camera/\(device.id)/command/reolink/#")
            }
        }
        return filters
    }

    /// Everything a home publishes when it starts: zigbee2mqtt's bridge, discovery configs,
    /// announces, availability and the first values.
    public mutating func startMessages() -> [Message] {
        var messages: [Message] = []
        if let list = scenario.zigbee2mqttDevices {
            messages.append(Message("\(base)/bridge/state", json: ["state": "online"], retain: true))
            messages.append(Message("\(base)/bridge/devices", json: list, retain: true))
        }
        for index in devices.indices {
            messages += availability(index, online: true)
            messages += announce(index)
            messages += report(index)
        }
        return messages
    }

    /// Answers one message on a command topic (nothing for other topics or a muted device).
    public mutating func handle(topic: String, payload: [UInt8]) -> [Message] {
        for index in devices.indices where !muted.contains(devices[index].name) {
            let device = devices[index]
            switch device.deviceProtocol {
            case .zigbee2mqtt:
                if topic == "\(base)/\(device.id)/set" { return zigbee2mqttCommand(index, payload) }
            case .tasmota:
                let prefix = "cmnd/\(device.topic)/"
                if topic.hasPrefix(prefix) {
                    return tasmotaCommand(index, String(topic.dropFirst(prefix.count)), payload)
                }
            case .shellyGen1:
                let prefix = "shellies/\(device.id)/"
                if topic.hasPrefix(prefix) { return gen1Command(index, String(topic.dropFirst(prefix.count)), payload) }
            case .shellyGen2:
                if topic == "\(device.topic)/rpc" { return gen2Call(index, payload) }
            case .homeAssistant:
                if topic.hasPrefix(device.topic + "/"), topic.hasSuffix("/set") {
                    return homeAssistantCommand(
                        index, String(topic.dropFirst(device.topic.count + 1).dropLast(4)), payload)
                }
            case .frigate:
                let prefix = "\(device.topic)/\(device.id)/"
                if topic.hasPrefix(prefix), topic.hasSuffix("/set") {
                    return frigateCommand(index, String(topic.dropFirst(prefix.count).dropLast(4)), payload)
                }
            case .cam2mqtt:
                let prefix = "\(device.topic)/camera/\(device.id)/command/reolink/"
                if topic.hasPrefix(prefix) {
                    return cam2mqttCommand(index, String(topic.dropFirst(prefix.count)), payload)
                }
            }
        }
        return []
    }

    /// A fault now. `flap` is expanded by ``timeline`` into offline/online steps.
    public mutating func inject(_ kind: Scenario.Fault.Kind, device name: String?) -> [Message] {
        switch kind {
        case .dropBridge, .restoreBridge:
            return [
                Message(
                    "\(base)/bridge/state", json: ["state": kind == .dropBridge ? "offline" : "online"], retain: true)
            ]
        case .mute, .unmute:
            if let name { if kind == .mute { muted.insert(name) } else { muted.remove(name) } }
            return []
        case .offline, .online, .flap:
            guard let index = devices.firstIndex(where: { $0.name == name }) else { return [] }
            return availability(index, online: kind == .online)
        case .motion:
            guard let index = devices.firstIndex(where: { $0.name == name && $0.deviceProtocol == .frigate }) else {
                return []
            }
            return frigateSighting(index)
        }
    }

    /// The faults as single steps in time order (a flap becomes its offline/online pairs).
    public var timeline: [(afterSeconds: Double, kind: Scenario.Fault.Kind, device: String?)] {
        var steps: [(afterSeconds: Double, kind: Scenario.Fault.Kind, device: String?)] = []
        for fault in scenario.faults {
            if fault.kind == .flap {
                for time in 0..<fault.times {
                    let start = fault.afterSeconds + Double(time) * 2 * fault.intervalSeconds
                    steps.append((start, .offline, fault.device))
                    steps.append((start + fault.intervalSeconds, .online, fault.device))
                }
            } else {
                steps.append((fault.afterSeconds, fault.kind, fault.device))
            }
        }
        return steps.enumerated().sorted { ($0.element.afterSeconds, $0.offset) < ($1.element.afterSeconds, $1.offset) }
            .map(\.element)
    }

    /// One drift step: every drifting value moves and is reported as the device would.
    public mutating func drift() -> [Message] {
        var messages: [Message] = []
        for (number, rule) in scenario.drift.enumerated() {
            guard let index = devices.firstIndex(where: { $0.name == rule.device }), !offline.contains(rule.device)
            else { continue }
            let path =
                devices[index].deviceProtocol == .shellyGen1
                ? [rule.key] : rule.key.split(separator: ".").map(String.init)
            var container = devices[index].deviceProtocol == .tasmota ? devices[index].sensors : devices[index].data
            let current = container.value(at: path)?.doubleValue ?? rule.minimum
            var sign = driftSigns[number] ?? 1
            var next = current + sign * rule.step
            if next > rule.maximum || next < rule.minimum {
                sign = -sign
                next = current + sign * rule.step
            }
            driftSigns[number] = sign
            next = (next * 100).rounded() / 100
            container.set(.double(next), at: path)
            if devices[index].deviceProtocol == .tasmota {
                devices[index].sensors = container
            } else {
                devices[index].data = container
            }
            messages += changed(index, path: path)
        }
        return messages
    }

    /// The messages reporting a changed value at `path` of the device's data.
    mutating func changed(_ index: Int, path: [String]) -> [Message] {
        let device = devices[index]
        switch device.deviceProtocol {
        case .zigbee2mqtt, .tasmota, .homeAssistant, .frigate, .cam2mqtt: return report(index)
        case .shellyGen1: return [gen1Value(device, key: path[0])].compactMap { $0 }
        case .shellyGen2:
            guard let component = path.first, let status = device.data[component] else { return [] }
            var delta = JSONObject()
            if let id = status["id"] { delta["id"] = id }
            if path.count > 1, let value = device.data.value(at: path) { delta.set(value, at: Array(path.dropFirst())) }
            return [notify(device, method: "NotifyStatus", params: [component: .object(delta)])]
        }
    }
}

extension JSONObject {
    func value(at path: [String]) -> JSONValue? {
        guard let first = path.first else { return nil }
        guard path.count > 1 else { return self[first] }
        guard case .object(let inner)? = self[first] else { return nil }
        return inner.value(at: Array(path.dropFirst()))
    }

    mutating func set(_ value: JSONValue, at path: [String]) {
        guard let first = path.first else { return }
        guard path.count > 1 else {
            self[first] = value
            return
        }
        var inner: JSONObject
        if case .object(let existing)? = self[first] { inner = existing } else { inner = JSONObject() }
        inner.set(value, at: Array(path.dropFirst()))
        self[first] = .object(inner)
    }
}

extension JSONValue {
    var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .string(let text): Double(text)
        default: nil
        }
    }

    /// A plain payload (`on`, `91`, `20.5`) as Shelly Gen1 and Tasmota publish them.
    var plainText: String {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .double(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): value ? "true" : "false"
        default: serialized()
        }
    }
}
