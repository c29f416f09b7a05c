public import Crypto
public import TraitBridgeMatterCrypto

/// CASE's keys (Matter Core §4.14.2), one function each, so the responder and a test initiator derive
/// them the same way. Checked against connectedhomeip `CASESession.cpp` (`ConstructSaltSigma2`,
/// `ConstructSaltSigma3`, `DeriveSecureSession`, `kKDFSR2Info` "Sigma2", `kKDFSR3Info` "Sigma3",
/// `kTBEData2_Nonce` "NCASE_Sigma2N", `kTBEData3_Nonce` "NCASE_Sigma3N"), rs-matter `casep.rs` and
/// CircuitMatter `session.py`:
/// - shared secret: ECDH P-256, the 32-byte x-coordinate;
/// - S2K = HKDF-SHA256(ikm: shared secret, salt: IPK ‖ responderRandom ‖ responderEphPubKey ‖
///   SHA256(Sigma1), info: "Sigma2", 16);
/// - S3K = HKDF-SHA256(ikm: shared secret, salt: IPK ‖ SHA256(Sigma1 ‖ Sigma2), info: "Sigma3", 16);
/// - session keys = HKDF-SHA256(ikm: shared secret, salt: IPK ‖ SHA256(Sigma1 ‖ Sigma2 ‖ Sigma3),
///   info: "SessionKeys", 48) = I2R ‖ R2I ‖ attestation challenge;
/// - TBEData2/3 sealed with AES-128-CCM, the 13-byte ASCII nonce, no additional data, a 16-byte MIC.
///
/// The hashed messages are the TLV payloads exactly as they crossed the wire (the SDK hashes the received
/// buffer and the buffer it sends; CircuitMatter re-encodes, which only agrees for canonical encodings).
/// IPK is the operational group key (``FabricIdentifiers/operationalGroupKey(epochKey:compressedFabricID:)``).
public enum CASEKeySchedule {
    public static let sigma2Nonce = Array("NCASE_Sigma2N".utf8)
    public static let sigma3Nonce = Array("NCASE_Sigma3N".utf8)

    /// The ECDH shared secret of `privateKey` and `peerPublicKey` (65 bytes, uncompressed).
    /// - Throws: ``MatterCryptoError/invalidPoint(name:)`` when the peer's key is no point on the curve.
    public static func sharedSecret(
        privateKey: P256.KeyAgreement.PrivateKey, peerPublicKey: [UInt8]
    ) throws(MatterCryptoError) -> SymmetricKey {
        guard peerPublicKey.count == CASEConstants.pointByteCount, peerPublicKey.first == 0x04,
            let peer = try? P256.KeyAgreement.PublicKey(x963Representation: peerPublicKey),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        else { throw .invalidPoint(name: "ephemeral public key") }
        return secret.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    /// S2K, sealing TBEData2.
    public static func sigma2Key(
        sharedSecret: SymmetricKey, ipk: SymmetricKey, responderRandom: [UInt8], responderEphemeralPublicKey: [UInt8],
        sigma1: [UInt8]
    ) -> SymmetricKey {
        let salt = bytes(ipk) + responderRandom + responderEphemeralPublicKey + Array(SHA256.hash(data: sigma1))
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: sharedSecret, salt: salt, info: Array("Sigma2".utf8), outputByteCount: 16)
    }

    /// S3K, sealing TBEData3.
    public static func sigma3Key(
        sharedSecret: SymmetricKey, ipk: SymmetricKey, sigma1: [UInt8], sigma2: [UInt8]
    ) -> SymmetricKey {
        let salt = bytes(ipk) + Array(SHA256.hash(data: sigma1 + sigma2))
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: sharedSecret, salt: salt, info: Array("Sigma3".utf8), outputByteCount: 16)
    }

    /// The session's keys once Sigma3 checked out.
    public static func sessionKeys(
        sharedSecret: SymmetricKey, ipk: SymmetricKey, sigma1: [UInt8], sigma2: [UInt8], sigma3: [UInt8]
    ) -> SessionKeys {
        SessionKeys(secret: sharedSecret, salt: bytes(ipk) + Array(SHA256.hash(data: sigma1 + sigma2 + sigma3)))
    }

    /// `plaintext` sealed under `key` and `nonce` (no additional data): ciphertext ‖ 16-byte MIC.
    public static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8]) throws(MatterCryptoError)
        -> [UInt8]
    {
        try AESCCM.seal(key: key, nonce: nonce, plaintext: plaintext, aad: [])
    }

    /// The plaintext of `sealed`, only when its MIC matches (checked by libcrypto, in constant time).
    public static func open(_ sealed: [UInt8], key: SymmetricKey, nonce: [UInt8]) throws(MatterCryptoError)
        -> [UInt8]
    {
        try AESCCM.open(key: key, nonce: nonce, sealed: sealed, aad: [])
    }

    static func bytes(_ key: SymmetricKey) -> [UInt8] { key.withUnsafeBytes { Array($0) } }
}
