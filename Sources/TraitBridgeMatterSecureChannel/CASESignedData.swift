import TraitBridgeMatterCodec

/// The data a CASE peer signs with its operational key: TBSData2 (the responder's) and TBSData3 (the
/// initiator's) share one layout, `{1 senderNOC, 2 senderICAC (optional), 3 senderEphPubKey,
/// 4 receiverEphPubKey}` (connectedhomeip `CASESession::ConstructTBSData`; rs-matter
/// `validate_peer_tbs_signature`). It exists so both sides build the exact bytes the signature covers;
/// it is never sent, so it has no decoder. An empty ICAC is left out, as the SDK leaves it out.
public struct SigmaTBSData: Sendable, Hashable {
    /// The sender's NOC and ICAC in TLV, exactly as it sends them.
    public var senderNOC: [UInt8]
    public var senderICAC: [UInt8]?
    public var senderEphemeralPublicKey: [UInt8]
    public var receiverEphemeralPublicKey: [UInt8]

    public init(
        senderNOC: [UInt8], senderICAC: [UInt8]?, senderEphemeralPublicKey: [UInt8], receiverEphemeralPublicKey: [UInt8]
    ) {
        self.senderNOC = senderNOC
        self.senderICAC = senderICAC
        self.senderEphemeralPublicKey = senderEphemeralPublicKey
        self.receiverEphemeralPublicKey = receiverEphemeralPublicKey
    }

    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(senderNOC), 2: senderICAC.flatMap { $0.isEmpty ? nil : .octets($0) },
            3: .octets(senderEphemeralPublicKey),
            4: .octets(receiverEphemeralPublicKey),
        ])
    }
}

/// TBEData2, what Sigma2 seals: `{1 responderNOC, 2 responderICAC (optional), 3 signature octets[64]
/// (raw r ‖ s over ``SigmaTBSData``), 4 resumptionID octets[16]}` (connectedhomeip `kTag_TBEData_*`).
/// It exists so the device writes it and a test initiator reads it back.
public struct SigmaTBEData2: Sendable, Hashable {
    static let name = "TBEData2"

    public var responderNOC: [UInt8]
    public var responderICAC: [UInt8]?
    public var signature: [UInt8]
    /// A fresh random for a later resumption; sent even though this responder does not resume.
    public var resumptionID: [UInt8]

    public init(responderNOC: [UInt8], responderICAC: [UInt8]?, signature: [UInt8], resumptionID: [UInt8]) {
        self.responderNOC = responderNOC
        self.responderICAC = responderICAC
        self.signature = signature
        self.resumptionID = resumptionID
    }

    /// - Throws: ``PASEMessageError`` naming the field.
    public init(decoding plaintext: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(plaintext, message: Self.name)
        self.init(
            responderNOC: try reader.certificate(1, "responderNOC"),
            responderICAC: try reader.optionalCertificate(2, "responderICAC"),
            signature: try reader.octets(3, "signature", count: CASEConstants.signatureByteCount),
            resumptionID: try reader.octets(4, "resumptionID", count: CASEConstants.resumptionIDByteCount))
    }

    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(responderNOC), 2: responderICAC.map { .octets($0) }, 3: .octets(signature),
            4: .octets(resumptionID),
        ])
    }
}

/// TBEData3, what Sigma3 seals: `{1 initiatorNOC, 2 initiatorICAC (optional), 3 signature octets[64]}`.
/// It exists so the device reads it strictly (every field named in errors) and a test initiator writes it.
public struct SigmaTBEData3: Sendable, Hashable {
    static let name = "TBEData3"

    public var initiatorNOC: [UInt8]
    public var initiatorICAC: [UInt8]?
    public var signature: [UInt8]

    public init(initiatorNOC: [UInt8], initiatorICAC: [UInt8]?, signature: [UInt8]) {
        self.initiatorNOC = initiatorNOC
        self.initiatorICAC = initiatorICAC
        self.signature = signature
    }

    /// - Throws: ``PASEMessageError`` naming the field.
    public init(decoding plaintext: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(plaintext, message: Self.name)
        self.init(
            initiatorNOC: try reader.certificate(1, "initiatorNOC"),
            initiatorICAC: try reader.optionalCertificate(2, "initiatorICAC"),
            signature: try reader.octets(3, "signature", count: CASEConstants.signatureByteCount))
    }

    public var encoded: [UInt8] {
        TLVElement.encodedStructure([
            1: .octets(initiatorNOC), 2: initiatorICAC.map { .octets($0) }, 3: .octets(signature),
        ])
    }
}

extension MessageReader {
    /// A certificate member: octets of at most 400 bytes (decoding the certificate is the caller's).
    func certificate(_ tag: UInt8, _ name: String) throws(PASEMessageError) -> [UInt8] {
        let bytes = try octets(tag, name)
        guard bytes.count <= CASEConstants.certificateByteLimit else {
            throw .valueNotAllowed(
                message: message, field: name, reason: "\(bytes.count) bytes; a Matter certificate has at most 400")
        }
        return bytes
    }

    func optionalCertificate(_ tag: UInt8, _ name: String) throws(PASEMessageError) -> [UInt8]? {
        guard root[tag] != nil else { return nil }
        return try certificate(tag, name)
    }
}
