/// A JSON value built in Swift, for output: state payloads, exports, CLI `--json`.
///
/// Objects keep their members in the order they were built (and, for parsed values, in text order),
/// so serialization is deterministic: the same value always gives the same bytes, which makes
/// "publish only on change" a byte comparison and keeps retained MQTT messages stable.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The member `key` of an object value.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The text of a string value, else nil.
    public var stringValue: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    /// A number value (an integer or not) as a `Double`, else nil.
    public var numberValue: Double? {
        switch self {
        case .int(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }

    /// The elements of an array value, else nil.
    public var arrayElements: [JSONValue]? {
        guard case .array(let elements) = self else { return nil }
        return elements
    }
}

/// An ordered JSON object: members in insertion order, one value per key.
///
/// Small objects find a key by a linear scan (fastest for the few members of a state payload);
/// once an object built with the subscript passes ``indexThreshold`` members it keeps a key index,
/// so building or reading an object of n members costs O(n), not O(n²) (a hostile discovery config
/// can have thousands of keys).
public struct JSONObject: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    public private(set) var members: [(key: String, value: JSONValue)] = []
    /// Key → position in `members`, kept once the object is larger than ``indexThreshold``.
    private var positions: [String: Int]?
    static let indexThreshold = 16

    public init() {}

    /// Members in the literal's order (a Swift dictionary literal keeps source order here).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (key, value) in elements { self[key] = value }
    }

    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }
    public var keys: [String] { members.map(\.key) }

    private func position(of key: String) -> Int? {
        if let positions { return positions[key] }
        return members.firstIndex { $0.key == key }
    }

    /// Reading finds the member; writing replaces it in place, appends a new one, or removes it (`nil`).
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            switch (position(of: key), newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil):
                members.remove(at: index)
                if positions != nil { reindex() }
            case (nil, let value?):
                members.append((key, value))
                if positions != nil {
                    positions?[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    reindex()
                }
            case (nil, nil): break
            }
        }
    }

    private mutating func reindex() {
        var index: [String: Int] = [:]
        index.reserveCapacity(members.count)
        for (offset, member) in members.enumerated() where index[member.key] == nil { index[member.key] = offset }
        positions = index
    }

    /// Appends a member without looking for an existing one: for builders that know their keys
    /// are distinct (the hot path builds state payloads this way).
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key, value))
        if positions != nil, positions?[key] == nil { positions?[key] = members.count - 1 }
    }

    public mutating func reserveCapacity(_ count: Int) { members.reserveCapacity(count) }

    /// Sets a member only when the value is present; keeps optional fields out of the output.
    public mutating func setIfPresent(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSON {
    /// Copies this view into a ``JSONValue`` (keeps member order; integers beyond Int64 become doubles).
    public var value: JSONValue {
        switch kind {
        case .null: return .null
        case .bool: return .bool(bool ?? false)
        case .number:
            if isInteger, let integer = int64 { return .int(integer) }
            return .double(double ?? 0)
        case .string: return .string(string ?? "")
        case .array: return .array(elements.map(\.value))
        case .object:
            var object = JSONObject()
            for (key, member) in members { object[key] = member.value }
            return .object(object)
        }
    }
}
