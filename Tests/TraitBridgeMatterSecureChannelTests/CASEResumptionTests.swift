import Crypto
import Testing
import TraitBridgeMatterCrypto
import TraitBridgeMatterTransport
import TraitBridgeTesting

@testable import TraitBridgeMatterSecureChannel

/// CASE resumption (Matter Core §4.14.2.2–4.14.2.4) on the device's responder against ``CASEInitiator``,
/// with the fixtures of ``CASEResponderTests``: a full handshake leaves a record, a Sigma1 naming it with
/// the right MIC gets Sigma2_Resume, the initiator's SUCCESS establishes the session; anything else falls
/// back to a full Sigma2, as connectedhomeip's `CASESession::HandleSigma1` does.
@Suite("CASE resumption")
struct CASEResumptionTests {
    typealias Responder = CASEResponder<Int>

    static let success = StatusReport.secureChannel(.sessionEstablishmentSuccess).encoded

    /// A device that completed a full CASE with the initiator on exchange 1, and the initiator's ticket.
    static func afterFullHandshake() throws -> (Responder, CASEInitiator.ResumptionTicket) {
        var device = try CASEResponderTests.device()
        let (action, finished) = try CASEResponderTests.run(&device)
        guard case .established(let established) = action, !established.isResumption else { throw NoSession() }
        return (device, finished.ticket)
    }

    /// A fresh initiator (new random, new ephemeral key) on the same fabric and identity.
    static func initiator(random: UInt8) -> CASEInitiator {
        var initiator = CASEResponderTests.initiator()
        initiator.random = [UInt8](repeating: random, count: 32)
        initiator.sessionID = 0x5150
        return initiator
    }

