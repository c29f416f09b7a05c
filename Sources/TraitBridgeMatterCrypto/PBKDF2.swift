/// PBKDF2-HMAC-SHA256 (RFC 8018 §5.2), Matter's Crypto_PBKDF (Core §3.9): it turns a passcode into
/// SPAKE2+'s w0s and w1s. It exists because swift-crypto 3 has no PBKDF2; libcrypto does the work
/// (`PKCS5_PBKDF2_HMAC`).
public enum PBKDF2 {
    /// `byteCount` bytes derived from `password` and `salt` with `iterations` rounds of HMAC-SHA256.
    /// The inputs are not checked against Matter's limits here (``Verifier`` does that): RFC 7914's
    /// vectors use a 4-byte salt.
    /// - Throws: ``MatterCryptoError/invalidIterationCount(_:)`` below 1;
    ///   ``MatterCryptoError/libcrypto(function:reason:)`` if OpenSSL refuses.
    public static func sha256(
        password: [UInt8], salt: [UInt8], iterations: Int, byteCount: Int
    ) throws(MatterCryptoError) -> [UInt8] {
        guard iterations >= 1, iterations <= Int(Int32.max) else { throw .invalidIterationCount(iterations) }
        precondition(byteCount > 0 && byteCount <= 1 << 16, "a PBKDF2 output of \(byteCount) bytes is our bug")
        return try LibCrypto.pbkdf2SHA256(password: password, salt: salt, iterations: iterations, byteCount: byteCount)
    }
}
