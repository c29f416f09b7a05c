/// Reads Matter TLV (Matter Core spec Appendix A) from bytes that came off the network, so it
/// assumes every byte may be hostile: it never traps, never allocates from a length it has not
/// checked against the bytes that remain, and bounds nesting and element count. It refuses what
/// the Matter SDK's reader refuses (`TLVReader::VerifyElement` in connectedhomeip: reserved element
/// types, an End-of-Container with a tag or with nothing open, anonymous structure members, tagged
/// array elements, context tags outside a container) and containers the input never closes.
/// Stricter than the SDK, it also refuses UTF-8 strings that are not UTF-8 and a structure that
/// repeats a tag (the spec gives each member a distinct tag), so `value[1]` is never ambiguous.
/// Every error says at which byte, inside which member, and what to do about it.
public struct TLVDecoder: Sendable {
    /// How much a message may make the decoder do.
    public struct Limits: Sendable, Equatable {
        /// Containers open at once. 16 by default: the interaction model's deepest envelope
        /// (ReportData → AttributeReportIBs → AttributeReportIB → AttributeDataIB → Data) uses five
        /// and cluster data types add a few more (a list of structures holding lists), so 16 is
        /// about twice what a real message needs while keeping the decoder's recursion, one stack
        /// frame per level, short enough for any thread.
        public var maxDepth: Int
        /// Elements in one decode, containers included. 4096 by default: a Matter message over
        /// UDP fits the 1280-byte IPv6 minimum MTU, so holds at most 1280 elements; the bound caps
        /// the memory a message can cost (a decoded element takes 40 bytes for as little as 1 on
        /// the wire). Raise it for large payloads over TCP.
        public var maxElements: Int

        public init(maxDepth: Int = 16, maxElements: Int = 4096) {
            self.maxDepth = maxDepth
            self.maxElements = maxElements
        }
    }

    /// What an element's first bytes say, read without reading its value.
    public struct Header: Sendable, Equatable {
        /// The element's tag.
        public var tag: TLVTag
        /// Its type, or nil for an End-of-Container marker (0x18).
        public var type: TLVType?
        /// Where its length or value field begins (for a container: its first member).
        public var valueOffset: Int
    }

    public var limits: Limits

    public init(limits: Limits = .init()) { self.limits = limits }

    /// Decodes `bytes` as exactly one element; bytes after it are an error.
    public func decode(_ bytes: [UInt8]) throws(DecodeError) -> TLVElement {
        var reader = Reader(bytes: bytes, offset: 0, limits: limits)
        let element = try reader.readTopLevel()
        if reader.offset < bytes.count {
            let kind: DecodeError.Kind =
                bytes[reader.offset] == 0x18
                ? .strayEndOfContainer : .trailingBytes(count: bytes.count - reader.offset)
            throw DecodeError(kind: kind, offset: reader.offset, path: "")
        }
        return element
    }

    /// Decodes `bytes` as a sequence of top-level elements (none when `bytes` is empty); the
    /// element limit counts all of them.
    public func decodeAll(_ bytes: [UInt8]) throws(DecodeError) -> [TLVElement] {
        var reader = Reader(bytes: bytes, offset: 0, limits: limits)
        var elements: [TLVElement] = []
        while reader.offset < bytes.count { elements.append(try reader.readTopLevel()) }
        return elements
    }

    /// Decodes the one element that starts at `offset` and says where the next one starts, so a
    /// caller can walk or skip elements in a longer buffer.
    public func decodeElement(
        _ bytes: [UInt8], at offset: Int
    ) throws(DecodeError) -> (element: TLVElement, next: Int) {
        guard offset >= 0, offset <= bytes.count else {
            throw DecodeError(kind: .noElement, offset: max(0, min(offset, bytes.count)), path: "")
        }
        var reader = Reader(bytes: bytes, offset: offset, limits: limits)
        let element = try reader.readTopLevel()
        return (element, reader.offset)
    }

    /// Reads the control byte and tag of the element at `offset` (nothing else): a cheap look at
    /// what comes next, e.g. whether a message is a structure before decoding it.
    public func peek(_ bytes: [UInt8], at offset: Int) throws(DecodeError) -> Header {
        guard offset >= 0, offset < bytes.count else {
            throw DecodeError(kind: .noElement, offset: max(0, min(offset, bytes.count)), path: "")
        }
        var reader = Reader(bytes: bytes, offset: offset, limits: limits)
        let (elementType, tag) = try reader.readHeader()
        return Header(tag: tag, type: Reader.type(of: elementType), valueOffset: reader.offset)
    }
}
