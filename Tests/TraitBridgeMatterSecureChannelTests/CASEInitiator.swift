import Crypto
import TraitBridgeMatterCredentials
import TraitBridgeMatterCrypto

@testable import TraitBridgeMatterSecureChannel

/// The initiator's side of CASE, built here from the module's messages and ``CASEKeySchedule`` the way
/// connectedhomeip's `SendSigma1`, `HandleSigma2` and `SendSigma3` go, to drive ``CASEResponder``: it
/// checks Sigma2 as a controller would (decrypt, the responder's chain to the shared root, its node ID,
/// its TBSData2 signature) and can alter Sigma3 in the ways the tests need.
struct CASEInitiator {
    /// The initiator's credentials: NOC, optional ICAC, and the NOC's private key.
    struct Identity {
        var noc: [UInt8]
        var icac: [UInt8]?
        var key: P256.Signing.PrivateKey
    }

    /// How to spoil Sigma3.
    enum Tamper {
        case none
        case ciphertext
        case signature
        /// Present another identity (a NOC of another root, another fabric).
        case identity(Identity)
    }

    struct Finished {
        let sigma3: [UInt8]
        let keys: SessionKeys
        let tbe2: SigmaTBEData2
        let sigma2: Sigma2
    }

    enum Refusal: Error { case responderNodeID, responderSignature }

    let ipk: SymmetricKey
    let root: OperationalCertificate
    let peerNodeID: UInt64
    let identity: Identity
    let ephemeral = P256.KeyAgreement.PrivateKey()
    var random = [UInt8](repeating: 0x7E, count: 32)
    var sessionID: UInt16 = 0x4242
    /// The fabric both nodes' NOCs name.
    var fabricID: UInt64 = 0xFAB0_0000_0000_001D

    /// Sigma1 naming (root, fabric, peerNodeID) unless `destinationID` is given.
    func sigma1(destinationID: [UInt8]? = nil, parameters: SessionParameters? = .mrpDefaults) throws -> Sigma1 {
        let destination =
            try destinationID
            ?? FabricIdentifiers.destinationID(
                ipk: ipk, initiatorRandom: random, rootPublicKey: root.publicKey, fabricID: fabricID,
                nodeID: peerNodeID)
        return Sigma1(
            initiatorRandom: random, initiatorSessionID: sessionID, destinationID: destination,
            initiatorEphemeralPublicKey: Array(ephemeral.publicKey.x963Representation),
            initiatorSessionParameters: parameters)
    }

    /// Checks Sigma2 and answers with Sigma3 (spoiled as `tamper` says), deriving the session keys.
    func finish(sigma1: [UInt8], sigma2 payload: [UInt8], tamper: Tamper = .none) throws -> Finished {
        let sigma2 = try Sigma2(decoding: payload)
        let secret = try CASEKeySchedule.sharedSecret(
            privateKey: ephemeral, peerPublicKey: sigma2.responderEphemeralPublicKey)
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
            senderEphemeralPublicKey: sigma2.responderEphemeralPublicKey,
            receiverEphemeralPublicKey: Array(ephemeral.publicKey.x963Representation))
        let responderKey = try P256.Signing.PublicKey(x963Representation: chain.noc.publicKey)
        guard responderKey.isValidSignature(try .init(rawRepresentation: tbe2.signature), for: tbs2.encoded) else {
            throw Refusal.responderSignature
        }

        var presented = identity
        if case .identity(let other) = tamper { presented = other }
        let tbs3 = SigmaTBSData(
            senderNOC: presented.noc, senderICAC: presented.icac,
            senderEphemeralPublicKey: Array(ephemeral.publicKey.x963Representation),
            receiverEphemeralPublicKey: sigma2.responderEphemeralPublicKey)
        var signature = Array(try presented.key.signature(for: tbs3.encoded).rawRepresentation)
        if case .signature = tamper { signature[5] ^= 0x01 }
        let tbe3 = SigmaTBEData3(initiatorNOC: presented.noc, initiatorICAC: presented.icac, signature: signature)
        let s3k = CASEKeySchedule.sigma3Key(sharedSecret: secret, ipk: ipk, sigma1: sigma1, sigma2: payload)
        var encrypted3 = try CASEKeySchedule.seal(tbe3.encoded, key: s3k, nonce: CASEKeySchedule.sigma3Nonce)
        if case .ciphertext = tamper { encrypted3[3] ^= 0x80 }
        let sigma3 = Sigma3(encrypted3: encrypted3).encoded
        let keys = CASEKeySchedule.sessionKeys(
            sharedSecret: secret, ipk: ipk, sigma1: sigma1, sigma2: payload, sigma3: sigma3)
        return Finished(sigma3: sigma3, keys: keys, tbe2: tbe2, sigma2: sigma2)
    }
}
