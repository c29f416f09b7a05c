/// A value of a trait attribute or command argument, independent of any wire format.
///
/// Sources convert their payloads into these; the MQTT and Cloud-to-cloud layers convert them out.
/// Integers and floating-point values are kept apart so that validation can say "expected an
/// integer" instead of silently truncating 21.5 to 21.
public enum AttributeValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case list([AttributeValue])
    case structure([String: AttributeValue])

    /// The value as a `Double` when it is a number.
    public var numericValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// A short name of the value's kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .list: "list"
        case .structure: "structure"
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .string(let value): "\"\(value)\""
        case .list(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .structure(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}
