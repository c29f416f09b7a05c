import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCredentials
import TraitBridgeMatterCrypto
import TraitBridgeMatterTransport
import TraitBridgeTesting

@testable import TraitBridgeMatterSecureChannel

/// The device's CASE responder against ``CASEInitiator`` with connectedhomeip's test certificates: the
/// device is Node01_02 (under Root01 directly), the initiator Node01_01 (under Root01 through ICA01).
@Suite("CASE responder")
struct CASEResponderTests {
    typealias Responder = CASEResponder<Int>
    typealias Credentials = MatterTestCertificates

    static let root = try! OperationalCertificate(tlv: Credentials.root01TLV)
    static let deviceChain = try! CertificateChain.verify(
        noc: try! OperationalCertificate(tlv: Credentials.node0102TLV), icac: nil, rcac: root, policy: .ignoringTime)
    static var epochKey: SymmetricKey { SymmetricKey(data: Array(0..<16) as [UInt8]) }
    static var ipk: SymmetricKey {
        try! FabricIdentifiers.operationalGroupKey(
            epochKey: epochKey, compressedFabricID: deviceChain.compressedFabricID)
    }

    static func fabric(index: UInt8 = 1, ipk: SymmetricKey = ipk) throws -> CASEFabric {
        try CASEFabric(
            fabricIndex: index, chain: deviceChain, ipk: ipk,
            operationalKey: OperationalKeyPair(
                privateKey: try P256.Signing.PrivateKey(rawRepresentation: Credentials.node0102PrivateKey)))
    }

    static func device(fabrics: [CASEFabric]? = nil, policy: ValidityPolicy = .ignoringTime) throws -> Responder {
        Responder(configuration: .init(fabrics: try fabrics ?? [fabric()], validityPolicy: policy))
    }

    static var initiatorIdentity: CASEInitiator.Identity {
        CASEInitiator.Identity(
            noc: Credentials.node0101TLV, icac: Credentials.ica01TLV,
            key: try! P256.Signing.PrivateKey(rawRepresentation: Credentials.node0101PrivateKey))
    }

    static func initiator(ipk: SymmetricKey = ipk) -> CASEInitiator {
        CASEInitiator(ipk: ipk, root: root, peerNodeID: 0xDEDE_DEDE_0001_0002, identity: initiatorIdentity)
    }

