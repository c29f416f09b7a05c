public import Crypto

/// AES-128-CCM as Matter seals its messages (Matter Core §3.6, Crypto_AEAD_GenerateEncrypt): a 16-byte
/// key, a 13-byte nonce, a 16-byte MIC after the ciphertext, the message header as additional data.
/// It exists because swift-crypto has no CCM; libcrypto does the work (`EVP_aes_128_ccm`).
public enum AESCCM {
    /// Matter's key length (CRYPTO_SYMMETRIC_KEY_LENGTH_BYTES).
    public static let keyByteCount = 16
    /// Matter's nonce length (CRYPTO_AEAD_NONCE_LENGTH_BYTES): security flags, message counter, source node id.
    public static let nonceByteCount = 13
    /// Matter's MIC length (CRYPTO_AEAD_MIC_LENGTH_BYTES).
    public static let tagByteCount = 16

    /// `plaintext` encrypted, then its 16-byte MIC over `aad` and `plaintext`.
    /// - Throws: ``MatterCryptoError/invalidKeyLength(_:)``, ``MatterCryptoError/invalidNonceLength(_:)``,
    ///   ``MatterCryptoError/messageTooLong(_:limit:)`` (over 65 535 bytes).
    public static func seal(
        key: SymmetricKey, nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]
    ) throws(MatterCryptoError) -> [UInt8] {
        guard nonce.count == nonceByteCount else { throw .invalidNonceLength(nonce.count) }
        return try seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad, tagLength: tagByteCount)
    }

    /// The plaintext of `sealed` (ciphertext then 16-byte MIC), only when the MIC matches `aad` and the
    /// ciphertext; otherwise ``MatterCryptoError/authenticationFailed`` and no plaintext.
    public static func open(
        key: SymmetricKey, nonce: [UInt8], sealed: [UInt8], aad: [UInt8]
    ) throws(MatterCryptoError) -> [UInt8] {
        guard nonce.count == nonceByteCount else { throw .invalidNonceLength(nonce.count) }
        return try open(key: key, nonce: nonce, sealed: sealed, aad: aad, tagLength: tagByteCount)
    }

    // MARK: Any CCM parameters (RFC 3610's vectors use 8- and 10-byte tags)

    static func seal(
        key: SymmetricKey, nonce: [UInt8], plaintext: [UInt8], aad: [UInt8], tagLength: Int
    ) throws(MatterCryptoError) -> [UInt8] {
        try checkLengths(key: key, nonce: nonce, messageCount: plaintext.count, tagLength: tagLength)
        let result = key.withUnsafeBytes { key in
            Result { () throws(MatterCryptoError) in
                try LibCrypto.sealCCM(key: key, nonce: nonce, plaintext: plaintext, aad: aad, tagLength: tagLength)
            }
        }
        return try result.get()
    }

    static func open(
        key: SymmetricKey, nonce: [UInt8], sealed: [UInt8], aad: [UInt8], tagLength: Int
    ) throws(MatterCryptoError) -> [UInt8] {
        guard sealed.count >= tagLength else { throw .ciphertextTooShort(sealed.count) }
        let ciphertext = Array(sealed.dropLast(tagLength))
        let tag = Array(sealed.suffix(tagLength))
        try checkLengths(key: key, nonce: nonce, messageCount: ciphertext.count, tagLength: tagLength)
        let result = key.withUnsafeBytes { key in
            Result { () throws(MatterCryptoError) in
                try LibCrypto.openCCM(key: key, nonce: nonce, ciphertext: ciphertext, tag: tag, aad: aad)
            }
        }
        return try result.get()
    }

    /// RFC 3610 §2: tags of 4...16 even bytes, nonces of 15 − L bytes for L in 2...8, messages below 2^(8L).
    static func checkLengths(
        key: SymmetricKey, nonce: [UInt8], messageCount: Int, tagLength: Int
    ) throws(MatterCryptoError) {
        guard key.bitCount == keyByteCount * 8 else { throw .invalidKeyLength(key.bitCount / 8) }
        guard (7...13).contains(nonce.count) else { throw .invalidNonceLength(nonce.count) }
        guard (4...16).contains(tagLength), tagLength % 2 == 0 else { throw .invalidTagLength(tagLength) }
        let lengthFieldBytes = 15 - nonce.count
        let limit = lengthFieldBytes >= 4 ? Int(Int32.max) : (1 << (8 * lengthFieldBytes)) - 1
        guard messageCount <= limit else { throw .messageTooLong(messageCount, limit: limit) }
    }
}
