import TraitBridgeJSON

/// How each protocol answers a command: the new state, as the real device reports it.
extension SimulatorCore {
    /// `<base>/<name>/set` with `{"state": "ON", "brightness": 120}`: merged into the state
    /// (TOGGLE flips; LOCK/UNLOCK also set lock_state), then the full state is published.
    mutating func zigbee2mqttCommand(_ index: Int, _ payload: [UInt8]) -> [Message] {
        guard let command = try? JSONDocument.parse(payload).root.value, case .object(let fields) = command else { return [] }
        for (key, value) in fields.members {
            if key == "state", case .string(let word) = value {
                switch word.uppercased() {
                case "TOGGLE": devices[index].data["state"] = devices[index].data["state"] == .string("ON") ? "OFF" : "ON"
                case "LOCK", "UNLOCK":
                    devices[index].data["state"] = .string(word.uppercased())
                    devices[index].data["lock_state"] = word.uppercased() == "LOCK" ? "locked" : "unlocked"
                default: devices[index].data["state"] = .string(word.uppercased())
                }
            } else {
                devices[index].data[key] = value
            }
        }
        return report(index)
    }

    /// `cmnd/<topic>/POWER2 ON`, `Dimmer 40`, `CT 300`: stat RESULT (and POWER<n>) as Tasmota answers.
    mutating func tasmotaCommand(_ index: Int, _ command: String, _ payload: [UInt8]) -> [Message] {
        let topic = devices[index].topic
        let argument = String(decoding: payload, as: UTF8.self).uppercased()
        var result = JSONObject()
        let name = command.uppercased()
        if name == "STATE" {  // a state request: the whole STATE as the RESULT
            return [Message("stat/\(topic)/RESULT", json: .object(devices[index].data))]
        }
        if name.hasPrefix("POWER") {
            let key = name == "POWER" && devices[index].relays.count > 1 ? "POWER1" : name
            let stored = devices[index].data[key] ?? devices[index].data["POWER"]
            let current = stored == .string("ON")
            let on: Bool
            switch argument {
            case "ON", "1": on = true
            case "OFF", "0": on = false
            case "TOGGLE", "2": on = !current
            case "": on = current
            default: return [Message("stat/\(topic)/RESULT", json: ["Command": "Error"])]
            }
            devices[index].data[key] = on ? "ON" : "OFF"
            result[key] = on ? "ON" : "OFF"
            return [Message("stat/\(topic)/RESULT", json: .object(result)), Message("stat/\(topic)/\(key)", text: on ? "ON" : "OFF")]
        }
        let known: [String: (String, ClosedRange<Double>)] = ["DIMMER": ("Dimmer", 0...100), "CT": ("CT", 153...500), "HSBCOLOR1": ("HSBColor1", 0...360), "HSBCOLOR2": ("HSBColor2", 0...100)]
        guard let (key, range) = known[name] else { return [Message("stat/\(topic)/RESULT", json: ["Command": "Unknown"])] }
        guard let number = Double(argument), number.isFinite else { return [] }
        let value = Int64(min(range.upperBound, max(range.lowerBound, number)))  // finite and within 0…500
        if key.hasPrefix("HSBColor") {
            let parts = (devices[index].data["HSBColor"]?.plainText ?? "0,0,100").split(separator: ",").map(String.init)
            var hsb = parts.count == 3 ? parts : ["0", "0", "100"]
            hsb[key == "HSBColor1" ? 0 : 1] = String(value)
            devices[index].data["HSBColor"] = .string(hsb.joined(separator: ","))
            result["HSBColor"] = devices[index].data["HSBColor"]
        } else {
            devices[index].data[key] = .int(value)
            result[key] = .int(value)
            if key == "Dimmer" {
                let power = value > 0 ? "ON" : "OFF"
                devices[index].data["POWER"] = .string(power)
                result["POWER"] = .string(power)
            }
        }
        return [Message("stat/\(topic)/RESULT", json: .object(result))]
    }

    /// Gen1: `relay/0/command on`, `roller/0/command/pos 40`, `light/0/command`, `light/0/set {…}`.
    mutating func gen1Command(_ index: Int, _ rest: String, _ payload: [UInt8]) -> [Message] {
        let levels = rest.split(separator: "/").map(String.init)
        let word = String(decoding: payload, as: UTF8.self).lowercased()
        guard levels.count >= 3 else { return [] }
        let component = "\(levels[0])/\(levels[1])"
        switch (levels[0], Array(levels.dropFirst(2))) {
        case ("relay", ["command"]), ("light", ["command"]):
            let current = devices[index].data[component] == .string("on")
            let on = word == "toggle" ? !current : word == "on"
            guard ["on", "off", "toggle"].contains(word) else { return [] }
            devices[index].data[component] = on ? "on" : "off"
            return [gen1Value(devices[index], key: component)].compactMap { $0 }
        case ("roller", ["command", "pos"]):
            guard let position = Int(word), (0...100).contains(position) else { return [] }
            devices[index].data["\(component)/pos"] = .int(Int64(position))
            return [gen1Value(devices[index], key: "\(component)/pos")].compactMap { $0 }
        case ("roller", ["command"]):
            guard let position = ["open": 100, "close": 0][word] else { return [] }
            devices[index].data["\(component)/pos"] = .int(Int64(position))
            return [gen1Value(devices[index], key: "\(component)/pos")].compactMap { $0 }
        case ("light", ["set"]):
            guard let command = try? JSONDocument.parse(payload).root.value, case .object(let fields) = command else { return [] }
            var status: JSONObject
            if case .object(let existing)? = devices[index].data["\(component)/status"] { status = existing } else { status = ["ison": false, "brightness": 100] }
            if let turn = fields["turn"]?.plainText { status["ison"] = .bool(turn == "on") }
            if let brightness = fields["brightness"] { status["brightness"] = brightness }
            devices[index].data["\(component)/status"] = .object(status)
            if let on = status["ison"], case .bool(let isOn) = on { devices[index].data[component] = isOn ? "on" : "off" }
            return ["\(component)/status", component].compactMap { gen1Value(devices[index], key: $0) }
        default:
            return []
        }
    }

