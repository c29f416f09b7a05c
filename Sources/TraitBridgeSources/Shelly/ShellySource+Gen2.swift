public import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

extension ShellySource {
    /// A Gen2 notification on `<prefix>/events/rpc`.
    public struct Gen2Event: Sendable {
        /// The device id (`shellyplus1pm-4417939a5610`): stable, unlike the prefix.
        public var source: String
        public var method: String
        /// The status components of NotifyStatus / NotifyFullStatus (`switch:0` → its fields).
        public var components: [(name: String, status: JSON)]
    }

    /// Parses `<prefix>/events/rpc`; the error says what is missing.
    public func gen2Event(_ payload: [UInt8]) -> Result<Gen2Event, SourceProblem> {
        guard let root = try? JSONDocument.parse(payload).root, root.kind == .object else {
            return .failure(SourceProblem(location: "$", message: "not a JSON object (\(payload.count) bytes): ignored"))
        }
        guard let source = root["src"]?.string, !source.isEmpty else {
            return .failure(SourceProblem(location: "src", message: "a Gen2 notification names its device in \"src\""))
        }
        guard let method = root["method"]?.string else {
            return .failure(SourceProblem(location: "method", message: "expected NotifyStatus, NotifyFullStatus or NotifyEvent"))
        }
        var components: [(name: String, status: JSON)] = []
        if method == "NotifyStatus" || method == "NotifyFullStatus", let params = root["params"], params.kind == .object {
            for (name, value) in params.members where value.kind == .object { components.append((name, value)) }
        }
        return .success(Gen2Event(source: source, method: method, components: components))
    }

    /// The values of one status component (`switch:0` and its fields). A NotifyStatus carries
    /// only the fields that changed: absent fields are left as they are, never cleared.
    public func gen2Updates(component name: String, status: JSON, device shelly: inout ShellyDevice) -> (updates: [AttributeUpdate], problems: [SourceProblem]) {
        let parts = name.split(separator: ":", maxSplits: 1)
        let type = String(parts.first ?? "")
        let channel = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        if type == "sys" { noteMAC(status["mac"]?.string, on: &shelly) }
        var updates: [AttributeUpdate] = []
        var problems: [SourceProblem] = []
        for index in table.gen2ByComponent[type] ?? [] {
            let rule = table.gen2[index]
            guard let value = Self.value(at: rule.field, in: status), !value.isNull else { continue }
            apply(AttributeValue(json: value), rule: rule, rank: table.gen1.count + index, channel: channel,
                  location: "\(name).\(rule.field.joined(separator: "."))", device: &shelly, updates: &updates, problems: &problems)
        }
        return (updates, problems)
    }

    /// The messages for unified writes: Gen1 `shellies/<id>/relay/0/command` `on`, Gen2 one
    /// JSON-RPC call per method and channel (`Light.Set` with `on` and `brightness` together).
    /// A write no rule can send is refused with the reason.
    public func commands(for writes: [AttributeUpdate], on shelly: ShellyDevice, requestID: Int) throws(SourceProblem) -> [(topic: String, payload: [UInt8])] {
        var messages: [(topic: String, payload: [UInt8])] = []
        var calls: [(method: String, channel: Int, params: JSONObject)] = []
        for write in writes {
            let rules = shelly.generation == .gen1 ? table.gen1 : table.gen2
            var sent = false
            for rule in rules where rule.trait == write.address.traitID && rule.attribute == write.attribute && (rule.commandTopic != nil || rule.method != nil) {
                guard let channel = Self.channel(of: write.address.deviceTypeKey, pattern: rule.keyPattern),
                    let value = rule.pipeline.inverse(write.value, integral: true)
                else { continue }
                if let topic = rule.commandTopic {
                    let payload: [UInt8]
                    if let field = rule.commandField {
                        var object = JSONObject()
                        object[field] = value.jsonValue
                        payload = JSONValue.object(object).serializedBytes()
                    } else {
                        if case .string(let text) = value { payload = Array(text.utf8) } else { payload = Array(value.description.utf8) }
                    }
                    messages.append(("\(shelly.base)/\(topic.replacing("<n>", with: String(channel)))", payload))
                } else if let method = rule.method, let parameter = rule.parameter {
                    if let index = calls.firstIndex(where: { $0.method == method && $0.channel == channel }) {
                        calls[index].params[parameter] = value.jsonValue
                    } else {
                        var params: JSONObject = ["id": .int(Int64(channel))]
                        params[parameter] = value.jsonValue
                        calls.append((method, channel, params))
                    }
                }
                sent = true
                break
            }
            if !sent {
                throw SourceProblem(location: "\(write.address).\(write.attribute)", message: "Shelly has no command for this attribute")
            }
        }
        for (offset, call) in calls.enumerated() {
            let request: JSONObject = [
                "id": .int(Int64(requestID + offset)), "src": .string(rpcSource), "method": .string(call.method), "params": .object(call.params),
            ]
            messages.append(("\(shelly.base)/rpc", JSONValue.object(request).serializedBytes()))
        }
        return messages
    }

    /// The channel of a device type key made from `pattern` (`relay1` of `relay<n>` → 1).
    static func channel(of key: String, pattern: String) -> Int? {
        let pieces = pattern.split(separator: "<n>", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2 else { return key == pattern ? 0 : nil }
        let head = pieces[0]
        let tail = pieces[1]
        guard key.hasPrefix(head), key.hasSuffix(tail), key.count > head.count + tail.count else { return nil }
        return Int(key.dropFirst(head.count).dropLast(tail.count))
    }
}
