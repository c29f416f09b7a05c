import TraitBridgeJSON

/// Checks a scenario file member by member; the first mistake stops it with its place.
struct ScenarioDecoder {
    let file: String
    let map: JSONSourceMap

    func fail(_ path: JSONPath, _ message: String) -> ScenarioError {
        .invalid(file, map.location(of: path).description, path.description, message)
    }

    func check(_ object: JSON, at path: JSONPath, allowed: Set<String>) throws(ScenarioError) {
        guard object.kind == .object else { throw fail(path, "expected an object") }
        for (key, _) in object.members where !key.hasPrefix("$") && !allowed.contains(key) {
            throw fail(
                path.appending(key), "unknown key '\(key)'; allowed: \(allowed.sorted().joined(separator: ", "))")
        }
    }

    func string(_ object: JSON, _ key: String, at path: JSONPath, default fallback: String? = nil) throws(ScenarioError)
        -> String
    {
        guard let value = object[key] else {
            if let fallback { return fallback }
            throw fail(path, "missing \"\(key)\"")
        }
        guard let text = value.string, !text.isEmpty else {
            throw fail(path.appending(key), "expected a non-empty string")
        }
        return text
    }

    func number(_ object: JSON, _ key: String, at path: JSONPath, default fallback: Double? = nil) throws(ScenarioError)
        -> Double
    {
        guard let value = object[key] else {
            if let fallback { return fallback }
            throw fail(path, "missing \"\(key)\"")
        }
        guard let number = value.double, number.isFinite else {
            throw fail(path.appending(key), "expected a finite number")
        }
        return number
    }

    func objectValue(_ object: JSON, _ key: String, at path: JSONPath) throws(ScenarioError) -> JSONObject {
        guard let value = object[key] else { return JSONObject() }
        guard value.kind == .object, case .object(let result) = value.value else {
            throw fail(path.appending(key), "expected an object")
        }
        return result
    }

    mutating func scenario(_ root: JSON, readFile: (String) throws(ScenarioError) -> JSONValue) throws(ScenarioError)
        -> Scenario
    {
        try check(root, at: .root, allowed: ["zigbee2mqtt", "devices", "drift", "driftIntervalSeconds", "faults"])
        var base = "zigbee2mqtt"
        var z2mDevices: JSONValue?
        if let z2m = root["zigbee2mqtt"] {
            let at = JSONPath.root.appending("zigbee2mqtt")
            try check(z2m, at: at, allowed: ["baseTopic", "devicesFile"])
            base = try string(z2m, "baseTopic", at: at, default: base)
            if z2m["devicesFile"] != nil {
                let loaded = try readFile(try string(z2m, "devicesFile", at: at))
                guard case .array = loaded else {
                    throw fail(at.appending("devicesFile"), "the file must hold zigbee2mqtt's bridge/devices array")
                }
                z2mDevices = loaded
            }
        }
        guard let list = root["devices"], list.kind == .array, list.count > 0 else {
            throw fail(.root, "expected \"devices\": a non-empty array")
        }
        var devices: [Scenario.Device] = []
        for (index, element) in list.elements.enumerated() {
            let device = try self.device(
                element, at: JSONPath.root.appending("devices").appending(index), z2mDevices: z2mDevices)
            if devices.contains(where: { $0.name == device.name }) {
                throw fail(
                    JSONPath.root.appending("devices").appending(index).appending("name"),
                    "another device is already named '\(device.name)'")
            }
            devices.append(device)
        }
        let names = Set(devices.map(\.name))
        var drift: [Scenario.Drift] = []
        for (index, element) in (root["drift"]?.elements ?? []).enumerated() {
            let at = JSONPath.root.appending("drift").appending(index)
            try check(element, at: at, allowed: ["device", "key", "step", "min", "max"])
            let name = try string(element, "device", at: at)
            guard names.contains(name) else {
                throw fail(at.appending("device"), "no device named '\(name)' in \"devices\"")
            }
            let minimum = try number(element, "min", at: at)
            let maximum = try number(element, "max", at: at)
            guard minimum < maximum else { throw fail(at.appending("max"), "max must be greater than min") }
            drift.append(
                .init(
                    device: name, key: try string(element, "key", at: at), step: try number(element, "step", at: at),
                    minimum: minimum, maximum: maximum))
        }
        var faults: [Scenario.Fault] = []
        for (index, element) in (root["faults"]?.elements ?? []).enumerated() {
            let at = JSONPath.root.appending("faults").appending(index)
            try check(element, at: at, allowed: ["afterSeconds", "fault", "device", "times", "intervalSeconds"])
            let kindText = try string(element, "fault", at: at)
            guard let kind = Scenario.Fault.Kind(rawValue: kindText) else {
                throw fail(
                    at.appending("fault"),
                    "unknown fault '\(kindText)'; use "
                        + Scenario.Fault.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                )
            }
            let name = element["device"]?.string
            if kind == .dropBridge || kind == .restoreBridge {
                guard name == nil else {
                    throw fail(at.appending("device"), "\(kind.rawValue) concerns zigbee2mqtt itself, not a device")
                }
            } else {
                guard let name, names.contains(name) else {
                    throw fail(at, "\(kind.rawValue) needs \"device\": the name of a device in \"devices\"")
                }
                if kind == .motion, !devices.contains(where: { $0.name == name && $0.deviceProtocol == .frigate }) {
                    throw fail(at.appending("device"), "motion is what a Frigate camera sees; '\(name)' is not one")
                }
            }
            let after = try number(element, "afterSeconds", at: at)
            guard after >= 0, after <= 86_400 else {
                throw fail(at.appending("afterSeconds"), "expected seconds from the start, 0…86400")
            }
            let count = try number(element, "times", at: at, default: 3)  // finite: number(_:_:at:) says so
            let times = (1...100).contains(count) ? Int(count) : 0
            guard (1...100).contains(times) else { throw fail(at.appending("times"), "expected 1…100") }
            faults.append(
                .init(
                    afterSeconds: after, kind: kind, device: name, times: times,
                    intervalSeconds: try number(element, "intervalSeconds", at: at, default: 1)))
        }
        let interval = try number(root, "driftIntervalSeconds", at: .root, default: 5)
        guard interval >= 0.1, interval <= 86_400 else {
            throw fail(JSONPath.root.appending("driftIntervalSeconds"), "expected 0.1 to 86400 s")
        }
        return Scenario(
            zigbee2mqttBaseTopic: base, zigbee2mqttDevices: z2mDevices, devices: devices, drift: drift,
            driftIntervalSeconds: interval, faults: faults)
    }

