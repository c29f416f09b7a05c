/// A Matter TLV value (Matter Core spec Appendix A): the payload of every Matter message —
/// commissioning (PASE, CASE), interaction model reads, writes and reports — is one of these,
/// usually an anonymous structure of context-tagged members.
///
/// Integers keep their signedness but not their width on the wire: `.unsigned(42)` is 42 whether
/// it came in 1 byte or 8, and the writer puts it in the fewest bytes. Equality is exact: floats
/// compare by bit pattern (NaN equals the same NaN, 0.0 differs from -0.0) and strings by their
/// UTF-8 bytes, not by Unicode canonical equivalence, so equal values always encode identically.
public enum TLVValue: Sendable, Equatable, CustomStringConvertible {
    /// A signed integer (element types 0x00–0x03: 1, 2, 4 or 8 bytes).
    case signed(Int64)
    /// An unsigned integer (element types 0x04–0x07).
    case unsigned(UInt64)
    /// A boolean (element type 0x08 false, 0x09 true).
    case bool(Bool)
    /// A single-precision float (element type 0x0A).
    case float(Float)
    /// A double-precision float (element type 0x0B).
    case double(Double)
    /// A UTF-8 string (element types 0x0C–0x0F by length-field width); decoding checks the UTF-8.
    case string(String)
    /// An octet string (element types 0x10–0x13 by length-field width).
    case octets([UInt8])
    /// Null (element type 0x14), e.g. a nullable attribute that has no value.
    case null
    /// A structure (0x15): members with distinct, non-anonymous tags.
    case structure([TLVElement])
    /// An array (0x16): anonymous elements, so they are values without tags.
    case array([TLVValue])
    /// A list (0x17): elements in order, each tagged or not, tags may repeat.
    case list([TLVElement])

    /// Which kind of value this is, for error messages and switches that ignore the payload.
    public var type: TLVType {
        switch self {
        case .signed: .signedInteger
        case .unsigned: .unsignedInteger
        case .bool: .boolean
        case .float: .float
        case .double: .double
        case .string: .utf8String
        case .octets: .octetString
        case .null: .null
        case .structure: .structure
        case .array: .array
        case .list: .list
        }
    }

    /// A structure of context-tagged members in the order given; a nil member (an optional field
    /// that is absent) is left out. `.contextStructure([1: .octets(random), 2: .unsigned(id), 5: nil])`.
    public static func contextStructure(_ members: KeyValuePairs<UInt8, TLVValue?>) -> TLVValue {
        .structure(members.compactMap { tag, value in value.map { TLVElement(tag: .context(tag), value: $0) } })
    }

    public static func == (lhs: TLVValue, rhs: TLVValue) -> Bool {
        switch (lhs, rhs) {
        case (.signed(let a), .signed(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.bool(let a), .bool(let b)): a == b
        case (.float(let a), .float(let b)): a.bitPattern == b.bitPattern
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.octets(let a), .octets(let b)): a == b
        case (.null, .null): true
        case (.structure(let a), .structure(let b)), (.list(let a), .list(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        default: false
        }
    }

    /// The notation of the spec's examples (A.12): `42U` for unsigned, `{0 = 42, 1 = -17}` for a
    /// structure, `[1, 2]` for an array, `[[1, 0 = 42]]` for a list; octets as `hex:0001`.
    public var description: String {
        switch self {
        case .signed(let value): "\(value)"
        case .unsigned(let value): "\(value)U"
        case .bool(let value): "\(value)"
        case .float(let value): "\(value)f"
        case .double(let value): "\(value)"
        case .string(let value): value.debugDescription
        case .octets(let bytes): "hex:" + bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
        case .null: "null"
        case .structure(let members): "{" + members.map(\.description).joined(separator: ", ") + "}"
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .list(let members): "[[" + members.map(\.description).joined(separator: ", ") + "]]"
        }
    }
}

/// The kinds of TLV value, named as the spec names them; errors say which was expected and found.
public enum TLVType: String, Sendable, CaseIterable, CustomStringConvertible {
    case signedInteger = "signed integer"
    case unsignedInteger = "unsigned integer"
    case boolean
    case float = "single-precision float"
    case double = "double-precision float"
    case utf8String = "UTF-8 string"
    case octetString = "octet string"
    case null
    case structure
    case array
    case list

    public var description: String { rawValue }
}

/// One TLV element: a tag and a value. A message is one element (an anonymous structure); the
/// members of structures and lists are elements too.
public struct TLVElement: Sendable, Equatable, CustomStringConvertible {
    public var tag: TLVTag
    public var value: TLVValue

    public init(tag: TLVTag = .anonymous, value: TLVValue) {
        self.tag = tag
        self.value = value
    }

    /// Decodes exactly one element from untrusted bytes, within `limits` (see `TLVDecoder`).
    public init(decoding bytes: [UInt8], limits: TLVDecoder.Limits = .init()) throws(TLVDecoder.DecodeError) {
        self = try TLVDecoder(limits: limits).decode(bytes)
    }

    /// The element's bytes: shortest integer, length and tag forms, members in the order held.
    public var encoded: [UInt8] {
        var writer = TLVWriter()
        writer.append(self)
        return writer.bytes
    }

    /// `tag = value`, or just the value when the tag is anonymous.
    public var description: String { tag == .anonymous ? value.description : "\(tag) = \(value)" }
}
