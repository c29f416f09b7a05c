import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCredentials
import TraitBridgeMatterCrypto
import TraitBridgeMatterTransport

@testable import TraitBridgeMatterSecureChannel

/// The recorded Apple Home ↔ CircuitMatter CASE exchange replayed: the fabric read out of the PASE
/// session's AddTrustedRootCertificate and AddNOC, the device's keys rebuilt from the recorded randoms,
/// then every derivation of ``CASEKeySchedule`` checked against what Apple sent: if the destination ID,
/// S2K, S3K, the transcript or the session keys were derived any other way, a step would not open.
@Suite("Recorded CASE (Apple Home ↔ CircuitMatter)")
struct RecordedCASETests {
    /// What the device knew of its fabric after commissioning.
    struct Fabric {
        let root: OperationalCertificate
        let chain: CertificateChain
        let ipk: SymmetricKey
    }

    static func fabric() throws -> Fabric {
        var (_, pase) = try RecordedPASETests.replay()
        let ke = try pase.confirm(pake3: try Pake3(decoding: RecordedPASE.payload(RecordedPASE.pake3)).cA)
        let key = SessionKeys(paseKe: ke).openingKey(for: .responder)
        let rootFields = try commandFields(try RecordedPASETests.open(RecordedCASE.addTrustedRootCertificate, key: key))
        let nocFields = try commandFields(try RecordedPASETests.open(RecordedCASE.addNOC, key: key))
        let root = try OperationalCertificate(tlv: try rootFields.octets(0))
        let chain = try CertificateChain.verify(
            noc: try OperationalCertificate(tlv: try nocFields.octets(0)),
            icac: try Self.certificate(nocFields[1]), rcac: root,
            policy: .ignoringTime)
        let ipk = try FabricIdentifiers.operationalGroupKey(
            epochKey: SymmetricKey(data: try nocFields.octets(2, count: 16)),
            compressedFabricID: chain.compressedFabricID)
        return Fabric(root: root, chain: chain, ipk: ipk)
    }

    /// The CommandFields of a secured InvokeRequest's first command: protocol header (6 bytes, + 2 with
    /// V, + 4 with A), then `{2: [{0: path, 1: fields}]}` (Matter Core §10.7.9).
    static func commandFields(_ plaintext: [UInt8]) throws -> TLVValue {
        let flags = plaintext[0]
        let start = 6 + (flags & 0x10 != 0 ? 2 : 0) + (flags & 0x02 != 0 ? 4 : 0)
        let request = try TLVElement(decoding: Array(plaintext[start...])).value
        let command = try #require(try request.array(2).first)
        return try command.structure(1)
    }

    /// An optional certificate field; Apple sends AddNOC's ICACValue empty when it has no ICAC.
    static func certificate(_ field: TLVValue?) throws -> OperationalCertificate? {
        guard let bytes = try field?.asOctets(), !bytes.isEmpty else { return nil }
        return try OperationalCertificate(tlv: bytes)
    }

    static let sigma1 = RecordedPASE.payload(RecordedCASE.sigma1)
    static let sigma2 = RecordedPASE.payload(RecordedCASE.sigma2)
    static let sigma3 = RecordedPASE.payload(RecordedCASE.sigma3)

    @Test("Apple's destination ID names the commissioned fabric; the responder answers it with Sigma2")
    func destination() throws {
        let fabric = try Self.fabric()
        let sigma1 = try Sigma1(decoding: Self.sigma1)
        #expect(sigma1.encoded == Self.sigma1)
        let operationalKey = OperationalKeyPair(
            privateKey: try P256.Signing.PrivateKey(
                rawRepresentation: RecordedCASE.privateKey(fromEntropy: RecordedCASE.operationalKeyEntropy)))
        let caseFabric = try CASEFabric(
            fabricIndex: 1, chain: fabric.chain, ipk: fabric.ipk, operationalKey: operationalKey)
        var device = CASEResponder<Int>(configuration: .init(fabrics: [caseFabric], validityPolicy: .ignoringTime))
        let sent = try #require(device.handle(.sigma1(payload: Self.sigma1, localSessionID: 2), on: 1).sent)
        #expect(sent.opcode == .caseSigma2)
    }

