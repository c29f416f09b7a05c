/// Test vectors as the sources print them: published protocol vectors (RFCs, the Matter spec,
/// connectedhomeip) are hex; the fuzz loops and the randomness the state machines take in must
/// replay from a seed. One place for both, for every test target.
extension Array where Element == UInt8 {
    /// Pairs of hex digits; whitespace, commas and colons between them are ignored. Traps on anything
    /// else: a test vector that is not hex is a mistake in the test.
    public init(hex: String) {
        let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace && $0 != "," && $0 != ":" }
            .map(Character.init)
        precondition(digits.count % 2 == 0, "a test vector has an odd number of hex digits")
        self = stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
                preconditionFailure("a test vector is not hexadecimal")
            }
            return byte
        }
    }

    /// Lower-case hex, two digits a byte.
    public var hex: String { map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}

/// Bytes from hex (`[UInt8](hex:)` as a function, for tables of vectors).
public func hex(_ text: String) -> [UInt8] { [UInt8](hex: text) }

/// xorshift64 (Marsaglia 2003): a deterministic generator, so every random draw in a test (counter
/// starts, exchange ids, jitter, fuzz bytes) reproduces from its seed.
public struct XorShift: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    public mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    /// One byte of the stream.
    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// A number in 0..<bound (bound > 0).
    public mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
