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
/// - TBEData2/3 sealed with AES-128-CCM, the 13-byte ASCII nonce, no additional data, a 16-byte MIC;
/// - resumption (§4.14.2.2–4.14.2.4; `ConstructSigmaResumeKey`, `GenerateSigmaResumeMIC`, `kKDFS1RKeyInfo`
///   "Sigma1_Resume", `kKDFS2RKeyInfo` "Sigma2_Resume", `kResume1MIC_Nonce` "NCASE_SigmaS1",
///   `kResume2MIC_Nonce` "NCASE_SigmaS2"): S1RK/S2RK = HKDF-SHA256(ikm: the earlier session's shared
///   secret, salt: initiatorRandom ‖ resumptionID, info, 16); the MIC is AES-128-CCM's 16-byte tag over
///   nothing under that key and nonce — Sigma1's resumption ID for S1RK, Sigma2_Resume's new one for S2RK;
///   the resumed session's keys = HKDF-SHA256(ikm: shared secret, salt: initiatorRandom ‖ Sigma1's
///   resumptionID, info: "SessionResumptionKeys", 48) (`DeriveSecureSession`, `kFinishedViaResume`).
///
/// The hashed messages are the TLV payloads exactly as they crossed the wire (the SDK hashes the received
/// buffer and the buffer it sends; CircuitMatter re-encodes, which only agrees for canonical encodings).
/// IPK is the operational group key (``FabricIdentifiers/operationalGroupKey(epochKey:compressedFabricID:)``).
public enum CASEKeySchedule {
    public static let sigma2Nonce = Array("NCASE_Sigma2N".utf8)
    public static let sigma3Nonce = Array("NCASE_Sigma3N".utf8)

    /// Which resumption MIC: Sigma1's (initiatorResumeMIC) or Sigma2_Resume's (sigma2ResumeMIC).
    public enum ResumeStep: Sendable, Hashable {
        case sigma1
        case sigma2

        var info: [UInt8] { Array((self == .sigma1 ? "Sigma1_Resume" : "Sigma2_Resume").utf8) }
        var nonce: [UInt8] { Array((self == .sigma1 ? "NCASE_SigmaS1" : "NCASE_SigmaS2").utf8) }
    }

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

    /// S1RK or S2RK: the key of `step`'s resumption MIC.
    public static func resumeKey(
        _ step: ResumeStep, sharedSecret: SymmetricKey, initiatorRandom: [UInt8], resumptionID: [UInt8]
    ) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: sharedSecret, salt: initiatorRandom + resumptionID, info: step.info, outputByteCount: 16)
    }

    /// `step`'s resumption MIC: the 16-byte AES-CCM tag of an empty message under its key and nonce.
    public static func resumeMIC(
        _ step: ResumeStep, sharedSecret: SymmetricKey, initiatorRandom: [UInt8], resumptionID: [UInt8]
    ) throws(MatterCryptoError) -> [UInt8] {
        let key = resumeKey(
            step, sharedSecret: sharedSecret, initiatorRandom: initiatorRandom, resumptionID: resumptionID)
        return try seal([], key: key, nonce: step.nonce)
    }

    /// Whether `mic` is `step`'s resumption MIC, checked by opening it (libcrypto compares the tag in
    /// constant time), as connectedhomeip `ValidateSigmaResumeMIC` does.
    public static func isResumeMIC(
        _ mic: [UInt8], _ step: ResumeStep, sharedSecret: SymmetricKey, initiatorRandom: [UInt8], resumptionID: [UInt8]
    ) -> Bool {
        guard mic.count == CASEConstants.micByteCount else { return false }
        let key = resumeKey(
            step, sharedSecret: sharedSecret, initiatorRandom: initiatorRandom, resumptionID: resumptionID)
        do {
            return try open(mic, key: key, nonce: step.nonce).isEmpty
        } catch {
            return false  // the tag does not match: not this secret, random or resumption ID
        }
    }

    /// A resumed session's keys: salt initiatorRandom ‖ Sigma1's resumption ID (the one resumed, not the new one).
    public static func resumedSessionKeys(
        sharedSecret: SymmetricKey, initiatorRandom: [UInt8], resumptionID: [UInt8]
    ) -> SessionKeys {
        SessionKeys(secret: sharedSecret, salt: initiatorRandom + resumptionID, info: SessionKeys.resumptionInfo)
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
