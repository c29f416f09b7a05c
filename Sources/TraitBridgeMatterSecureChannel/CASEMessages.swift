import TraitBridgeMatterCodec

/// Sizes the CASE messages share (Matter Core §4.14.2; connectedhomeip `kSigmaParamRandomNumberSize`,
/// `kCASEResumptionIDSize`, `CHIP_CRYPTO_AEAD_MIC_LENGTH_BYTES`, `kP256_ECDSA_Signature_Length_Raw`).
enum CASEConstants {
    static let randomByteCount = 32
    static let destinationIDByteCount = 32
    static let pointByteCount = 65
    static let resumptionIDByteCount = 16
    /// A P-256 ECDH shared secret (connectedhomeip `kP256_ECDH_Secret_Length`).
    static let sharedSecretByteCount = 32
    static let micByteCount = 16
    static let signatureByteCount = 64
    /// A TLV certificate's bound (Matter Core §6.5.2), as `OperationalCertificate.maximumTLVLength`.
    static let certificateByteLimit = 400
}

/// Sigma1 (Secure Channel opcode 0x30), the initiator's opening of CASE: its random, its session ID, the
/// destination ID naming the fabric and node it wants, its ephemeral public key. It exists so the
/// responder reads it strictly and a test initiator writes it. Layout (connectedhomeip `CASESession.cpp`
/// `ParseSigma1`, rs-matter `Sigma1Req`, CircuitMatter `case.py`): `{1 initiatorRandom octets[32],
/// 2 initiatorSessionId u16, 3 destinationId octets[32], 4 initiatorEphPubKey octets[65],
/// 5 initiatorSessionParams (optional), 6 resumptionID octets[16] (optional), 7 initiatorResumeMIC
/// octets[16] (optional)}`; 6 and 7 come together or not at all.
public struct Sigma1: Sendable, Hashable {
    static let name = "Sigma1"

    public var initiatorRandom: [UInt8]
    /// The session ID the device puts on its messages to the initiator once the session is up.
    public var initiatorSessionID: UInt16
    /// HMAC-SHA256 under the IPK of the random, root key, fabric ID and node ID (``FabricIdentifiers``).
    public var destinationID: [UInt8]
    /// Uncompressed P-256 point.
    public var initiatorEphemeralPublicKey: [UInt8]
    public var initiatorSessionParameters: SessionParameters?
    /// Set when the initiator asks to resume an earlier session (``CASEResponder`` answers Sigma2_Resume
    /// when it holds the record and the MIC checks out, a full Sigma2 otherwise).
    public var resumptionID: [UInt8]?
    /// AES-CCM's tag under S1RK (``CASEKeySchedule/resumeMIC(_:sharedSecret:initiatorRandom:resumptionID:)``).
    public var initiatorResumeMIC: [UInt8]?

    public init(
        initiatorRandom: [UInt8], initiatorSessionID: UInt16, destinationID: [UInt8],
        initiatorEphemeralPublicKey: [UInt8], initiatorSessionParameters: SessionParameters? = nil,
        resumptionID: [UInt8]? = nil, initiatorResumeMIC: [UInt8]? = nil
    ) {
        self.initiatorRandom = initiatorRandom
        self.initiatorSessionID = initiatorSessionID
        self.destinationID = destinationID
        self.initiatorEphemeralPublicKey = initiatorEphemeralPublicKey
        self.initiatorSessionParameters = initiatorSessionParameters
        self.resumptionID = resumptionID
        self.initiatorResumeMIC = initiatorResumeMIC
    }

    /// Reads a payload as received: lengths checked, members in tag order, resumption fields paired.
    /// - Throws: ``PASEMessageError`` naming the field.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        let resumptionID = try reader.optionalOctets(6, "resumptionID", count: CASEConstants.resumptionIDByteCount)
        let mic = try reader.optionalOctets(7, "initiatorResumeMIC", count: CASEConstants.micByteCount)
        guard (resumptionID == nil) == (mic == nil) else {
            throw .valueNotAllowed(
                message: Self.name, field: resumptionID == nil ? "resumptionID" : "initiatorResumeMIC",
                reason: "resumptionID and initiatorResumeMIC must come together")
        }
        self.init(
            initiatorRandom: try reader.octets(1, "initiatorRandom", count: CASEConstants.randomByteCount),
            initiatorSessionID: try reader.uint(2, "initiatorSessionId"),
            destinationID: try reader.octets(3, "destinationId", count: CASEConstants.destinationIDByteCount),
            initiatorEphemeralPublicKey: try reader.octets(
                4, "initiatorEphPubKey", count: CASEConstants.pointByteCount),
            initiatorSessionParameters: try SessionParameters.read(5, of: reader, field: "initiatorSessionParams"),
            resumptionID: resumptionID, initiatorResumeMIC: mic)
    }

    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(initiatorRandom), 2: .unsigned(UInt64(initiatorSessionID)), 3: .octets(destinationID),
            4: .octets(initiatorEphemeralPublicKey), 5: initiatorSessionParameters?.tlv,
            6: resumptionID.map { .octets($0) }, 7: initiatorResumeMIC.map { .octets($0) },
        ])
    }
}

