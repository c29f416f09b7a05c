/// Bytes from hex as the sources print them ("04 00 00 00 0a4f…"); anything but hex digits is
/// ignored, so spaces and line breaks may stay.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter(\.isHexDigit))
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits in a test vector")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(digits[index...index + 1]), radix: 16) ?? 0
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hex, two digits a byte.
    var hex: String { map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}

/// xorshift64 (Marsaglia 2003): a deterministic generator, so every random draw in a test (counter
/// starts, exchange IDs, MRP jitter, fuzz bytes) reproduces from its seed.
struct XorShift: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// A number in 0..<bound (bound > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// A generator that returns the same value every time: `Constant(0)` makes every MRP jitter 0 and
/// `Constant(.max)` makes it 255 (the SDK's `computeMaxPossible`), since the layer uses the low
/// byte of each draw.
struct Constant: RandomNumberGenerator {
    var value: UInt64

    init(_ value: UInt64) { self.value = value }

    mutating func next() -> UInt64 { value }
}
