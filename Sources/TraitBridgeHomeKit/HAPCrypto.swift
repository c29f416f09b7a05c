import Crypto
import Foundation

/// The small pieces of HAP's cryptography: HKDF-SHA-512 key derivation, ChaCha20-Poly1305 with
/// HAP's nonces (a message label, or a frame counter), each in one place.
enum HAPCrypto {
    /// HKDF-SHA-512 of `key` with HAP's `salt` and `info` strings, 32 bytes.
    static func derive(_ key: [UInt8], salt: String, info: String) -> SymmetricKey {
        HKDF<SHA512>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key), salt: Array(salt.utf8), info: Array(info.utf8),
            outputByteCount: 32)
    }

    /// A pairing message's nonce: four zero bytes, then its eight-byte label ("PS-Msg05").
    static func labelNonce(_ label: String) -> [UInt8] { [0, 0, 0, 0] + Array(label.utf8.prefix(8)) }

    /// A session frame's nonce: four zero bytes, then the frame counter, little-endian.
    static func counterNonce(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) }
    }

    /// Ciphertext then the 16-byte tag.
    static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], aad: [UInt8] = []) -> [UInt8] {
        // A 12-byte nonce and a 32-byte key never fail; the fallback keeps the function total.
        guard let nonce = try? ChaChaPoly.Nonce(data: nonce),
            let box = try? ChaChaPoly.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
        else { return [] }
        return Array(box.ciphertext) + Array(box.tag)
    }

    /// The plaintext of `sealed` (ciphertext then tag), or nil when the tag does not match.
    static func open(_ sealed: [UInt8], key: SymmetricKey, nonce: [UInt8], aad: [UInt8] = []) -> [UInt8]? {
        guard sealed.count >= 16, let nonce = try? ChaChaPoly.Nonce(data: nonce),
            let box = try? ChaChaPoly.SealedBox(
                nonce: nonce, ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        else { return nil }
        return (try? ChaChaPoly.open(box, using: key, authenticating: aad)).map { Array($0) }
    }
}
