public import Crypto
public import TraitBridgeMatterCredentials
import TraitBridgeMatterCrypto

/// The initiator's side of CASE, built from the module's messages and ``CASEKeySchedule`` the way
/// connectedhomeip's `SendSigma1`, `HandleSigma2` and `SendSigma3` go (and `HandleSigma2Resume` for a
/// resumption, in `CASEInitiator+Resume.swift`). It exists so the responder's tests
/// and the `matter-case` fuzz target drive ``CASEResponder`` with a real handshake, as ``PASEInitiator``
/// does for PASE: it checks Sigma2 as a controller would (decrypt, the responder's chain to the shared
/// root, its node ID, its TBSData2 signature), can alter Sigma3 in the ways the tests need, and seals
/// any TBEData3 under the running handshake's S3K. A value type: the caller frames and sends.
public struct CASEInitiator {
    /// The initiator's credentials: NOC, optional ICAC, and the NOC's private key.
    public struct Identity {
        public var noc: [UInt8]
        public var icac: [UInt8]?
        public var key: P256.Signing.PrivateKey

        public init(noc: [UInt8], icac: [UInt8]?, key: P256.Signing.PrivateKey) {
            self.noc = noc
            self.icac = icac
            self.key = key
        }
    }

    /// How to spoil Sigma3.
    public enum Tamper {
        case none
        case ciphertext
        case signature
        /// Present another identity (a NOC of another root, another fabric).
        case identity(Identity)
    }

    /// Sigma3, what it sealed, the session keys, the responder's Sigma2 as read, and what a later
    /// resumption names.
    public struct Finished {
        public let sigma3: [UInt8]
        public let tbe3: SigmaTBEData3
        public let keys: SessionKeys
        public let tbe2: SigmaTBEData2
        public let sigma2: Sigma2
        public let ticket: ResumptionTicket
    }

    /// Why a Sigma2 that decrypted is not the peer's, or a Sigma2_Resume's MIC is wrong.
    public enum Refusal: Error { case responderNodeID, responderSignature, sigma2ResumeMIC }

    public let ipk: SymmetricKey
    public let root: OperationalCertificate
    public let peerNodeID: UInt64
    public let identity: Identity
    public let ephemeral = P256.KeyAgreement.PrivateKey()
    public var random = [UInt8](repeating: 0x7E, count: 32)
    public var sessionID: UInt16 = 0x4242
    /// The fabric both nodes' NOCs name.
    public var fabricID: UInt64 = 0xFAB0_0000_0000_001D

    /// An initiator on the fabric of `root` and `ipk`, presenting `identity` to the node `peerNodeID`.
    public init(ipk: SymmetricKey, root: OperationalCertificate, peerNodeID: UInt64, identity: Identity) {
        self.ipk = ipk
        self.root = root
        self.peerNodeID = peerNodeID
        self.identity = identity
    }

    /// The ephemeral public key Sigma1 carries (65 bytes, uncompressed).
    public var ephemeralPublicKey: [UInt8] { Array(ephemeral.publicKey.x963Representation) }

    /// Sigma1 naming (root, fabric, peerNodeID) unless `destinationID` is given.
    public func sigma1(destinationID: [UInt8]? = nil, parameters: SessionParameters? = .mrpDefaults) throws -> Sigma1 {
        let destination =
            try destinationID
            ?? FabricIdentifiers.destinationID(
                ipk: ipk, initiatorRandom: random, rootPublicKey: root.publicKey, fabricID: fabricID,
                nodeID: peerNodeID)
        return Sigma1(
            initiatorRandom: random, initiatorSessionID: sessionID, destinationID: destination,
            initiatorEphemeralPublicKey: ephemeralPublicKey, initiatorSessionParameters: parameters)
    }

