import Crypto
import Testing
import TraitBridgeMatterCodec

@testable import TraitBridgeMatterCrypto
@testable import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The recorded Apple Home ↔ CircuitMatter exchange replayed through this module's decoders, the
/// context (which bytes go in), the SPAKE2+ verifier with the recorded y, and ``SessionKeys``: if the
/// keys were derived any other way, the first sealed message each way would not open.
@Suite("Recorded PASE (Apple Home ↔ CircuitMatter)")
struct RecordedPASETests {
    static let requestPayload = RecordedPASE.payload(RecordedPASE.pbkdfParamRequest)
    static let responsePayload = RecordedPASE.payload(RecordedPASE.pbkdfParamResponse)

    /// The device's side, replayed: context from the two payloads as they crossed the wire, y as recorded.
    static func replay() throws -> (pake2: Pake2, device: VerifierHandshake) {
        let context = Spake2Plus.commissioningContext(
            pbkdfParamRequest: requestPayload, pbkdfParamResponse: responsePayload)
        var device = VerifierHandshake(verifier: try Verifier(serialized: RecordedPASE.verifier), context: context)
        let pA = try Pake1(decoding: RecordedPASE.payload(RecordedPASE.pake1)).pA
        let pake2 = try device.respond(toPake1: pA, y: RecordedPASE.y)
        return (pake2, device)
    }

    @Test("the stored verifier is the one of passcode 67202583 with the recorded salt and iterations")
    func verifier() throws {
        let made = try Verifier.make(
            passcode: RecordedPASE.passcode, salt: RecordedPASE.salt, iterations: RecordedPASE.iterations)
        #expect(made.serialized == RecordedPASE.verifier)
    }

    @Test("with the context of both PBKDF payloads and the recorded y, the device's Pake2 is the recorded one")
    func pake2() throws {
        let (pake2, _) = try Self.replay()
        #expect(pake2 == (try Pake2(decoding: RecordedPASE.payload(RecordedPASE.pake2))))
        #expect(pake2.encoded == RecordedPASE.payload(RecordedPASE.pake2))
    }

    @Test("Apple's cA confirms, and the session keys open the first sealed message each way")
    func sessionKeys() throws {
        var (_, device) = try Self.replay()
        let ke = try device.confirm(pake3: try Pake3(decoding: RecordedPASE.payload(RecordedPASE.pake3)).cA)
        let keys = SessionKeys(paseKe: ke)

        // Apple → device, sealed with I2R: the device opens with its opening key.
        let request = try Self.open(RecordedPASE.firstSecured, key: keys.openingKey(for: .responder))
        #expect(request.prefix(6) == [0x05, 0x02, 0x9C, 0x68, 0x01, 0x00])  // I+R, ReadRequest, exchange, IM
        // Device → Apple, sealed with R2I.
        let reply = try Self.open(RecordedPASE.firstSecuredReply, key: keys.sealingKey(for: .responder))
        #expect(reply.prefix(6) == [0x06, 0x05, 0x9C, 0x68, 0x01, 0x00])  // A+R, ReportData, same exchange
        #expect(keys.attestationChallenge.count == 16)
    }

    @Test("the recorded StatusReport after Pake3 is SUCCESS, Secure Channel, SESSION_ESTABLISHMENT_SUCCESS")
    func statusReport() throws {
        let (opcode, payload) = RecordedPASE.unsecured(RecordedPASE.statusReport)
        #expect(opcode == SecureChannelOpcode.statusReport.rawValue)
        #expect(try StatusReport(decoding: payload) == .secureChannel(.sessionEstablishmentSuccess))
        #expect(StatusReport.secureChannel(.sessionEstablishmentSuccess).encoded == payload)
    }

    @Test("the responder, given CircuitMatter's random and settings, answers Apple's request with its exact bytes")
    func responderReplay() throws {
        let configuration = try PASEResponder<Int>.Configuration(
            verifier: try Verifier(serialized: RecordedPASE.verifier), salt: RecordedPASE.salt,
            iterations: RecordedPASE.iterations, sessionParameters: nil)
        var device = PASEResponder<Int>(configuration: configuration)
        let responderRandom = try PBKDFParamResponse(decoding: Self.responsePayload).responderRandom
        var generator = ReplayedBytes(responderRandom)
        let action = device.handle(
            .pbkdfParamRequest(payload: Self.requestPayload, localSessionID: 1), on: 0, using: &generator)
        guard case .send(let response) = action else {
            Issue.record("no response: \(action)")
            return
        }
        #expect(response.payload == Self.responsePayload)
        // Same context, so Apple's Pake1 is answered with a valid Pake2 (its y is fresh, so not the recorded one).
        guard case .send(let pake2) = device.handle(.pake1(payload: RecordedPASE.payload(RecordedPASE.pake1)), on: 0)
        else {
            Issue.record("Pake1 refused")
            return
        }
        #expect(try Pake2(decoding: pake2.payload).pB.count == 65)
    }

    /// A secured unicast datagram without S or DSIZ opened with `key`: header (8 bytes) as additional
    /// data, nonce = security flags ‖ counter ‖ source node ID 0 (PASE), 16-byte MIC at the end.
    static func open(_ datagram: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        let header = Array(datagram.prefix(8))
        let nonce = [header[3]] + header[4..<8] + [UInt8](repeating: 0, count: 8)
        return try AESCCM.open(key: key, nonce: nonce, sealed: Array(datagram.dropFirst(8)), aad: header)
    }
}

/// Hands out given bytes, one per `next()` (the standard library's full-range `UInt8.random(using:)`
/// takes the low byte of one `next()`), then zeros.
struct ReplayedBytes: RandomNumberGenerator {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> UInt64 { bytes.isEmpty ? 0 : UInt64(bytes.removeFirst()) }
}