/// Sigma2 (opcode 0x31), the device's answer: its random, session ID and ephemeral key, and TBEData2
/// sealed under S2K (``SigmaTBEData2``). Layout: `{1 responderRandom octets[32], 2 responderSessionId u16,
/// 3 responderEphPubKey octets[65], 4 encrypted2 octets (TBEData2 ‖ 16-byte MIC), 5 responderSessionParams
/// (optional)}`.
public struct Sigma2: Sendable, Hashable {
    static let name = "Sigma2"

    public var responderRandom: [UInt8]
    public var responderSessionID: UInt16
    public var responderEphemeralPublicKey: [UInt8]
    public var encrypted2: [UInt8]
    public var responderSessionParameters: SessionParameters?

    public init(
        responderRandom: [UInt8], responderSessionID: UInt16, responderEphemeralPublicKey: [UInt8],
        encrypted2: [UInt8], responderSessionParameters: SessionParameters? = nil
    ) {
        self.responderRandom = responderRandom
        self.responderSessionID = responderSessionID
        self.responderEphemeralPublicKey = responderEphemeralPublicKey
        self.encrypted2 = encrypted2
        self.responderSessionParameters = responderSessionParameters
    }

    /// - Throws: ``PASEMessageError`` naming the field; encrypted2 must be longer than its MIC.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(
            responderRandom: try reader.octets(1, "responderRandom", count: CASEConstants.randomByteCount),
            responderSessionID: try reader.uint(2, "responderSessionId"),
            responderEphemeralPublicKey: try reader.octets(
                3, "responderEphPubKey", count: CASEConstants.pointByteCount),
            encrypted2: try reader.sealed(4, "encrypted2"),
            responderSessionParameters: try SessionParameters.read(5, of: reader, field: "responderSessionParams"))
    }

    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(responderRandom), 2: .unsigned(UInt64(responderSessionID)),
            3: .octets(responderEphemeralPublicKey), 4: .octets(encrypted2), 5: responderSessionParameters?.tlv,
        ])
    }
}

/// Sigma2_Resume (opcode 0x33), the device's answer to a Sigma1 resuming a session it holds the record
/// of: a new resumption ID, the MIC under S2RK proving it holds the shared secret, its session ID. Layout
/// (connectedhomeip `EncodeSigma2Resume`, `ParseSigma2Resume`; rs-matter `Sigma2ResumeResp`):
/// `{1 resumptionID octets[16], 2 sigma2ResumeMIC octets[16], 3 responderSessionID u16,
/// 4 responderSessionParams (optional)}`.
public struct Sigma2Resume: Sendable, Hashable {
    static let name = "Sigma2_Resume"

    /// The ID the next resumption names.
    public var resumptionID: [UInt8]
    public var sigma2ResumeMIC: [UInt8]
    public var responderSessionID: UInt16
    public var responderSessionParameters: SessionParameters?

    public init(
        resumptionID: [UInt8], sigma2ResumeMIC: [UInt8], responderSessionID: UInt16,
        responderSessionParameters: SessionParameters? = nil
    ) {
        self.resumptionID = resumptionID
        self.sigma2ResumeMIC = sigma2ResumeMIC
        self.responderSessionID = responderSessionID
        self.responderSessionParameters = responderSessionParameters
    }

    /// - Throws: ``PASEMessageError`` naming the field.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(
            resumptionID: try reader.octets(1, "resumptionID", count: CASEConstants.resumptionIDByteCount),
            sigma2ResumeMIC: try reader.octets(2, "sigma2ResumeMIC", count: CASEConstants.micByteCount),
            responderSessionID: try reader.uint(3, "responderSessionID"),
            responderSessionParameters: try SessionParameters.read(4, of: reader, field: "responderSessionParams"))
    }

    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(resumptionID), 2: .octets(sigma2ResumeMIC), 3: .unsigned(UInt64(responderSessionID)),
            4: responderSessionParameters?.tlv,
        ])
    }
}

/// Sigma3 (opcode 0x32), the initiator's proof: TBEData3 sealed under S3K (``SigmaTBEData3``):
/// `{1 encrypted3 octets (TBEData3 ‖ 16-byte MIC)}`.
public struct Sigma3: Sendable, Hashable {
    static let name = "Sigma3"

    public var encrypted3: [UInt8]

    public init(encrypted3: [UInt8]) { self.encrypted3 = encrypted3 }

    /// - Throws: ``PASEMessageError``; encrypted3 must be longer than its MIC (connectedhomeip
    ///   `msg_r3_encrypted_len_with_tag > CHIP_CRYPTO_AEAD_MIC_LENGTH_BYTES`).
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(encrypted3: try reader.sealed(1, "encrypted3"))
    }

    public var encoded: [UInt8] { TLVElement.encodedStructure([1: .octets(encrypted3)]) }
}

extension MessageReader {
    /// The octet-string member `tag` of exactly `count` bytes if present; nil when absent.
    func optionalOctets(_ tag: UInt8, _ name: String, count: Int) throws(PASEMessageError) -> [UInt8]? {
        guard root[tag] != nil else { return nil }
        return try octets(tag, name, count: count)
    }

    /// A sealed blob: more bytes than its MIC.
    func sealed(_ tag: UInt8, _ name: String) throws(PASEMessageError) -> [UInt8] {
        let bytes = try octets(tag, name)
        guard bytes.count > CASEConstants.micByteCount else {
            throw .valueNotAllowed(
                message: message, field: name, reason: "\(bytes.count) bytes, not more than its 16-byte MIC")
        }
        return bytes
    }
}
