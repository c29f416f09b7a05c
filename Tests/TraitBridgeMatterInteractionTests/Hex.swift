/// Hexadecimal test vectors as bytes, the way captures print them.
extension Array where Element == UInt8 {
    /// Pairs of hex digits; spaces and line breaks between them are ignored.
    init(hex: String) {
        let digits = hex.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init)
        precondition(digits.count % 2 == 0, "a test vector has an odd number of hex digits")
        self = stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else {
                preconditionFailure("a test vector is not hexadecimal")
            }
            return byte
        }
    }

    /// Lower-case hex, two digits a byte.
    var hex: String { map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}