    @Test("key schedule: MICs and keys match a vector from Python's cryptography (HKDF-SHA256, AES-CCM)")
    func vector() throws {
        // Generated with `cryptography` 44 (HKDF(SHA256), AESCCM(tag_length=16)) from these inputs, as
        // connectedhomeip's `ConstructSigmaResumeKey`, `GenerateSigmaResumeMIC` and
        // `DeriveSecureSession(kFinishedViaResume)` define them.
        let secret = SymmetricKey(data: Array(0x20..<0x40) as [UInt8])
        let random = [UInt8](repeating: 0xA5, count: 16) + (Array(0..<16) as [UInt8])
        let resumptionID = Array(0xC0..<0xD0) as [UInt8]
        let newResumptionID = Array(0xE0..<0xF0) as [UInt8]
        let mic1 = try CASEKeySchedule.resumeMIC(
            .sigma1, sharedSecret: secret, initiatorRandom: random, resumptionID: resumptionID)
        #expect(mic1.hex == "b78abeabb11d424ff4747c2c7039fe1e")
        let mic2 = try CASEKeySchedule.resumeMIC(
            .sigma2, sharedSecret: secret, initiatorRandom: random, resumptionID: newResumptionID)
        #expect(mic2.hex == "a15ff5b027aa4c35d2a29742419e5c8b")
        let keys = CASEKeySchedule.resumedSessionKeys(
            sharedSecret: secret, initiatorRandom: random, resumptionID: resumptionID)
        let expected = [UInt8](
            hex: "dab11899c9e3faf1e068d16d579fc94bb0e0a536ae1d4ff6e41732ce870f5903"
                + "359a67c331416a7bb64c082f0f7297b1")
        #expect(
            CASEKeySchedule.bytes(keys.initiatorToResponder) + CASEKeySchedule.bytes(keys.responderToInitiator)
                + keys.attestationChallenge == expected)
        #expect(
            CASEKeySchedule.isResumeMIC(
                mic1, .sigma1, sharedSecret: secret, initiatorRandom: random, resumptionID: resumptionID))
        #expect(
            !CASEKeySchedule.isResumeMIC(
                mic1, .sigma2, sharedSecret: secret, initiatorRandom: random, resumptionID: resumptionID))
    }

    @Test("the right MIC resumes: Sigma2_Resume, then SUCCESS gives the initiator's keys; the record moves")
    func resumes() throws {
        var (device, ticket) = try Self.afterFullHandshake()
        #expect(device.resumptions.record(for: ticket.resumptionID)?.peerNodeID == 0xDEDE_DEDE_0001_0001)
        let initiator = Self.initiator(random: 0x31)
        let sigma1 = try initiator.sigma1(resuming: ticket).encoded
        var generator = SeededGenerator(seed: 7)
        let sent = try #require(
            device.handle(.sigma1(payload: sigma1, localSessionID: 11), on: 2, using: &generator).sent)
        #expect(sent.opcode == .caseSigma2Resume && sent.exchange == 2 && device.phase == "awaiting resume status")
        let resumed = try initiator.finish(sigma2Resume: sent.payload, ticket: ticket)
        #expect(resumed.sigma2Resume.responderSessionID == 11)
        #expect(resumed.sigma2Resume.responderSessionParameters == .mrpDefaults)
        #expect(resumed.ticket.resumptionID != ticket.resumptionID)

        guard case .established(let established) = device.handle(.statusReport(payload: Self.success), on: 2) else {
            Issue.record("no resumed session")
            return
        }
        #expect(established.isResumption && established.reply == nil)
        #expect(established.keys == resumed.keys)
        #expect(established.peerNodeID == 0xDEDE_DEDE_0001_0001 && established.peerCASEAuthenticatedTags.isEmpty)
        #expect(established.localSessionID == 11 && established.peerSessionID == 0x5150 && established.fabricIndex == 1)
        #expect(established.peerSessionParameters == .mrpDefaults)
        #expect(device.phase == "listening")
        #expect(device.resumptions.record(for: ticket.resumptionID) == nil, "the old ID is spent")
        #expect(device.resumptions.record(for: resumed.ticket.resumptionID) != nil && device.resumptions.count == 1)

        // The new ticket resumes again; the spent one gets a full Sigma2.
        let again = Self.initiator(random: 0x32)
        let next = try #require(
            device.handle(
                .sigma1(payload: try again.sigma1(resuming: resumed.ticket).encoded, localSessionID: 12), on: 3
            )
            .sent)
        #expect(next.opcode == .caseSigma2Resume)
        let twice = try again.finish(sigma2Resume: next.payload, ticket: resumed.ticket)
        guard case .established(let second) = device.handle(.statusReport(payload: Self.success), on: 3) else {
            Issue.record("no second resumption")
            return
        }
        #expect(second.keys == twice.keys && second.keys != established.keys)
        let spent = try Self.initiator(random: 0x33).sigma1(resuming: ticket).encoded
        #expect(device.handle(.sigma1(payload: spent, localSessionID: 13), on: 4).sent?.opcode == .caseSigma2)
    }

    @Test("a wrong MIC falls back to a full Sigma2, which completes; the record stays")
    func wrongMIC() throws {
        var (device, ticket) = try Self.afterFullHandshake()
        let initiator = Self.initiator(random: 0x41)
        var mic = try initiator.sigma1(resuming: ticket).initiatorResumeMIC ?? []
        mic[0] ^= 0x01
        let sigma1 = try initiator.sigma1(resuming: ticket, mic: mic).encoded
        let sent = try #require(device.handle(.sigma1(payload: sigma1, localSessionID: 21), on: 2).sent)
        #expect(sent.opcode == .caseSigma2 && device.phase == "awaiting Sigma3")
        let finished = try initiator.finish(sigma1: sigma1, sigma2: sent.payload)
        guard case .established(let established) = device.handle(.sigma3(payload: finished.sigma3), on: 2) else {
            Issue.record("the full handshake after a refused resumption failed")
            return
        }
        #expect(!established.isResumption && established.keys == finished.keys)
        // One record per peer: the new handshake's replaced the first.
        #expect(device.resumptions.count == 1 && device.resumptions.record(for: finished.ticket.resumptionID) != nil)

        // Another shared secret under the right ID is a wrong MIC too.
        let forged = CASEInitiator.ResumptionTicket(
            resumptionID: finished.ticket.resumptionID, sharedSecret: [UInt8](repeating: 0x55, count: 32))
        let other = try Self.initiator(random: 0x42).sigma1(resuming: forged).encoded
        #expect(device.handle(.sigma1(payload: other, localSessionID: 22), on: 3).sent?.opcode == .caseSigma2)
    }

    @Test("an unknown resumption ID falls back to a full Sigma2")
    func unknownID() throws {
        var (device, ticket) = try Self.afterFullHandshake()
        let unknown = CASEInitiator.ResumptionTicket(
            resumptionID: [UInt8](repeating: 0x99, count: 16), sharedSecret: ticket.sharedSecret)
        let sigma1 = try Self.initiator(random: 0x51).sigma1(resuming: unknown).encoded
        #expect(device.handle(.sigma1(payload: sigma1, localSessionID: 31), on: 2).sent?.opcode == .caseSigma2)
        #expect(device.resumptions.count == 1)
    }

    @Test("records of a removed fabric are gone: forgotten explicitly, or when the configuration drops it")
    func removedFabric() throws {
        var (device, ticket) = try Self.afterFullHandshake()
        device.forgetResumptions(ofFabric: 2)
        #expect(device.resumptions.count == 1, "another fabric's removal keeps it")
        device.forgetResumptions(ofFabric: 1)
        #expect(device.resumptions.isEmpty)
        let sigma1 = try Self.initiator(random: 0x61).sigma1(resuming: ticket).encoded
        #expect(device.handle(.sigma1(payload: sigma1, localSessionID: 41), on: 2).sent?.opcode == .caseSigma2)

        var (replaced, _) = try Self.afterFullHandshake()
        replaced.configuration.fabrics = [try CASEResponderTests.fabric(index: 2)]
        #expect(replaced.resumptions.isEmpty, "fabric 1 is no longer served")
    }

    @Test("a failure report, a Sigma3 or a timeout ends a resumption without a session; the record stays")
    func endedResumption() throws {
        var (device, ticket) = try Self.afterFullHandshake()
        let invalid = StatusReport.secureChannel(.invalidParameter)
        for (attempt, event) in [Responder.Event.statusReport(payload: invalid.encoded), .sigma3(payload: [1])]
            .enumerated()
        {
            let sigma1 = try Self.initiator(random: UInt8(0x70 + attempt)).sigma1(resuming: ticket).encoded
            #expect(
                device.handle(.sigma1(payload: sigma1, localSessionID: 51), on: 2).sent?.opcode == .caseSigma2Resume)
            let busy = try #require(device.handle(.sigma1(payload: sigma1, localSessionID: 52), on: 3).sent)
            #expect(try StatusReport(decoding: busy.payload) == .busy(minimumWaitMilliseconds: 5000))
            let failure = try #require(device.handle(event, on: 2).failure)
            #expect(
                failure.error
                    == (attempt == 0
                        ? .peerStatusReport(invalid)
                        : .unexpectedMessage(received: .caseSigma3, expected: .statusReport)))
            #expect(device.phase == "listening" && device.resumptions.record(for: ticket.resumptionID) != nil)
        }
        let sigma1 = try Self.initiator(random: 0x7F).sigma1(resuming: ticket).encoded
        _ = device.handle(.sigma1(payload: sigma1, localSessionID: 53), on: 2)
        #expect(device.timeOut()?.error == .timedOut && device.phase == "listening")
    }

    @Test("the store keeps one record per peer and fabric, at most its capacity, least recent out; never printed")
    func store() throws {
        var store = ResumptionStore(capacity: 2)
        func record(_ id: UInt8, node: UInt64, fabric: UInt8) -> ResumptionStore.Record {
            .init(
                resumptionID: [UInt8](repeating: id, count: 16), sharedSecret: [UInt8](repeating: 0xEE, count: 32),
                peerNodeID: node, peerCASEAuthenticatedTags: [0x0001_0001], fabricIndex: fabric)
        }
        store.save(record(1, node: 10, fabric: 1))
        store.save(record(2, node: 10, fabric: 1))
        #expect(store.count == 1 && store.record(for: [UInt8](repeating: 1, count: 16)) == nil)
        store.save(record(3, node: 10, fabric: 2))
        store.save(record(4, node: 11, fabric: 1))
        #expect(store.fabricIndices == [2, 1] && store.record(for: [UInt8](repeating: 2, count: 16)) == nil)
        #expect(store.record(for: [UInt8](repeating: 4, count: 16))?.peerCASEAuthenticatedTags == [0x0001_0001])
        store.retainFabrics([1])
        #expect(store.fabricIndices == [1])
        var dumped = ""
        dump(store, to: &dumped)
        dump(store.record(for: [UInt8](repeating: 4, count: 16)), to: &dumped)
        #expect(!dumped.contains("238") && !dumped.lowercased().contains("eeee"), "\(dumped)")
        #expect("\(store)" == "ResumptionStore(1 of 2 records)")
    }

    @Test("a restart's records resume as the ones held did; malformed ones and other fabrics' are left out")
    func restored() throws {
        let (device, ticket) = try Self.afterFullHandshake()
        let kept = device.resumptions.records
        #expect(kept.count == 1 && kept[0].resumptionID == ticket.resumptionID && kept[0].fabricIndex == 1)
        #expect(kept[0].sharedSecret == ticket.sharedSecret, "the secret kept is the handshake's")

        // A device started again: no record until the kept ones are given back.
        var restarted = try CASEResponderTests.device()
        let sigma1 = try Self.initiator(random: 0x81).sigma1(resuming: ticket).encoded
        var probe = restarted
        #expect(probe.handle(.sigma1(payload: sigma1, localSessionID: 61), on: 2).sent?.opcode == .caseSigma2)
        let record = kept[0]
        let otherFabric = try #require(
            ResumptionStore.Record(
                restoring: [UInt8](repeating: 7, count: 16), sharedSecret: record.sharedSecret,
                peerNodeID: 0x99, peerCASEAuthenticatedTags: [], fabricIndex: 9))
        restarted.restoreResumptions([otherFabric, record])
        #expect(restarted.resumptions.records == [record], "fabric 9 is not served")
        #expect(restarted.handle(.sigma1(payload: sigma1, localSessionID: 62), on: 2).sent?.opcode == .caseSigma2Resume)

        // Damaged copies are refused: a short ID or secret, fabric 0.
        let damaged: [([UInt8], [UInt8], UInt8)] = [
            (Array(record.resumptionID.prefix(15)), record.sharedSecret, 1),
            (record.resumptionID, record.sharedSecret + [0], 1), (record.resumptionID, record.sharedSecret, 0),
        ]
        for (id, secret, fabric) in damaged {
            #expect(
                ResumptionStore.Record(
                    restoring: id, sharedSecret: secret, peerNodeID: 1, peerCASEAuthenticatedTags: [],
                    fabricIndex: fabric) == nil)
        }
        // Restored as saved: one per peer on a fabric, the capacity kept, the most recent last.
        let many = (0..<5).compactMap { n in
            ResumptionStore.Record(
                restoring: [UInt8](repeating: UInt8(n), count: 16), sharedSecret: record.sharedSecret,
                peerNodeID: UInt64(n % 4), peerCASEAuthenticatedTags: [], fabricIndex: 1)
        }
        let bounded = ResumptionStore(capacity: 3, restoring: many)
        #expect(bounded.records.map(\.resumptionID.first) == [2, 3, 4])
    }
}

/// The full handshake the resumption tests start from did not end in a session.
private struct NoSession: Error {}
