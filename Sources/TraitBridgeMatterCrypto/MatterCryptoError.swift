/// Why a Matter cryptographic operation failed. libcrypto's return codes become this in one place
/// (`LibCrypto.check`); the rest are checks of our own on untrusted input. No case carries a
/// secret (passcode, w0, w1, key, plaintext), so the descriptions are safe to log.
public enum MatterCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A libcrypto call failed: the function and OpenSSL's reason (`ERR_error_string_n`).
    case libcrypto(function: String, reason: String)
    /// An AES-CCM key that is not 16 bytes (AES-128).
    case invalidKeyLength(Int)
    /// A CCM nonce outside 7...13 bytes (13 for Matter).
    case invalidNonceLength(Int)
    /// A CCM tag length that RFC 3610 does not allow (4, 6, ..., 16; 16 for Matter).
    case invalidTagLength(Int)
    /// A message longer than CCM can carry with this nonce length (65 535 bytes with 13-byte nonces).
    case messageTooLong(Int, limit: Int)
    /// A sealed message shorter than its tag.
    case ciphertextTooShort(Int)
    /// The tag (MIC) does not match: the message, its header or the nonce was altered, or another key sealed it.
    case authenticationFailed
    /// A passcode outside 00000001...99999998 or one the Matter spec forbids (§5.1.7.1). Its value is not kept.
    case invalidPasscode
    /// A PBKDF salt outside 16...32 bytes.
    case invalidSaltLength(Int)
    /// A PBKDF iteration count outside 1000...100 000.
    case invalidIterationCount(Int)
    /// A received or stored point that is not an uncompressed P-256 point on the curve (65 bytes, 0x04
    /// first), or a computed one at infinity; `name` says which (pA, pB, L, Z, V).
    case invalidPoint(name: String)
    /// A stored scalar (w0, w1) that is not 32 bytes below the group order.
    case invalidScalar(name: String)
    /// A serialized verifier that is not 97 bytes (w0 then L).
    case invalidVerifierLength(Int)
    /// The peer's key confirmation (cA or cB) does not match.
    case confirmationMismatch(name: String)
    /// A handshake step called out of order, or after the handshake ended.
    case handshakeOutOfOrder(step: String, state: String)

    public var description: String {
        switch self {
        case .libcrypto(let function, let reason):
            "libcrypto \(function) failed: \(reason) — check the OpenSSL 3 installation (libssl3)"
        case .invalidKeyLength(let count):
            "AES-CCM key of \(count) bytes: Matter uses AES-128, pass the 16-byte session key"
        case .invalidNonceLength(let count):
            "AES-CCM nonce of \(count) bytes: CCM takes 7 to 13, Matter's is 13 (security flags, counter, node id)"
        case .invalidTagLength(let count):
            "AES-CCM tag of \(count) bytes: CCM allows 4, 6, 8, 10, 12, 14 or 16, Matter uses 16"
        case .messageTooLong(let count, let limit):
            "message of \(count) bytes: CCM with this nonce carries at most \(limit); split it"
        case .ciphertextTooShort(let count):
            "sealed message of \(count) bytes is shorter than its tag: drop it"
        case .authenticationFailed:
            "the message's MIC does not match: it was altered or sealed with another key or nonce; drop it"
        case .invalidPasscode:
            "the passcode is outside 00000001...99999998 or a trivial one the Matter spec forbids (§5.1.7.1)"
                + " — choose another"
        case .invalidSaltLength(let count):
            "PBKDF salt of \(count) bytes: Matter requires 16 to 32"
        case .invalidIterationCount(let count):
            "PBKDF iteration count \(count): Matter requires 1000 to 100000 (PBKDF2 itself at least 1)"
        case .invalidPoint(let name):
            "\(name) is not an uncompressed P-256 point on the curve (65 bytes, 0x04 first) or is the identity"
                + " — abort this PASE attempt"
        case .invalidScalar(let name):
            "\(name) is not a 32-byte scalar below the P-256 group order — regenerate the verifier"
        case .invalidVerifierLength(let count):
            "serialized verifier of \(count) bytes: it is w0 (32) then L (65), 97 bytes — regenerate it"
        case .confirmationMismatch(let name):
            "the peer's \(name) does not match: it used another passcode, or a share was altered"
                + " — abort this PASE attempt"
        case .handshakeOutOfOrder(let step, let state):
            "SPAKE2+ \(step) called while \(state) — start a new handshake for a new attempt"
        }
    }
}
