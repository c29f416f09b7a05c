public import Crypto

/// The keys of a session PASE or CASE established (CASE: ``CASEKeySchedule``, the same HKDF with the
/// ECDH shared secret and its salt). For PASE: I2RKey ‖ R2IKey ‖ AttestationChallenge =
/// HKDF-SHA256(IKM: Ke, salt: empty, info: "SessionKeys", 48 bytes), 16 bytes each. As connectedhomeip
/// does it: `PASESession::DeriveSecureSession` passes Ke and an empty salt to `CryptoContext::InitFromSecret`
/// with `kSessionEstablishment` (info `SEKeysInfo` = "SessionKeys"), and `RawKeySessionKeystore::DeriveSessionKeys`
/// splits the 48 bytes in that order; rs-matter `PaseResponder::handle_pasepake3` expands with
/// `SPAKE2_SESSION_KEYS_INFO` and takes the device's decryption key first. It exists so the secret never
/// leaves this type as bytes by accident: description and dump are redacted.
public struct SessionKeys: Sendable {
    /// HKDF's info for keys from a handshake (CASE uses it too; resumption uses "SessionResumptionKeys").
    static let info = Array("SessionKeys".utf8)
    /// HKDF's info for a resumed CASE session's keys (connectedhomeip `RSEKeysInfo`).
    static let resumptionInfo = Array("SessionResumptionKeys".utf8)

    /// The 48 bytes (kept as bytes: swift-crypto's SymmetricKey is not Sendable).
    private let material: [UInt8]

    /// Seals what the initiator (commissioner) sends; the device as responder opens with it.
    public var initiatorToResponder: SymmetricKey { SymmetricKey(data: material[0..<16]) }
    /// Seals what the responder (device) sends.
    public var responderToInitiator: SymmetricKey { SymmetricKey(data: material[16..<32]) }
    /// 16 bytes both sides put in attestation and CSR requests' signed data, proving it is this session.
    public var attestationChallenge: [UInt8] { Array(material[32..<48]) }

    /// The keys from a PASE handshake's Ke (``VerifierHandshake/confirm(pake3:)``,
    /// ``ProverHandshake/finish(pake2:)``).
    public init(paseKe ke: SymmetricKey) { self.init(secret: ke, salt: []) }

    /// HKDF-SHA256(IKM: `secret`, salt: `salt`, info: `info`, 48 bytes): PASE passes Ke and no salt;
    /// CASE passes the ECDH shared secret and IPK ‖ SHA256(Sigma1 ‖ Sigma2 ‖ Sigma3); a resumed CASE
    /// session the stored shared secret, initiatorRandom ‖ resumptionID and "SessionResumptionKeys".
    init(secret: SymmetricKey, salt: [UInt8], info: [UInt8] = info) {
        material = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: secret, salt: salt, info: info, outputByteCount: 48
        ).withUnsafeBytes { Array($0) }
    }

    /// Which end of the session a node is.
    public enum Role: Sendable, Hashable {
        /// The commissioner, which sent PBKDFParamRequest.
        case initiator
        /// The device.
        case responder
    }

    /// The key `role` seals its messages with: I2R for the initiator, R2I for the responder.
    public func sealingKey(for role: Role) -> SymmetricKey {
        role == .initiator ? initiatorToResponder : responderToInitiator
    }

    /// The key `role` opens its peer's messages with.
    public func openingKey(for role: Role) -> SymmetricKey {
        role == .initiator ? responderToInitiator : initiatorToResponder
    }
}

extension SessionKeys: Equatable {
    /// All 48 bytes, in constant time (as SymmetricKey compares).
    public static func == (lhs: SessionKeys, rhs: SessionKeys) -> Bool {
        SymmetricKey(data: lhs.material) == SymmetricKey(data: rhs.material)
    }
}

extension SessionKeys: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SessionKeys(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
