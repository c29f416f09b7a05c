/// Where an element of a payload starts, and where its members start (for a container, one per member,
/// in order): the byte offsets decoding errors report. The codec's tree keeps values, not positions, so
/// this walks the same bytes again once `TLVDecoder` has accepted them.
struct TLVLocation: Sendable {
    var offset: Int
    var members: [TLVLocation] = []

    /// The locations of the element at `offset` of `bytes`, which `TLVDecoder` has accepted; nil if the
    /// bytes are not what the decoder accepted (a bug, reported as byte 0 by the caller, never a trap).
    static func walk(_ bytes: [UInt8], at offset: Int = 0) -> (location: TLVLocation, next: Int)? {
        guard offset < bytes.count else { return nil }
        let control = bytes[offset]
        let type = Int(control & 0x1F)
        let tagLength = [0, 1, 2, 4, 2, 4, 6, 8][Int(control >> 5)]
        var cursor = offset + 1 + tagLength
        switch type {
        case 0x00...0x07: cursor += 1 << (type & 0x03)
        case 0x08, 0x09, 0x14: break
        case 0x0A: cursor += 4
        case 0x0B: cursor += 8
        case 0x0C...0x13:
            let width = 1 << (type & 0x03)
            guard cursor + width <= bytes.count else { return nil }
            var length = 0
            for index in 0..<width where width < 8 || index < 7 {
                length |= Int(bytes[cursor + index]) << (8 * index)
            }
            guard length >= 0, length <= bytes.count else { return nil }
            cursor += width + length
        case 0x15...0x17:
            var location = TLVLocation(offset: offset)
            while cursor < bytes.count, bytes[cursor] != 0x18 {
                guard let (member, next) = walk(bytes, at: cursor) else { return nil }
                location.members.append(member)
                cursor = next
            }
            guard cursor < bytes.count else { return nil }
            return (location, cursor + 1)
        default: return nil
        }
        return cursor <= bytes.count ? (TLVLocation(offset: offset), cursor) : nil
    }
}
