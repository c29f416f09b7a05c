import Crypto

/// How tokens are made and kept: random, prefixed by kind (so a leaked one is recognisable), and
/// stored or compared only as their SHA-256.
enum Secrets {
    /// A new token: the prefix, then 32 random bytes in hex.
    static func makeToken(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): cryptographically secure
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 { withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) } }
        return prefix + hex(bytes)
    }

    /// The SHA-256 of a secret, hex: what the registry keeps and what is compared.
    static func hash(_ secret: String) -> String { hex(Array(SHA256.hash(data: Array(secret.utf8)))) }

    /// Equality of two secrets that takes the same time wherever they differ.
    static func matches(_ given: String, _ expected: String) -> Bool {
        let left = Array(SHA256.hash(data: Array(given.utf8)))
        let right = Array(SHA256.hash(data: Array(expected.utf8)))
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    private static let digits = Array("0123456789abcdef".utf8)

    static func hex(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
