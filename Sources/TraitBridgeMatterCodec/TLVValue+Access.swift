/// Reading a decoded message the way protocol code does: a member by its context tag, typed and
/// range-checked, with an error that names the member when it is missing or not what the schema
/// says. For PBKDFParamRequest:
///
///     let request = try TLVElement(decoding: payload).value
///     let random = try request.octets(1, count: 32)
///     let sessionID = try request.uint(2, as: UInt16.self)
///     let passcodeID = try request.uint(3, as: UInt16.self)
///     let hasParameters = try request.bool(4)
///     let idle = try request[5]?.uint(1, as: UInt32.self)   // optional member
extension TLVValue {
    /// Why a member could not be read as asked.
    public enum AccessError: Error, Equatable, CustomStringConvertible {
        /// Members were asked of a value that is no structure or list.
        case notAContainer(found: TLVType)
        /// The structure or list has no member with this tag.
        case missing(TLVTag)
        /// The member (nil: the value itself) is of another type than the one asked for.
        case wrongType(TLVTag?, expected: TLVType, found: TLVType)
        /// The member's integer does not fit the type asked for (`UInt16`, …).
        case outOfRange(TLVTag?, value: String, expected: String)
        /// The member's octet string is not of the length asked for.
        case wrongLength(TLVTag?, expected: Int, found: Int)

        public var description: String {
            switch self {
            case .notAContainer(let found):
                "Matter TLV: members were asked of a \(found), which has none — expected a structure or list"
            case .missing(let tag):
                "Matter TLV: member \(tag) is missing — the schema requires it; check the sender's message type"
            case .wrongType(let tag, let expected, let found):
                "Matter TLV: \(Self.name(tag)) is \(Self.article(found)), expected \(Self.article(expected))"
            case .outOfRange(let tag, let value, let expected):
                "Matter TLV: \(Self.name(tag)) is \(value), which does not fit \(expected)"
            case .wrongLength(let tag, let expected, let found):
                "Matter TLV: \(Self.name(tag)) has \(found) bytes, expected \(expected)"
            }
        }

        private static func name(_ tag: TLVTag?) -> String { tag.map { "member \($0)" } ?? "the value" }

        private static func article(_ type: TLVType) -> String {
            switch type {
            case .unsignedInteger, .octetString, .array: "an \(type)"
            case .null: "null"
            default: "a \(type)"
            }
        }
    }

    /// The members of a structure or list; nil for any other value.
    public var members: [TLVElement]? {
        switch self {
        case .structure(let members), .list(let members): members
        default: nil
        }
    }

    /// The first member tagged `tag`; nil when there is none or this is no structure or list.
    public subscript(tag: TLVTag) -> TLVValue? { members?.first { $0.tag == tag }?.value }

    /// The first member with context tag `tag`: `request[5]` for an optional member.
    public subscript(tag: UInt8) -> TLVValue? { self[.context(tag)] }

    /// Whether this is null (a nullable field without a value).
    public var isNull: Bool { self == .null }

    /// The member with context tag `tag`, which must be there.
    public func member(_ tag: UInt8) throws(AccessError) -> TLVValue {
        guard let members else { throw .notAContainer(found: type) }
        guard let member = members.first(where: { $0.tag == .context(tag) }) else { throw .missing(.context(tag)) }
        return member.value
    }

    // MARK: The member with context tag `tag`, as a type

    /// An unsigned-integer member that fits `T` (a signed integer is a wrong type, not converted).
    public func uint<T: FixedWidthInteger & UnsignedInteger>(
        _ tag: UInt8, as _: T.Type = UInt64.self
    ) throws(AccessError) -> T {
        try member(tag).asUInt(T.self, tag: .context(tag))
    }

    /// A signed-integer member that fits `T`.
    public func int<T: FixedWidthInteger & SignedInteger>(
        _ tag: UInt8, as _: T.Type = Int64.self
    ) throws(AccessError) -> T {
        try member(tag).asInt(T.self, tag: .context(tag))
    }

    /// A boolean member.
    public func bool(_ tag: UInt8) throws(AccessError) -> Bool { try member(tag).asBool(tag: .context(tag)) }

    /// A double or single-precision float member, as a Double (widening a float is exact).
    public func double(_ tag: UInt8) throws(AccessError) -> Double { try member(tag).asDouble(tag: .context(tag)) }

    /// A UTF-8 string member.
    public func string(_ tag: UInt8) throws(AccessError) -> String { try member(tag).asString(tag: .context(tag)) }

    /// An octet-string member; with `count`, one of exactly that many bytes (a 32-byte random).
    public func octets(_ tag: UInt8, count: Int? = nil) throws(AccessError) -> [UInt8] {
        try member(tag).asOctets(count: count, tag: .context(tag))
    }

    /// A structure member, returned as a value so its own members can be read.
    public func structure(_ tag: UInt8) throws(AccessError) -> TLVValue {
        let value = try member(tag)
        guard case .structure = value else { throw .wrongType(.context(tag), expected: .structure, found: value.type) }
        return value
    }

    /// An array member's elements.
    public func array(_ tag: UInt8) throws(AccessError) -> [TLVValue] {
        let value = try member(tag)
        guard case .array(let elements) = value else {
            throw .wrongType(.context(tag), expected: .array, found: value.type)
        }
        return elements
    }

    // MARK: This value, as a type (`tag` only names it in errors)

    /// This unsigned integer, if it fits `T`.
    public func asUInt<T: FixedWidthInteger & UnsignedInteger>(
        _: T.Type = UInt64.self, tag: TLVTag? = nil
    ) throws(AccessError) -> T {
        guard case .unsigned(let number) = self else { throw .wrongType(tag, expected: .unsignedInteger, found: type) }
        guard let fitted = T(exactly: number) else {
            throw .outOfRange(tag, value: "\(number)", expected: "\(T.self)")
        }
        return fitted
    }

    /// This signed integer, if it fits `T`.
    public func asInt<T: FixedWidthInteger & SignedInteger>(
        _: T.Type = Int64.self, tag: TLVTag? = nil
    ) throws(AccessError) -> T {
        guard case .signed(let number) = self else { throw .wrongType(tag, expected: .signedInteger, found: type) }
        guard let fitted = T(exactly: number) else {
            throw .outOfRange(tag, value: "\(number)", expected: "\(T.self)")
        }
        return fitted
    }

    /// This boolean.
    public func asBool(tag: TLVTag? = nil) throws(AccessError) -> Bool {
        guard case .bool(let flag) = self else { throw .wrongType(tag, expected: .boolean, found: type) }
        return flag
    }

    /// This double, or this single-precision float widened (exactly) to a double.
    public func asDouble(tag: TLVTag? = nil) throws(AccessError) -> Double {
        switch self {
        case .double(let number): return number
        case .float(let number): return Double(number)
        default: throw .wrongType(tag, expected: .double, found: type)
        }
    }

    /// This UTF-8 string.
    public func asString(tag: TLVTag? = nil) throws(AccessError) -> String {
        guard case .string(let text) = self else { throw .wrongType(tag, expected: .utf8String, found: type) }
        return text
    }

    /// This octet string; with `count`, one of exactly that many bytes.
    public func asOctets(count: Int? = nil, tag: TLVTag? = nil) throws(AccessError) -> [UInt8] {
        guard case .octets(let bytes) = self else { throw .wrongType(tag, expected: .octetString, found: type) }
        if let count, bytes.count != count { throw .wrongLength(tag, expected: count, found: bytes.count) }
        return bytes
    }
}
