/// A cursor over bytes that came off the network: every read checks what remains first and throws
/// a ``MessageDecodeError`` naming the field and the byte where it starts, so no read can trap.
/// `base` is added to every reported offset, so a header read out of a decrypted payload reports
/// offsets in the whole message (CCM keeps positions: plaintext byte i sits at ciphertext byte i).
struct ByteReader {
    private let bytes: [UInt8]
    private let base: Int
    private(set) var position: Int

    init(_ bytes: [UInt8], reportingFrom base: Int = 0) {
        self.bytes = bytes
        self.base = base
        self.position = 0
    }

    var remaining: Int { bytes.count - position }

    /// The offset, in the caller's coordinates, of the next byte.
    var offset: Int { base + position }

    /// A little-endian unsigned integer of `T`'s width.
    mutating func integer<T: FixedWidthInteger & UnsignedInteger>(
        _ field: MessageDecodeError.Field, as type: T.Type = T.self
    ) throws(MessageDecodeError) -> T {
        let size = T.bitWidth / 8
        guard remaining >= size else {
            throw MessageDecodeError(kind: .truncated(field, needed: size, remaining: remaining), offset: offset)
        }
        var value: T = 0
        for index in 0..<size { value |= T(bytes[position + index]) << (8 * index) }
        position += size
        return value
    }

    /// A block that a 16-bit little-endian length introduces (message and secured extensions); the
    /// length is checked against the bytes that remain before anything is copied.
    mutating func lengthPrefixed(
        _ lengthField: MessageDecodeError.Field, _ field: MessageDecodeError.Field
    ) throws(MessageDecodeError) -> [UInt8] {
        let start = offset
        let length = Int(try integer(lengthField, as: UInt16.self))
        guard length <= remaining else {
            throw MessageDecodeError(
                kind: .blockBeyondInput(field, declared: length, remaining: remaining), offset: start)
        }
        defer { position += length }
        return Array(bytes[position..<position + length])
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` least significant byte first, as every Matter header field is written.
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        for index in 0..<(T.bitWidth / 8) { append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    /// Appends a 16-bit little-endian length and then `block`.
    mutating func appendLengthPrefixed(_ block: [UInt8]) {
        precondition(block.count <= Int(UInt16.max), "a header extension longer than 65 535 bytes")
        appendLittleEndian(UInt16(block.count))
        append(contentsOf: block)
    }
}

extension Duration {
    /// Whole milliseconds, rounded toward zero, as the SDK's `System::Clock::Milliseconds64` holds
    /// them; saturating at the ends of Int64 instead of trapping.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflowed) = seconds.multipliedReportingOverflow(by: 1000)
        let (total, carried) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        if overflowed || carried { return seconds < 0 ? .min : .max }
        return total
    }
}
