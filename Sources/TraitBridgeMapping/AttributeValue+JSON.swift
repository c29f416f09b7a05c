public import TraitBridgeJSON
public import TraitBridgeModel

extension AttributeValue {
    /// Converts a JSON value: integers stay integers, objects become structures.
    public init(json: JSON) {
        switch json.kind {
        case .null: self = .null
        case .bool: self = .bool(json.bool ?? false)
        case .number:
            if json.isInteger, let integer = json.int64 {
                self = .int(integer)
            } else {
                self = .double(json.double ?? 0)
            }
        case .string: self = .string(json.string ?? "")
        case .array: self = .list(json.elements.map(AttributeValue.init(json:)))
        case .object:
            var fields: [String: AttributeValue] = [:]
            for (key, value) in json.members { fields[key] = AttributeValue(json: value) }
            self = .structure(fields)
        }
    }

    /// The same value from JSON already converted (``JSON/value``): a SYNC keeps the attributes
    /// as written and converts them once, not twice.
    public init(jsonValue: JSONValue) {
        switch jsonValue {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .string(let value): self = .string(value)
        case .array(let values): self = .list(values.map(AttributeValue.init(jsonValue:)))
        case .object(let object):
            var fields: [String: AttributeValue] = [:]
            // A key written twice (possible in a built JSONObject, never in a parsed one): the first.
            for (key, value) in object.members where fields[key] == nil {
                fields[key] = AttributeValue(jsonValue: value)
            }
            self = .structure(fields)
        }
    }

    /// The JSON form, for state payloads and exports (structure keys sorted for stable output).
    public var jsonValue: JSONValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .list(let values): .array(values.map(\.jsonValue))
        case .structure(let fields):
            .object(fields.sorted { $0.key < $1.key }.reduce(into: JSONObject()) { $0[$1.key] = $1.value.jsonValue })
        }
    }
}
