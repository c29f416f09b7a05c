/// A 64-bit hash of a byte buffer, to tell whether bytes changed without keeping them: what the
/// bridge last published per device (a state is ~1.4 KB; 10 000 of them kept as bytes were 14 MB).
///
/// Sixteen bytes per step, folded through one 128-bit multiply, seeded once per process.
/// `Hasher` (SipHash) cost 3 % of a message's instructions for a state's bytes; this about a
/// quarter of that. Not a key for a table an attacker fills: only "same as last time?" answers
/// depend on it, and a collision (one in 2⁶⁴) would skip one republication until the next change.
public enum ByteHash {
    /// Per process, so that no input can be built offline to collide.
    private static let seed = UInt64.random(in: .min ... .max)
    /// Odd multipliers whose bytes include 0xF9 and 0xFF, which valid UTF-8 never holds: no 8 bytes
    /// of text can cancel one to zero (a zero product would forget what came before).
    private static let first: UInt64 = 0xF9E3_779B_97F4_A7C5
    private static let second: UInt64 = 0xFFB2_AE3D_27D4_EB4F

    @inline(__always)
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }

    public static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var state = seed ^ first
        var offset = 0
        let count = bytes.count
        while offset + 16 <= count {
            let a = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let b = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            state = fold(a ^ second, b ^ state)
            offset += 16
        }
        var tail: (UInt64, UInt64) = (0, 0)
        if offset < count {
            withUnsafeMutableBytes(of: &tail) { room in
                room.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<count]))
            }
        }
        state = fold(tail.0 ^ second, tail.1 ^ state)
        return Int(truncatingIfNeeded: fold(state ^ first, UInt64(truncatingIfNeeded: count) ^ second))
    }

    public static func hash(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { hash($0) }
    }
}
