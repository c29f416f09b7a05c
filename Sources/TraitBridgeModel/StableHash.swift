/// A hash of an identifier's text computed once, when the identifier is made, for the keys the
/// message path looks up many times a message (a device's id ten times, its source reference six):
/// `Hasher` then mixes one integer (seeded per process as always) instead of the text's bytes.
///
/// FNV-1a over the UTF-8 bytes; equal texts give equal hashes, so `==` may compare it first.
enum StableHash {
    static let seed: UInt64 = 0xcbf2_9ce4_8422_2325

    static func mix(_ text: String, into state: inout UInt64) {
        for byte in text.utf8 { state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }

    /// Between two texts of one key: a byte no UTF-8 text has.
    static func separate(_ state: inout UInt64) { state = (state ^ 0xff) &* 0x0000_0100_0000_01b3 }

    static func of(_ text: String) -> Int {
        var state = seed
        mix(text, into: &state)
        return Int(truncatingIfNeeded: state)
    }
}