    @Test("with the recorded ephemeral key, S2K opens Sigma2, S3K opens Apple's Sigma3, and both signatures verify")
    func keySchedule() throws {
        let fabric = try Self.fabric()
        let sigma1 = try Sigma1(decoding: Self.sigma1)
        let sigma2 = try Sigma2(decoding: Self.sigma2)
        #expect(sigma2.encoded == Self.sigma2)
        let ephemeral = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: RecordedCASE.privateKey(fromEntropy: RecordedCASE.ephemeralKeyEntropy))
        #expect(Array(ephemeral.publicKey.x963Representation) == sigma2.responderEphemeralPublicKey)
        let secret = try CASEKeySchedule.sharedSecret(
            privateKey: ephemeral, peerPublicKey: sigma1.initiatorEphemeralPublicKey)

        let s2k = CASEKeySchedule.sigma2Key(
            sharedSecret: secret, ipk: fabric.ipk, responderRandom: sigma2.responderRandom,
            responderEphemeralPublicKey: sigma2.responderEphemeralPublicKey, sigma1: Self.sigma1)
        let tbe2 = try SigmaTBEData2(
            decoding: try CASEKeySchedule.open(sigma2.encrypted2, key: s2k, nonce: CASEKeySchedule.sigma2Nonce))
        #expect(tbe2.responderNOC == fabric.chain.noc.tlv && tbe2.responderICAC == nil)
        let tbs2 = SigmaTBSData(
            senderNOC: tbe2.responderNOC, senderICAC: nil, senderEphemeralPublicKey: sigma2.responderEphemeralPublicKey,
            receiverEphemeralPublicKey: sigma1.initiatorEphemeralPublicKey)
        #expect(try Self.verifies(tbe2.signature, of: tbs2.encoded, by: fabric.chain.noc.publicKey))

        let s3k = CASEKeySchedule.sigma3Key(
            sharedSecret: secret, ipk: fabric.ipk, sigma1: Self.sigma1, sigma2: Self.sigma2)
        let tbe3 = try SigmaTBEData3(
            decoding: try CASEKeySchedule.open(
                try Sigma3(decoding: Self.sigma3).encrypted3, key: s3k, nonce: CASEKeySchedule.sigma3Nonce))
        let apple = try CertificateChain.verify(
            noc: try OperationalCertificate(tlv: tbe3.initiatorNOC),
            icac: try Self.certificate(tbe3.initiatorICAC.map { .octets($0) }), rcac: fabric.root,
            policy: .ignoringTime)
        #expect(apple.fabricID == fabric.chain.fabricID)
        let tbs3 = SigmaTBSData(
            senderNOC: tbe3.initiatorNOC, senderICAC: tbe3.initiatorICAC,
            senderEphemeralPublicKey: sigma1.initiatorEphemeralPublicKey,
            receiverEphemeralPublicKey: sigma2.responderEphemeralPublicKey)
        #expect(try Self.verifies(tbe3.signature, of: tbs3.encoded, by: apple.noc.publicKey))

        // The session keys open the first message each way; nonces carry the sender's operational node ID.
        let keys = CASEKeySchedule.sessionKeys(
            sharedSecret: secret, ipk: fabric.ipk, sigma1: Self.sigma1, sigma2: Self.sigma2, sigma3: Self.sigma3)
        let request = try Self.open(
            RecordedCASE.firstSecured, key: keys.openingKey(for: .responder), node: apple.nodeID)
        #expect(request.count > 6)
        let reply = try Self.open(
            RecordedCASE.firstSecuredReply, key: keys.sealingKey(for: .responder), node: fabric.chain.nodeID)
        #expect(reply.count > 6)
        let (opcode, status) = RecordedPASE.unsecured(RecordedCASE.statusReport)
        #expect(opcode == 0x40)
        #expect(try StatusReport(decoding: status) == .secureChannel(.sessionEstablishmentSuccess))
    }

    static func verifies(_ signature: [UInt8], of message: [UInt8], by publicKey: [UInt8]) throws -> Bool {
        try P256.Signing.PublicKey(x963Representation: publicKey).isValidSignature(
            try .init(rawRepresentation: signature), for: message)
    }

    /// A secured unicast datagram without S or DSIZ: header (8 bytes) as additional data, nonce = security
    /// flags ‖ counter ‖ the sender's node ID (little-endian), 16-byte MIC at the end.
    static func open(_ datagram: [UInt8], key: SymmetricKey, node: UInt64) throws -> [UInt8] {
        let header = Array(datagram.prefix(8))
        let nonce = [header[3]] + header[4..<8] + (0..<8).map { UInt8(truncatingIfNeeded: node >> (8 * $0)) }
        return try AESCCM.open(key: key, nonce: nonce, sealed: Array(datagram.dropFirst(8)), aad: header)
    }
}