    func device(_ element: JSON, at path: JSONPath, z2mDevices: JSONValue?) throws(ScenarioError) -> Scenario.Device {
        try check(
            element, at: path,
            allowed: [
                "name", "protocol", "id", "topic", "state", "sensors", "relays", "lightSubtype", "model", "entities",
                "room",
            ])
        let protocolText = try string(element, "protocol", at: path)
        guard let kind = Scenario.DeviceProtocol(rawValue: protocolText) else {
            throw fail(
                path.appending("protocol"),
                "unknown protocol '\(protocolText)'; use "
                    + Scenario.DeviceProtocol.allCases.map(\.rawValue).joined(separator: ", ")
            )
        }
        let name = try string(element, "name", at: path)
        var device = Scenario.Device(
            name: name, deviceProtocol: kind, id: name, topic: "", data: try objectValue(element, "state", at: path),
            sensors: try objectValue(element, "sensors", at: path), relays: [], lightSubtype: 0, model: "")
        if element["room"] != nil {
            let room = try string(element, "room", at: path)
            guard !room.isEmpty else { throw fail(path.appending("room"), "expected a room name, e.g. \"Kitchen\"") }
            device.room = room
        }
        switch kind {
        case .zigbee2mqtt:
            let known =
                z2mDevices.map { devices in
                    guard case .array(let list) = devices else { return false }
                    return list.contains { $0["friendly_name"] == .string(name) }
                } ?? false
            guard known else {
                throw fail(path.appending("name"), "'\(name)' is not a friendly_name of zigbee2mqtt.devicesFile")
            }
        case .tasmota:
            device.id = try string(element, "id", at: path)
            guard device.id.count == 12, device.id.allSatisfy(\.isHexDigit) else {
                throw fail(path.appending("id"), "a Tasmota id is its MAC: 12 hex digits")
            }
            device.topic = try string(element, "topic", at: path)
            device.relays = element["relays"].map { $0.elements.compactMap { $0.int64.map(Int.init) } } ?? [1]
            guard !device.relays.isEmpty, device.relays.allSatisfy({ (0...2).contains($0) }) else {
                throw fail(path.appending("relays"), "expected relay kinds: 0 none, 1 relay, 2 light")
            }
            device.lightSubtype = Int(try number(element, "lightSubtype", at: path, default: 0))
        case .shellyGen1:
            device.id = try string(element, "id", at: path)
            device.model = try string(element, "model", at: path, default: "SHSW-1")
        case .shellyGen2:
            device.id = try string(element, "id", at: path)
            device.topic = try string(element, "topic", at: path, default: device.id)
        case .frigate:
            device.id = try string(element, "id", at: path)
            guard !device.id.isEmpty, !device.id.contains("/"), !device.id.contains("+"), !device.id.contains("#")
            else {
                throw fail(path.appending("id"), "a Frigate camera's name is one topic level, e.g. \"front_door\"")
            }
            device.topic = try string(element, "topic", at: path, default: "frigate")
            for (key, value) in ["recordings": "ON", "detect": "ON"] where device.data[key] == nil {
                device.data[key] = .string(value)
            }
            for (key, value) in ["motion_threshold": 30, "motion_contour_area": 10] where device.data[key] == nil {
                device.data[key] = .int(Int64(value))
            }
        case .cam2mqtt:
            device.id = try string(element, "id", at: path)
            guard !device.id.isEmpty, !device.id.contains("/"), !device.id.contains("+"), !device.id.contains("#")
            else { throw fail(path.appending("id"), "a cam2mqtt camera id is one topic level, e.g. \"front_door\"") }
            device.topic = try string(element, "topic", at: path, default: "cam2mqtt")
            for (key, value) in ["nightvision": "auto", "irlights": "on"] where device.data[key] == nil {
                device.data[key] = .string(value)
            }
            if device.data["audio/volume"] == nil { device.data["audio/volume"] = .int(50) }
        case .homeAssistant:
            device.id = try string(element, "id", at: path)
            device.topic = try string(element, "topic", at: path, default: "bla2mqtt/" + device.id)
            device.entities = try objectValue(element, "entities", at: path)
            guard !device.entities.isEmpty else {
                throw fail(
                    path,
                    "a homeassistant device needs \"entities\": its components, e.g. "
                        + "{\"light\": {\"p\": \"light\", \"schema\": \"json\", …}}"
                )
            }
            for (key, entity) in device.entities.members {
                guard case .object(let fields) = entity, case .string? = fields["p"] else {
                    throw fail(
                        path.appending("entities").appending(key),
                        "expected a Home Assistant component config with \"p\" (its platform)")
                }
            }
        }
        return device
    }
}
