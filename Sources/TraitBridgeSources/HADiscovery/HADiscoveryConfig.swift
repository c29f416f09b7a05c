public import TraitBridgeJSON
public import TraitBridgeMapping

/// A discovery config as Home Assistant reads it: abbreviations expanded (`stat_t` →
/// `state_topic`, in `device` and `origin` too) and the `~` topic base put into every `…topic`
/// value that starts or ends with `~`. Built once per config message, never on the state path.
public struct HADiscoveryConfig: Sendable {
    public private(set) var values: [String: JSONValue]

    /// Expands `root` (a JSON object) with the table's abbreviations.
    public init(_ root: JSON, table: HomeAssistantTable) {
        self.init(root.value.objectMembers, table: table)
    }

    init(_ members: [(key: String, value: JSONValue)], table: HomeAssistantTable) {
        var values: [String: JSONValue] = [:]
        for (key, value) in members {
            let name = table.abbreviations[key] ?? key
            switch name {
            case "device": values[name] = Self.expand(value, table.deviceAbbreviations)
            case "origin": values[name] = Self.expand(value, table.originAbbreviations)
            case "availability":
                if case .array(let entries) = value {
                    values[name] = .array(entries.map { Self.expand($0, table.abbreviations) })
                } else {
                    values[name] = Self.expand(value, table.abbreviations)
                }
            default: values[name] = value
            }
        }
        if case .string(let base)? = values["~"] {
            for (key, value) in values where key.hasSuffix("topic") {
                if case .string(let topic) = value { values[key] = .string(Self.substitute(topic, base: base)) }
            }
            if let availability = values["availability"] {
                values["availability"] = Self.substituteTopics(in: availability, base: base)
            }
        }
        self.values = values
    }

    /// The components of a device config (`cmps`), each with the shared root options it inherits
    /// (state topic, availability, `~`, qos…), its own options winning.
    public func components(table: HomeAssistantTable) -> [(key: String, config: HADiscoveryConfig)] {
        guard case .object(let components)? = values["components"] else { return [] }
        let shared = values.filter { $0.key != "components" }.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
        return components.members.map { key, value in
            // Read in order: the shared options, then the component's own (abbreviated or not).
            (key, HADiscoveryConfig(shared + value.objectMembers, table: table))
        }
    }

    public subscript(key: String) -> JSONValue? { values[key] }

    /// A string option (numbers and booleans as HA would turn them into strings).
    public func string(_ key: String) -> String? {
        guard let value = values[key] else { return nil }
        return HADiscoveryConfig.word(value)
    }

    public func number(_ key: String) -> Double? {
        switch values[key] {
        case .int(let value)?: Double(value)
        case .double(let value)?: value
        case .string(let text)?: Double(text)
        default: nil
        }
    }

    public func bool(_ key: String) -> Bool? {
        switch values[key] {
        case .bool(let value)?: value
        case .string(let text)?: ["true", "yes", "on", "1"].contains(text.lowercased()) ? true : ["false", "no", "off", "0"].contains(text.lowercased()) ? false : nil
        case .int(let value)?: value != 0
        default: nil
        }
    }

    public func strings(_ key: String) -> [String] {
        switch values[key] {
        case .array(let elements)?: elements.compactMap(HADiscoveryConfig.word)
        case .string(let text)?: [text]
        default: []
        }
    }

    /// How HA's templates and `cv.string` print a scalar: `True`/`False`, integers without a point.
    public static func word(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .bool(let flag): flag ? "True" : "False"
        case .int(let integer): String(integer)
        case .double(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) + ".0" : String(number)
        case .null: "None"
        default: nil
        }
    }

    static func substitute(_ topic: String, base: String) -> String {
        if topic.hasPrefix("~") { return base + topic.dropFirst() }
        if topic.hasSuffix("~") { return topic.dropLast() + base }
        return topic
    }

    private static func substituteTopics(in availability: JSONValue, base: String) -> JSONValue {
        switch availability {
        case .array(let entries): return .array(entries.map { substituteTopics(in: $0, base: base) })
        case .object(var entry):
            if case .string(let topic)? = entry["topic"] { entry["topic"] = .string(substitute(topic, base: base)) }
            return .object(entry)
        default: return availability
        }
    }

    private static func expand(_ value: JSONValue, _ abbreviations: [String: String]) -> JSONValue {
        guard case .object(let object) = value else { return value }
        var expanded = JSONObject()
        for (key, member) in object.members { expanded[abbreviations[key] ?? key] = member }
        return .object(expanded)
    }
}

extension JSONValue {
    /// The members of an object; empty for anything else.
    var objectMembers: [(key: String, value: JSONValue)] {
        guard case .object(let object) = self else { return [] }
        return object.members
    }
}