    /// Sigma1 in, Sigma2 out, Sigma3 built (and spoiled as asked): the device's answer to Sigma3.
    static func run(
        _ device: inout Responder, _ initiator: CASEInitiator = initiator(), tamper: CASEInitiator.Tamper = .none
    ) throws -> (Responder.Action, CASEInitiator.Finished) {
        let sigma1 = try initiator.sigma1().encoded
        var generator = SeededGenerator(seed: 5)
        let sent = try #require(
            device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1, using: &generator).sent)
        #expect(sent.opcode == .caseSigma2 && sent.exchange == 1)
        let finished = try initiator.finish(sigma1: sigma1, sigma2: sent.payload, tamper: tamper)
        return (device.handle(.sigma3(payload: finished.sigma3), on: 1), finished)
    }

    static let invalidParameter = StatusReport.secureChannel(.invalidParameter).encoded

    @Test("initiator and device derive the same session keys; the device learns the peer and answers SUCCESS")
    func agreement() throws {
        var device = try Self.device()
        let (action, finished) = try Self.run(&device)
        guard case .established(let established) = action else {
            Issue.record("no session: \(action)")
            return
        }
        #expect(established.keys == finished.keys)
        #expect(established.peerNodeID == 0xDEDE_DEDE_0001_0001 && established.peerCASEAuthenticatedTags.isEmpty)
        #expect(established.localSessionID == 9 && established.peerSessionID == 0x4242 && established.fabricIndex == 1)
        #expect(established.peerSessionParameters == .mrpDefaults)
        #expect(
            established.reply
                == .init(
                    opcode: .statusReport, payload: StatusReport.secureChannel(.sessionEstablishmentSuccess).encoded,
                    exchange: 1))
        #expect(finished.sigma2.responderSessionID == 9 && finished.sigma2.responderSessionParameters == .mrpDefaults)
        #expect(finished.tbe2.responderICAC == nil && finished.tbe2.resumptionID.count == 16)
        #expect(device.phase == "listening")
        // The device listens again: a second handshake on another exchange succeeds too.
        guard case .established = try Self.run(&device).0 else {
            Issue.record("second handshake refused")
            return
        }
    }

    @Test("with two fabrics, the one whose IPK makes the destination ID is chosen")
    func secondFabric() throws {
        let otherIPK = SymmetricKey(data: [UInt8](repeating: 0x33, count: 16))
        var device = try Self.device(fabrics: [try Self.fabric(index: 1), try Self.fabric(index: 2, ipk: otherIPK)])
        guard case .established(let established) = try Self.run(&device, Self.initiator(ipk: otherIPK)).0 else {
            Issue.record("no session")
            return
        }
        #expect(established.fabricIndex == 2)
    }

    @Test("a destination ID of no fabric gets NO_SHARED_TRUST_ROOTS")
    func noSharedTrustRoot() throws {
        var device = try Self.device()
        let sigma1 = try Self.initiator().sigma1(destinationID: [UInt8](repeating: 1, count: 32))
        let failure = try #require(device.handle(.sigma1(payload: sigma1.encoded, localSessionID: 9), on: 3).failure)
        #expect(failure.error == .noSharedTrustRoot)
        #expect(failure.reply?.payload == StatusReport.secureChannel(.noSharedTrustRoots).encoded)
        #expect(try StatusReport(decoding: failure.reply?.payload ?? []).generalCode == .failure)
        #expect(device.phase == "listening")
    }

    @Test("a Sigma1 asking for resumption gets a full Sigma2; half the resumption fields is malformed")
    func resumption() throws {
        var device = try Self.device()
        var sigma1 = try Self.initiator().sigma1()
        sigma1.resumptionID = [UInt8](repeating: 9, count: 16)
        sigma1.initiatorResumeMIC = [UInt8](repeating: 8, count: 16)
        #expect(device.handle(.sigma1(payload: sigma1.encoded, localSessionID: 9), on: 1).sent?.opcode == .caseSigma2)
        var half = sigma1
        half.initiatorResumeMIC = nil
        var other = try Self.device()
        let failure = try #require(other.handle(.sigma1(payload: half.encoded, localSessionID: 9), on: 1).failure)
        #expect(
            failure.error
                == .malformedMessage(
                    .valueNotAllowed(
                        message: "Sigma1", field: "initiatorResumeMIC",
                        reason: "resumptionID and initiatorResumeMIC must come together")))
    }

    @Test("an altered encrypted3 fails to decrypt; an altered signature fails to verify")
    func tampered() throws {
        var device = try Self.device()
        let decrypt = try #require(try Self.run(&device, tamper: .ciphertext).0.failure)
        #expect(decrypt.error == .decryptionFailed && decrypt.reply?.payload == Self.invalidParameter)
        let signature = try #require(try Self.run(&device, tamper: .signature).0.failure)
        #expect(signature.error == .signature && signature.reply?.payload == Self.invalidParameter)
    }

    @Test("a NOC of another root is refused by the chain check")
    func otherRoot() throws {
        var device = try Self.device()
        let stranger = CASEInitiator.Identity(
            noc: Credentials.node0204TLV, icac: nil,
            key: try P256.Signing.PrivateKey(rawRepresentation: Credentials.node0204PrivateKey))
        let failure = try #require(try Self.run(&device, tamper: .identity(stranger)).0.failure)
        guard case .certificateChain(let chainError) = failure.error else {
            Issue.record("\(failure.error)")
            return
        }
        #expect(chainError.certificate == .noc && failure.reply?.payload == Self.invalidParameter)
    }

    @Test("a NOC under the same root but of another fabric ID is refused as a fabric mismatch")
    func otherFabric() throws {
        // Node01_02 reissued by Root01 with fabric ID FAB000000000001E in place of …1D.
        var tlv = Credentials.node0102TLV
        let fabricField: [UInt8] = [0x27, 0x15, 0x1D, 0, 0, 0, 0, 0, 0xB0, 0xFA]
        let at = try #require(tlv.indices.first { tlv[$0...].starts(with: fabricField) })
        tlv[at + 2] = 0x1E
        let unsigned = try OperationalCertificate(tlv: tlv)
        let rootKey = try P256.Signing.PrivateKey(rawRepresentation: Credentials.root01PrivateKey)
        tlv.replaceSubrange(
            (tlv.count - 65)..<(tlv.count - 1),
            with: Array(try rootKey.signature(for: unsigned.tbsCertificateDER).rawRepresentation))
        let stranger = CASEInitiator.Identity(
            noc: tlv, icac: nil, key: try P256.Signing.PrivateKey(rawRepresentation: Credentials.node0102PrivateKey))
        var device = try Self.device()
        let failure = try #require(try Self.run(&device, tamper: .identity(stranger)).0.failure)
        #expect(failure.error == .fabricMismatch(expected: 0xFAB0_0000_0000_001D, found: 0xFAB0_0000_0000_001E))
        #expect(failure.reply?.payload == Self.invalidParameter)
    }

    @Test("the validity policy is the device's: with real time after 2040 the initiator's chain has expired")
    func expired() throws {
        var device = try Self.device(policy: .currentTime(MatterTime(secondsSince2000: 1_400_000_000)))
        let failure = try #require(try Self.run(&device).0.failure)
        guard case .certificateChain(let chainError) = failure.error, case .expired = chainError.check else {
            Issue.record("\(failure.error)")
            return
        }
        var lastKnownGood = try Self.device(policy: .lastKnownGoodTime(MatterTime(secondsSince2000: 800_000_000)))
        guard case .established = try Self.run(&lastKnownGood).0 else {
            Issue.record("refused under last known good time 2025")
            return
        }
    }

    @Test("a second initiator gets BUSY with 5000 ms; the running handshake goes on")
    func busy() throws {
        var device = try Self.device()
        let initiator = Self.initiator()
        let sigma1 = try initiator.sigma1().encoded
        let sigma2 = try #require(device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1).sent)
        let busy = try #require(device.handle(.sigma1(payload: sigma1, localSessionID: 10), on: 2).sent)
        #expect(busy.exchange == 2)
        #expect(try StatusReport(decoding: busy.payload) == .busy(minimumWaitMilliseconds: 5000))
        let finished = try initiator.finish(sigma1: sigma1, sigma2: sigma2.payload)
        #expect(device.handle(.sigma3(payload: finished.sigma3), on: 2).dropped == .notOnHandshakeExchange)
        guard case .established = device.handle(.sigma3(payload: finished.sigma3), on: 1) else {
            Issue.record("BUSY disturbed the running handshake")
            return
        }
    }

    @Test("order: Sigma3 with nothing running is dropped; a peer's report, a timeout and a repeated Sigma1 end it")
    func order() throws {
        var device = try Self.device()
        #expect(device.handle(.sigma3(payload: []), on: 1).dropped == .notOnHandshakeExchange)
        let sigma1 = try Self.initiator().sigma1().encoded
        _ = device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1)
        let report = try #require(device.handle(.statusReport(payload: Self.invalidParameter), on: 1).failure)
        #expect(report.error == .peerStatusReport(.secureChannel(.invalidParameter)) && report.reply == nil)
        _ = device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1)
        let timedOut = device.timeOut()
        #expect(timedOut?.error == .timedOut && device.timeOut() == nil)
        _ = device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1)
        let again = try #require(device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1).failure)
        #expect(again.error == .unexpectedMessage(received: .caseSigma1, expected: .caseSigma3))
        #expect(device.phase == "listening")
    }

    @Test("descriptions show the phase and fabric IDs, never keys")
    func redacted() throws {
        var device = try Self.device()
        _ = device.handle(.sigma1(payload: try Self.initiator().sigma1().encoded, localSessionID: 9), on: 1)
        #expect(String(describing: device) == "CASEResponder(awaiting Sigma3, 1 fabrics, 0 resumable)")
        var dumped = ""
        dump(device, to: &dumped)
        #expect(!dumped.contains(CASEKeySchedule.bytes(Self.ipk).hex.prefix(8)))
        #expect(
            String(describing: try Self.fabric())
                == "CASEFabric(index 1, fabric FAB000000000001D, node DEDEDEDE00010002)")
    }
}

extension CASEResponder.Action {
    var sent: CASEResponder<Exchange>.Outgoing? {
        if case .send(let outgoing) = self { return outgoing }
        return nil
    }

    var failure: CASEResponder<Exchange>.Failure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }

    var dropped: CASEResponder<Exchange>.DropReason? {
        if case .drop(let reason) = self { return reason }
        return nil
    }
}
