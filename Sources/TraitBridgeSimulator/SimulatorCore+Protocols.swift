import TraitBridgeJSON

/// What each protocol publishes: availability, discovery or announce, and its values.
extension SimulatorCore {
    mutating func availability(_ index: Int, online: Bool) -> [Message] {
        let device = devices[index]
        if online { offline.remove(device.name) } else { offline.insert(device.name) }
        switch device.deviceProtocol {
        case .zigbee2mqtt:
            return [
                Message(
                    "\(base)/\(device.id)/availability", json: ["state": online ? "online" : "offline"], retain: true)
            ]
        case .tasmota: return [Message("tele/\(device.topic)/LWT", text: online ? "Online" : "Offline", retain: true)]
        case .shellyGen1:
            return [Message("shellies/\(device.id)/online", text: online ? "true" : "false", retain: true)]
        case .shellyGen2: return [Message("\(device.topic)/online", text: online ? "true" : "false", retain: true)]
        case .homeAssistant:
            return [Message("\(device.topic)/availability", text: online ? "online" : "offline", retain: true)]
        case .frigate: return [frigateStats(device, framesPerSecond: online ? 5 : 0)]
        case .cam2mqtt:
            return [
                Message("\(device.topic)/camera/\(device.id)/status", text: online ? "online" : "offline", retain: true)
            ]
        }
    }

    func announce(_ index: Int) -> [Message] {
        let device = devices[index]
        switch device.deviceProtocol {
        case .zigbee2mqtt, .shellyGen2:
            return []
        case .frigate:
            return [Message("\(device.topic)/available", text: "online", retain: true)]
        case .cam2mqtt:
            return [Message("\(device.topic)/camera/\(device.id)/status", text: "online", retain: true)]
        case .homeAssistant:
            var deviceInfo: JSONObject = [
                "ids": [.string(device.id)], "name": .string(device.name), "mf": "TraitBridge", "mdl": "Simulated",
            ]
            if let room = device.room { deviceInfo["sa"] = .string(room) }
            let config: JSONValue = [
                "~": .string(device.topic), "avty_t": "~/availability",
                "dev": .object(deviceInfo),
                "o": ["name": "traitbridge-simulate"], "cmps": .object(device.entities),
            ]
            return [Message("homeassistant/device/\(device.id)/config", json: config, retain: true)]
        case .tasmota:
            let names: [JSONValue] = device.relays.indices.map { $0 == 0 ? .string(device.name) : .null }
            let config: JSONValue = [
                "ip": "127.0.0.1", "dn": .string(device.name), "fn": .array(names), "hn": .string(device.topic),
                "mac": .string(device.id),
                "md": "Simulated", "ofln": "Offline", "onln": "Online", "state": ["OFF", "ON", "TOGGLE", "HOLD"],
                "sw": "14.3.0",
                "t": .string(device.topic), "ft": "%prefix%/%topic%/", "tp": ["cmnd", "stat", "tele"],
                "rl": .array(device.relays.map { .int(Int64($0)) }), "lt_st": .int(Int64(device.lightSubtype)),
                "ver": 1,
            ]
            var messages = [Message("tasmota/discovery/\(device.id)/config", json: config, retain: true)]
            if !device.sensors.isEmpty {
                messages.append(
                    Message(
                        "tasmota/discovery/\(device.id)/sensors", json: ["sn": .object(device.sensors), "ver": 1],
                        retain: true))
            }
            return messages
        case .shellyGen1:
            let announce: JSONValue = [
                "id": .string(device.id), "model": .string(device.model), "mac": .string(Self.mac(of: device.id)),
                "ip": "127.0.0.1",
                "new_fw": false, "fw_ver": "20230913-112003/v1.14.0-gcb84623",
            ]
            return [
                Message("shellies/announce", json: announce), Message("shellies/\(device.id)/announce", json: announce),
            ]
        }
    }

    /// The device's full report: zigbee2mqtt state, Tasmota STATE and SENSOR, every Gen1 value
    /// topic, a Gen2 NotifyFullStatus.
    func report(_ index: Int) -> [Message] {
        let device = devices[index]
        switch device.deviceProtocol {
        case .zigbee2mqtt:
            return [Message("\(base)/\(device.id)", json: .object(device.data), retain: true)]
        case .tasmota:
            var messages: [Message] = []
            if !device.data.isEmpty {
                messages.append(Message("tele/\(device.topic)/STATE", json: .object(device.data)))
            }
            if !device.sensors.isEmpty {
                messages.append(Message("tele/\(device.topic)/SENSOR", json: .object(device.sensors)))
            }
            return messages
        case .shellyGen1:
            return device.data.keys.compactMap { gen1Value(device, key: $0) }
        case .shellyGen2:
            return [notify(device, method: "NotifyFullStatus", params: device.data)]
        case .homeAssistant:
            return [Message("\(device.topic)/state", json: .object(device.data), retain: true)]
        case .frigate:
            return device.data.members.map { key, value in
                Message("\(device.topic)/\(device.id)/\(key)/state", text: value.plainText, retain: true)
            }
        case .cam2mqtt:
            return device.data.members.map { key, value in
                Message("\(device.topic)/camera/\(device.id)/state/reolink/\(key)", text: value.plainText, retain: true)
            }
        }
    }

    func gen1Value(_ device: Scenario.Device, key: String) -> Message? {
        guard let value = device.data[key] else { return nil }
        if case .object = value { return Message("shellies/\(device.id)/\(key)", json: value, retain: true) }
        return Message("shellies/\(device.id)/\(key)", text: value.plainText, retain: true)
    }

    func notify(_ device: Scenario.Device, method: String, params: JSONObject) -> Message {
        var all: JSONObject = ["ts": 1_767_225_600.0]
        for (key, value) in params.members { all[key] = value }
        let event: JSONValue = [
            "src": .string(device.id), "dst": .string("\(device.topic)/events"), "method": .string(method),
            "params": .object(all),
        ]
        return Message("\(device.topic)/events/rpc", json: event)
    }

    /// A Gen2 id ends with the MAC; a Gen1 id often does (`shellyswitch25-485519032A7E`).
    static func mac(of id: String) -> String {
        let last = id.split(separator: "-").last.map(String.init) ?? ""
        if last.count == 12, last.allSatisfy(\.isHexDigit) { return last.uppercased() }
        var hash: UInt64 = 1_469_598_103_934_665_603
        for byte in id.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return String(String(hash & 0xFFFF_FFFF_FFFF, radix: 16, uppercase: true).suffix(12)).leftPadded(to: 12)
    }
}

extension String {
    func leftPadded(to count: Int) -> String {
        self.count >= count ? self : String(repeating: "0", count: count - self.count) + self
    }
}