    /// Gen2 JSON-RPC on `<prefix>/rpc`: Switch.Set/Toggle, Cover.GoToPosition, Light.Set,
    /// Shelly.GetStatus. The answer goes to `<src>/rpc`; a change also as NotifyStatus.
    mutating func gen2Call(_ index: Int, _ payload: [UInt8]) -> [Message] {
        guard let request = try? JSONDocument.parse(payload).root.value, case .object(let call) = request,
            let method = call["method"]?.plainText
        else { return [] }
        let device = devices[index]
        let params: JSONObject = if case .object(let object)? = call["params"] { object } else { JSONObject() }
        let channel = params["id"]?.doubleValue.flatMap { (0...1000).contains($0) ? Int($0) : nil } ?? 0
        var delta = JSONObject()
        var result: JSONValue = .null
        func component(_ type: String) -> String { "\(type):\(channel)" }
        switch method {
        case "Switch.Set", "Switch.Toggle", "Light.Set":
            let name = component(method.hasPrefix("Light") ? "light" : "switch")
            guard device.data[name] != nil else { return [answer(device, call, error: (-105, "Argument 'id', value \(channel) not found!"))] }
            let wasOn = device.data.value(at: [name, "output"]) == .bool(true)
            var fields: JSONObject = ["id": .int(Int64(channel))]
            let on: Bool? = method == "Switch.Toggle" ? !wasOn : params["on"].flatMap { if case .bool(let on) = $0 { on } else { nil } }
            if let on { fields["output"] = .bool(on); fields["source"] = "MQTT" }
            if let brightness = params["brightness"] { fields["brightness"] = brightness }
            for (key, value) in fields.members { devices[index].data.set(value, at: [name, key]) }
            delta[name] = .object(fields)
            result = ["was_on": .bool(wasOn)]
        case "Cover.GoToPosition":
            let name = component("cover")
            guard device.data[name] != nil, let position = params["pos"]?.doubleValue, (0...100).contains(position) else {
                return [answer(device, call, error: (-103, "Invalid argument 'pos': expected 0…100"))]
            }
            let fields: JSONObject = ["id": .int(Int64(channel)), "current_pos": .int(Int64(position)), "state": "stopped", "source": "MQTT"]
            for (key, value) in fields.members { devices[index].data.set(value, at: [name, key]) }
            delta[name] = .object(fields)
        case "Shelly.GetStatus":
            result = .object(device.data)
        default:
            return [answer(device, call, error: (404, "No handler for \(method)"))]
        }
        var messages = [answer(device, call, result: result)]
        if !delta.isEmpty { messages.append(notify(devices[index], method: "NotifyStatus", params: delta)) }
        return messages
    }

    func answer(_ device: Scenario.Device, _ call: JSONObject, result: JSONValue = .null, error: (Int, String)? = nil) -> Message {
        let source = call["src"]?.plainText ?? "unknown"
        var response: JSONObject = ["id": call["id"] ?? .null, "src": .string(device.id), "dst": .string(source)]
        if let error { response["error"] = ["code": .int(Int64(error.0)), "message": .string(error.1)] } else { response["result"] = result }
        return Message("\(source)/rpc", json: .object(response))
    }

    /// `<topic>/set` with a JSON object (a json-schema light) merged into the state, or a plain
    /// word (`ON`, `LOCK`) as its `state`; `<topic>/<key>/set` sets that key. The whole state is
    /// published again, as a bla2mqtt program does.
    mutating func homeAssistantCommand(_ index: Int, _ key: String, _ payload: [UInt8]) -> [Message] {
        let text = String(decoding: payload, as: UTF8.self)
        if key.isEmpty, let command = try? JSONDocument.parse(payload).root.value, case .object(let fields) = command {
            for (name, value) in fields.members { devices[index].data[name] = value }
        } else if let number = Double(text), number.isFinite {
            devices[index].data[key.isEmpty ? "state" : key] = number == number.rounded() && abs(number) < 1e15 ? .int(Int64(number)) : .double(number)
        } else {
            devices[index].data[key.isEmpty ? "state" : key] = .string(text)
        }
        return report(index)
    }
}
