/// Writes Matter TLV (Matter Core spec Appendix A) into a byte array, element by element, so
/// protocol code can build a message without first building a `TLVValue` tree, and so it can pick
/// a wider integer than needed when a peer insists on one.
///
/// Output is deterministic: the same calls give the same bytes. By default every integer, string
/// length and tag takes its shortest form, which is what the Matter SDK writes; decoders accept
/// any width. The writer does not police where tags may stand (a context tag at the top level, a
/// tagged array element): `TLVDecoder` rejects those, so a round trip through it catches our bugs.
public struct TLVWriter: Sendable {
    /// A width in bytes for an integer's value field.
    public enum Width: Int, Sendable, CaseIterable, Comparable {
        case one = 1
        case two = 2
        case four = 4
        case eight = 8

        /// The element-type offset of this width: 0, 1, 2, 3 (added to 0x00 signed, 0x04 unsigned,
        /// 0x0C UTF-8 string, 0x10 octet string).
        var typeOffset: UInt8 {
            switch self {
            case .one: 0
            case .two: 1
            case .four: 2
            case .eight: 3
            }
        }

        public static func < (lhs: Width, rhs: Width) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Writes `element` and, for a container, all it holds, in the order held.
    public mutating func append(_ element: TLVElement) { append(element.value, tag: element.tag) }

    /// Writes `value` under `tag`; integers, string lengths and tags in their shortest form.
    public mutating func append(_ value: TLVValue, tag: TLVTag = .anonymous) {
        switch value {
        case .signed(let number): appendSigned(number, tag: tag)
        case .unsigned(let number): appendUnsigned(number, tag: tag)
        case .bool(let flag): header(tag, type: flag ? 0x09 : 0x08)
        case .float(let number):
            header(tag, type: 0x0A)
            bytes += littleEndian(number.bitPattern, count: 4)
        case .double(let number):
            header(tag, type: 0x0B)
            bytes += littleEndian(number.bitPattern, count: 8)
        case .string(let text): appendString(Array(text.utf8), tag: tag, baseType: 0x0C)
        case .octets(let octets): appendString(octets, tag: tag, baseType: 0x10)
        case .null: header(tag, type: 0x14)
        case .structure(let members):
            header(tag, type: 0x15)
            for member in members { append(member) }
            endContainer()
        case .array(let values):
            header(tag, type: 0x16)
            for element in values { append(element) }
            endContainer()
        case .list(let members):
            header(tag, type: 0x17)
            for member in members { append(member) }
            endContainer()
        }
    }

    /// Writes a signed integer in at least `width` bytes (more when the value needs them).
    public mutating func appendSigned(_ value: Int64, tag: TLVTag = .anonymous, width: Width = .one) {
        let chosen = max(Self.width(of: value), width)
        header(tag, type: 0x00 + chosen.typeOffset)
        bytes += littleEndian(value, count: chosen.rawValue)
    }

    /// Writes an unsigned integer in at least `width` bytes (more when the value needs them).
    public mutating func appendUnsigned(_ value: UInt64, tag: TLVTag = .anonymous, width: Width = .one) {
        let chosen = max(Self.width(of: value), width)
        header(tag, type: 0x04 + chosen.typeOffset)
        bytes += littleEndian(value, count: chosen.rawValue)
    }

    /// Opens a structure under `tag`; close it with `endContainer()`.
    public mutating func startStructure(_ tag: TLVTag = .anonymous) { header(tag, type: 0x15) }
    /// Opens an array under `tag`; its elements must be anonymous. Close it with `endContainer()`.
    public mutating func startArray(_ tag: TLVTag = .anonymous) { header(tag, type: 0x16) }
    /// Opens a list under `tag`; close it with `endContainer()`.
    public mutating func startList(_ tag: TLVTag = .anonymous) { header(tag, type: 0x17) }
    /// Closes the innermost open container (End-of-Container, 0x18).
    public mutating func endContainer() { bytes.append(0x18) }

    /// Writes a structure under `tag` whose members `body` writes, closing it after.
    public mutating func appendStructure<E: Error>(
        _ tag: TLVTag = .anonymous, _ body: (inout TLVWriter) throws(E) -> Void
    ) throws(E) {
        startStructure(tag)
        try body(&self)
        endContainer()
    }

    private mutating func header(_ tag: TLVTag, type: UInt8) {
        let (control, tagBytes) = tag.encoded
        bytes.append(control | type)
        bytes += tagBytes
    }

    /// A string or octet string: its length in the shortest field, then its bytes.
    private mutating func appendString(_ content: [UInt8], tag: TLVTag, baseType: UInt8) {
        let width = Self.width(of: UInt64(content.count))
        header(tag, type: baseType + width.typeOffset)
        bytes += littleEndian(content.count, count: width.rawValue)
        bytes += content
    }

    private static func width(of value: Int64) -> Width {
        if Int8(exactly: value) != nil { return .one }
        if Int16(exactly: value) != nil { return .two }
        if Int32(exactly: value) != nil { return .four }
        return .eight
    }

    private static func width(of value: UInt64) -> Width {
        if value <= UInt64(UInt8.max) { return .one }
        if value <= UInt64(UInt16.max) { return .two }
        if value <= UInt64(UInt32.max) { return .four }
        return .eight
    }
}