    /// Checks Sigma2 and answers with Sigma3 (spoiled as `tamper` says), deriving the session keys.
    public func finish(sigma1: [UInt8], sigma2 payload: [UInt8], tamper: Tamper = .none) throws -> Finished {
        let sigma2 = try Sigma2(decoding: payload)
        let secret = try sharedSecret(sigma2)
        let s2k = CASEKeySchedule.sigma2Key(
            sharedSecret: secret, ipk: ipk, responderRandom: sigma2.responderRandom,
            responderEphemeralPublicKey: sigma2.responderEphemeralPublicKey, sigma1: sigma1)
        let tbe2 = try SigmaTBEData2(
            decoding: try CASEKeySchedule.open(sigma2.encrypted2, key: s2k, nonce: CASEKeySchedule.sigma2Nonce))
        let chain = try CertificateChain.verify(
            noc: try OperationalCertificate(tlv: tbe2.responderNOC),
            icac: try tbe2.responderICAC.map { try OperationalCertificate(tlv: $0) }, rcac: root,
            policy: .ignoringTime)
        guard chain.nodeID == peerNodeID else { throw Refusal.responderNodeID }
        let tbs2 = SigmaTBSData(
            senderNOC: tbe2.responderNOC, senderICAC: tbe2.responderICAC,
            senderEphemeralPublicKey: sigma2.responderEphemeralPublicKey, receiverEphemeralPublicKey: ephemeralPublicKey
        )
        let responderKey = try P256.Signing.PublicKey(x963Representation: chain.noc.publicKey)
        guard responderKey.isValidSignature(try .init(rawRepresentation: tbe2.signature), for: tbs2.encoded) else {
            throw Refusal.responderSignature
        }

        var presented = identity
        if case .identity(let other) = tamper { presented = other }
        var signature = try self.signature(
            noc: presented.noc, icac: presented.icac, key: presented.key,
            responderEphemeralPublicKey: sigma2.responderEphemeralPublicKey)
        if case .signature = tamper { signature[5] ^= 0x01 }
        let tbe3 = SigmaTBEData3(initiatorNOC: presented.noc, initiatorICAC: presented.icac, signature: signature)
        var encrypted3 = try seal(tbe3.encoded, secret: secret, sigma1: sigma1, sigma2: payload)
        if case .ciphertext = tamper { encrypted3[3] ^= 0x80 }
        let sigma3 = Sigma3(encrypted3: encrypted3).encoded
        let keys = CASEKeySchedule.sessionKeys(
            sharedSecret: secret, ipk: ipk, sigma1: sigma1, sigma2: payload, sigma3: sigma3)
        return Finished(
            sigma3: sigma3, tbe3: tbe3, keys: keys, tbe2: tbe2, sigma2: sigma2,
            ticket: ResumptionTicket(resumptionID: tbe2.resumptionID, sharedSecret: CASEKeySchedule.bytes(secret)))
    }

    /// TBSData3's signature (raw r ‖ s) by `key` over `noc` and `icac`, our ephemeral key and the responder's.
    public func signature(
        noc: [UInt8], icac: [UInt8]?, key: P256.Signing.PrivateKey, responderEphemeralPublicKey: [UInt8]
    ) throws -> [UInt8] {
        let tbs3 = SigmaTBSData(
            senderNOC: noc, senderICAC: icac, senderEphemeralPublicKey: ephemeralPublicKey,
            receiverEphemeralPublicKey: responderEphemeralPublicKey)
        return Array(try key.signature(for: tbs3.encoded).rawRepresentation)
    }

    /// Sigma3 sealing `plaintext` (any bytes, in place of TBEData3) under the S3K of `sigma1` and `sigma2`,
    /// without checking Sigma2 beyond its decoding.
    public func sigma3(sealing plaintext: [UInt8], sigma1: [UInt8], sigma2: [UInt8]) throws -> [UInt8] {
        let secret = try sharedSecret(try Sigma2(decoding: sigma2))
        return Sigma3(encrypted3: try seal(plaintext, secret: secret, sigma1: sigma1, sigma2: sigma2)).encoded
    }

    /// The session keys a handshake of these three messages derives.
    public func sessionKeys(sigma1: [UInt8], sigma2: [UInt8], sigma3: [UInt8]) throws -> SessionKeys {
        CASEKeySchedule.sessionKeys(
            sharedSecret: try sharedSecret(try Sigma2(decoding: sigma2)), ipk: ipk, sigma1: sigma1, sigma2: sigma2,
            sigma3: sigma3)
    }

    private func sharedSecret(_ sigma2: Sigma2) throws -> SymmetricKey {
        try CASEKeySchedule.sharedSecret(privateKey: ephemeral, peerPublicKey: sigma2.responderEphemeralPublicKey)
    }

    private func seal(_ plaintext: [UInt8], secret: SymmetricKey, sigma1: [UInt8], sigma2: [UInt8]) throws -> [UInt8] {
        let s3k = CASEKeySchedule.sigma3Key(sharedSecret: secret, ipk: ipk, sigma1: sigma1, sigma2: sigma2)
        return try CASEKeySchedule.seal(plaintext, key: s3k, nonce: CASEKeySchedule.sigma3Nonce)
    }
}
