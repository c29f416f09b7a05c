import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

@testable import TraitBridgeMatterCrypto
@testable import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The device's PASE responder against a commissioner built from ``ProverHandshake`` and the message
/// encoders: agreement, a wrong passcode, malformed messages of each kind, BUSY, order, the failure
/// bound, timeouts, redaction.
@Suite("PASE responder")
struct PASEResponderTests {
    typealias Responder = PASEResponder<Int>

    static let passcode: UInt32 = 20_202_021
    static let salt = Array("SPAKE2P Key Salt".utf8)
    static let verifier = try! Verifier.make(passcode: passcode, salt: salt, iterations: 1000)

    static func device(maxFailedAttempts: Int = 20) throws -> Responder {
        Responder(
            configuration: try .init(
                verifier: verifier, salt: salt, iterations: 1000, maxFailedAttempts: maxFailedAttempts))
    }

    static let request = PBKDFParamRequest(
        initiatorRandom: [UInt8](repeating: 0x5A, count: 32), initiatorSessionID: 0x1234,
        initiatorSessionParameters: SessionParameters(idleIntervalMilliseconds: 800))

    /// The commissioner's side up to Pake1: the request sent, the response read, the prover made.
    struct Commissioner {
        var prover: ProverHandshake
        let context: [UInt8]
        let response: PBKDFParamResponse
    }

    /// Sends the request on `exchange` and builds the commissioner's prover from the response.
    static func begin(
        _ device: inout Responder, passcode: UInt32 = passcode, on exchange: Int = 1
    ) throws -> Commissioner {
        var generator = SeededGenerator(seed: 1)
        let action = device.handle(
            .pbkdfParamRequest(payload: request.encoded, localSessionID: 7), on: exchange, using: &generator)
        let sent = try #require(action.sent)
        #expect(sent.opcode == .pbkdfParamResponse && sent.exchange == exchange)
        let response = try PBKDFParamResponse(decoding: sent.payload)
        let parameters = try #require(response.pbkdfParameters)
        let context = Spake2Plus.commissioningContext(
            pbkdfParamRequest: request.encoded, pbkdfParamResponse: sent.payload)
        let prover = try ProverHandshake(
            passcode: passcode, salt: parameters.salt, iterations: Int(parameters.iterations), context: context)
        return Commissioner(prover: prover, context: context, response: response)
    }

    /// Sends Pake1 and reads Pake2.
    static func exchangePake1(
        _ device: inout Responder, _ commissioner: Commissioner, on exchange: Int = 1
    ) throws -> Pake2 {
        let sent = try #require(
            device.handle(.pake1(payload: Pake1(pA: commissioner.prover.pA).encoded), on: exchange).sent)
        #expect(sent.opcode == .pasePake2 && sent.exchange == exchange)
        return try Pake2(decoding: sent.payload)
    }

    static let invalidParameter = StatusReport.secureChannel(.invalidParameter).encoded

    @Test("commissioner and device derive the same session keys; the device answers SUCCESS")
    func agreement() throws {
        var device = try Self.device()
        var commissioner = try Self.begin(&device)
        #expect(commissioner.response.initiatorRandom == Self.request.initiatorRandom)
        #expect(commissioner.response.responderSessionID == 7)
        #expect(commissioner.response.pbkdfParameters == .init(iterations: 1000, salt: Self.salt))
        #expect(commissioner.response.responderSessionParameters == .mrpDefaults)
        let pake2 = try Self.exchangePake1(&device, commissioner)
        let (cA, ke) = try commissioner.prover.finish(pake2: pake2)
        guard case .established(let established) = device.handle(.pake3(payload: Pake3(cA: cA).encoded), on: 1) else {
            Issue.record("no session")
            return
        }
        #expect(established.keys == SessionKeys(paseKe: ke))
        #expect(established.localSessionID == 7 && established.peerSessionID == 0x1234)
        #expect(established.peerSessionParameters == SessionParameters(idleIntervalMilliseconds: 800))
        #expect(established.reply.opcode == .statusReport && established.reply.exchange == 1)
        #expect(established.reply.payload == StatusReport.secureChannel(.sessionEstablishmentSuccess).encoded)
        #expect(device.phase == "established" && device.failedAttempts == 0)
        #expect(
            device.handle(.pbkdfParamRequest(payload: Self.request.encoded, localSessionID: 8), on: 2).dropped
                == .sessionEstablished)
    }

    @Test("a request with hasPBKDFParameters gets a response without salt and iterations")
    func hasParameters() throws {
        var device = try Self.device()
        var request = Self.request
        request.hasPBKDFParameters = true
        let sent = try #require(
            device.handle(.pbkdfParamRequest(payload: request.encoded, localSessionID: 3), on: 1).sent)
        #expect(try PBKDFParamResponse(decoding: sent.payload).pbkdfParameters == nil)
    }

    @Test("a wrong passcode: the commissioner's cB check fails, its INVALID_PARAMETER ends the attempt, no keys")
    func wrongPasscodeCommissionerReports() throws {
        var device = try Self.device()
        var commissioner = try Self.begin(&device, passcode: 20_202_022)
        let pake2 = try Self.exchangePake1(&device, commissioner)
        #expect(throws: MatterCryptoError.confirmationMismatch(name: "cB")) {
            try commissioner.prover.finish(pake2: pake2)
        }
        let failure = try #require(device.handle(.statusReport(payload: Self.invalidParameter), on: 1).failure)
        #expect(failure.error == .peerStatusReport(.secureChannel(.invalidParameter)))
        #expect(failure.reply == nil && failure.failedAttempts == 1 && !failure.isWindowExhausted)
        #expect(device.phase == "listening")
    }

    @Test("a commissioner guessing the passcode sends a cA the device refuses with INVALID_PARAMETER")
    func wrongPasscodeDeviceRefuses() throws {
        var device = try Self.device()
        let commissioner = try Self.begin(&device)
        let (w0, w1) = try PasscodeDerivation.w0w1(passcode: 20_202_022, salt: Self.salt, iterations: 1000)
        let share = try Spake2Plus.proverShare(w0: w0, x: nil)
        let sent = try #require(device.handle(.pake1(payload: Pake1(pA: share.pA).encoded), on: 1).sent)
        let pake2 = try Pake2(decoding: sent.payload)
        let secrets = try Spake2Plus.proverSecrets(w0: w0, w1: w1, x: share.x, pB: pake2.pB)
        let transcript = Spake2Plus.transcript(
            context: commissioner.context, idProver: [], idVerifier: [], pA: share.pA, pB: pake2.pB, z: secrets.z,
            v: secrets.v, w0: w0)
        let cA = KeySchedule(transcript: transcript).cA(pB: pake2.pB)
        let failure = try #require(device.handle(.pake3(payload: Pake3(cA: cA).encoded), on: 1).failure)
        #expect(failure.error == .handshake(.confirmationMismatch(name: "cA")))
        #expect(failure.reply?.payload == Self.invalidParameter && failure.reply?.exchange == 1)
        #expect(failure.failedAttempts == 1)
    }

    static func structure(_ members: KeyValuePairs<UInt8, TLVValue?>) -> [UInt8] {
        TLVElement(value: .contextStructure(members)).encoded
    }

    static let badRequests: [(String, [UInt8])] = [
        ("empty", []),
        ("truncated", Array(request.encoded.dropLast(3))),
        (
            "random of 16 bytes",
            structure([1: .octets([UInt8](repeating: 0, count: 16)), 2: .unsigned(1), 3: .unsigned(0), 4: .bool(false)])
        ),
        (
            "session ID missing",
            structure([1: .octets([UInt8](repeating: 0, count: 32)), 3: .unsigned(0), 4: .bool(false)])
        ),
        (
            "hasPBKDFParameters a string",
            structure([
                1: .octets([UInt8](repeating: 0, count: 32)), 2: .unsigned(1), 3: .unsigned(0), 4: .string("no"),
            ])
        ),
        ("a list", TLVElement(value: .list([])).encoded),
        ("trailing byte", request.encoded + [0x18]),
    ]

    @Test("a malformed PBKDFParamRequest gets INVALID_PARAMETER and counts", arguments: badRequests)
    func badRequest(name: String, payload: [UInt8]) throws {
        var device = try Self.device()
        let failure = try #require(
            device.handle(.pbkdfParamRequest(payload: payload, localSessionID: 7), on: 4).failure)
        guard case .malformedMessage = failure.error else {
            Issue.record("\(failure.error)")
            return
        }
        #expect(failure.reply == .init(opcode: .statusReport, payload: Self.invalidParameter, exchange: 4))
        #expect(failure.failedAttempts == 1 && device.phase == "listening")
    }

    @Test("passcode ID 1 gets INVALID_PARAMETER")
    func passcodeID() throws {
        var device = try Self.device()
        var request = Self.request
        request.passcodeID = 1
        let failure = try #require(
            device.handle(.pbkdfParamRequest(payload: request.encoded, localSessionID: 7), on: 1).failure)
        #expect(failure.error == .unsupportedPasscodeID(1) && failure.reply?.payload == Self.invalidParameter)
    }

    static let badPake1s: [(String, [UInt8], PASEError?)] = [
        ("pA of 64 bytes", structure([1: .octets([4] + [UInt8](repeating: 1, count: 63))]), nil),
        ("pA missing", structure([2: .octets([UInt8](repeating: 1, count: 65))]), nil),
        ("pA an integer", structure([1: .unsigned(4)]), nil),
        ("truncated", Array(structure([1: .octets([UInt8](repeating: 4, count: 65))]).prefix(40)), nil),
        (
            "pA off the curve", structure([1: .octets([4] + [UInt8](repeating: 0xFF, count: 64))]),
            .handshake(.invalidPoint(name: "pA"))
        ),
    ]

    @Test("a malformed or invalid Pake1 gets INVALID_PARAMETER and ends the attempt", arguments: badPake1s)
    func badPake1(name: String, payload: [UInt8], expected: PASEError?) throws {
        var device = try Self.device()
        _ = try Self.begin(&device)
        let failure = try #require(device.handle(.pake1(payload: payload), on: 1).failure)
        if let expected {
            #expect(failure.error == expected)
        } else if case .malformedMessage = failure.error {
        } else {
            Issue.record("\(failure.error)")
        }
        #expect(failure.reply?.payload == Self.invalidParameter && device.phase == "listening")
    }

    static let badPake3s: [(String, [UInt8])] = [
        ("cA of 31 bytes", structure([1: .octets([UInt8](repeating: 1, count: 31))])),
        ("cA missing", structure([:])),
        ("cA a boolean", structure([1: .bool(true)])),
        ("truncated", [0x15, 0x30, 0x01, 0x20, 0x00]),
        ("anonymous member", [0x15, 0x10, 0x00, 0x18]),
    ]

    @Test("a malformed Pake3 gets INVALID_PARAMETER and no keys", arguments: badPake3s)
    func badPake3(name: String, payload: [UInt8]) throws {
        var device = try Self.device()
        let commissioner = try Self.begin(&device)
        _ = try Self.exchangePake1(&device, commissioner)
        let failure = try #require(device.handle(.pake3(payload: payload), on: 1).failure)
        guard case .malformedMessage = failure.error else {
            Issue.record("\(failure.error)")
            return
        }
        #expect(failure.reply?.payload == Self.invalidParameter)
    }

    @Test("a second commissioner gets BUSY with 5000 ms while the first one finishes")
    func busy() throws {
        var device = try Self.device()
        var first = try Self.begin(&device, on: 1)
        let busy = try #require(
            device.handle(.pbkdfParamRequest(payload: Self.request.encoded, localSessionID: 9), on: 2).sent)
        #expect(busy.exchange == 2 && busy.opcode == .statusReport)
        #expect(try StatusReport(decoding: busy.payload) == .busy(minimumWaitMilliseconds: 5000))
        #expect(
            device.handle(.pake1(payload: Pake1(pA: first.prover.pA).encoded), on: 2).dropped == .notOnHandshakeExchange
        )
        let (cA, _) = try first.prover.finish(pake2: try Self.exchangePake1(&device, first))
        #expect(device.handle(.pbkdfParamRequest(payload: Self.request.encoded, localSessionID: 9), on: 3).sent != nil)
        guard case .established = device.handle(.pake3(payload: Pake3(cA: cA).encoded), on: 1) else {
            Issue.record("BUSY disturbed the running handshake")
            return
        }
        #expect(device.failedAttempts == 0)
    }

    @Test("messages out of order end the attempt; messages for no handshake are dropped")
    func order() throws {
        var device = try Self.device()
        #expect(device.handle(.pake1(payload: []), on: 1).dropped == .notOnHandshakeExchange)
        #expect(device.handle(.statusReport(payload: Self.invalidParameter), on: 1).dropped == .notOnHandshakeExchange)
        _ = try Self.begin(&device)
        let failure = try #require(device.handle(.pake3(payload: []), on: 1).failure)
        #expect(failure.error == .unexpectedMessage(received: .pasePake3, expected: .pasePake1))
        #expect(failure.reply?.payload == Self.invalidParameter)
        let commissioner = try Self.begin(&device)
        _ = try Self.exchangePake1(&device, commissioner)
        let again = try #require(
            device.handle(.pbkdfParamRequest(payload: Self.request.encoded, localSessionID: 7), on: 1).failure)
        #expect(again.error == .unexpectedMessage(received: .pbkdfParamRequest, expected: .pasePake3))
        _ = try Self.begin(&device)
        let malformedReport = try #require(device.handle(.statusReport(payload: [1, 0]), on: 1).failure)
        #expect(
            malformedReport.error == .malformedStatusReport(.truncated(byteCount: 2)) && malformedReport.reply == nil)
        #expect(device.failedAttempts == 3)
    }

    @Test("after the bound of failed attempts the window is exhausted and requests are dropped")
    func failureBound() throws {
        var device = try Self.device()
        for attempt in 1...20 {
            let failure = try #require(
                device.handle(.pbkdfParamRequest(payload: [], localSessionID: 7), on: attempt).failure)
            #expect(failure.failedAttempts == attempt && failure.isWindowExhausted == (attempt == 20))
        }
        #expect(device.phase == "window exhausted")
        #expect(
            device.handle(.pbkdfParamRequest(payload: Self.request.encoded, localSessionID: 7), on: 21).dropped
                == .windowExhausted)
        #expect(device.timeOut() == nil)
    }

    @Test("a timeout ends the running attempt without a reply and counts; with none running it is nil")
    func timeout() throws {
        var device = try Self.device(maxFailedAttempts: 2)
        #expect(device.timeOut() == nil)
        _ = try Self.begin(&device)
        let timedOut = device.timeOut()
        let failure = try #require(timedOut)
        #expect(failure.error == .timedOut && failure.reply == nil && failure.failedAttempts == 1)
        #expect(device.handle(.pake1(payload: []), on: 1).dropped == .notOnHandshakeExchange)
        var established = try Self.device(maxFailedAttempts: 2)
        var commissioner = try Self.begin(&established)
        let (cA, _) = try commissioner.prover.finish(pake2: try Self.exchangePake1(&established, commissioner))
        _ = established.handle(.pake3(payload: Pake3(cA: cA).encoded), on: 1)
        let isExhausted = established.commissioningFailedAfterEstablishment()
        #expect(!isExhausted)
        #expect(established.phase == "listening" && established.failedAttempts == 1)
    }

    @Test("random and truncated payloads never trap: each ends the attempt with INVALID_PARAMETER")
    func hostileInput() throws {
        var generator = SeededGenerator(seed: 42)
        var device = try Self.device(maxFailedAttempts: 10_000)
        let valid = Self.request.encoded
        var payloads = (0..<valid.count).map { Array(valid.prefix($0)) }
        for _ in 0..<300 {
            let count = Int.random(in: 0..<120, using: &generator)
            payloads.append((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        for payload in payloads {
            let failure = try #require(
                device.handle(.pbkdfParamRequest(payload: payload, localSessionID: 7), on: 1).failure)
            #expect(failure.reply?.payload == Self.invalidParameter)
        }
    }

    @Test("configuration refuses salts and iteration counts Matter does not allow")
    func configuration() {
        #expect(throws: MatterCryptoError.invalidSaltLength(15)) {
            try Responder.Configuration(
                verifier: Self.verifier, salt: [UInt8](repeating: 0, count: 15), iterations: 1000)
        }
        #expect(throws: MatterCryptoError.invalidIterationCount(999)) {
            try Responder.Configuration(verifier: Self.verifier, salt: Self.salt, iterations: 999)
        }
    }

    @Test("descriptions and dumps show the phase, never the verifier, salt or keys")
    func redacted() throws {
        var device = try Self.device()
        var commissioner = try Self.begin(&device)
        let (cA, ke) = try commissioner.prover.finish(pake2: try Self.exchangePake1(&device, commissioner))
        var dumped = ""
        dump(device, to: &dumped)
        #expect(String(describing: device) == "PASEResponder(awaiting Pake3, 0 failed)")
        guard case .established(let established) = device.handle(.pake3(payload: Pake3(cA: cA).encoded), on: 1) else {
            Issue.record("no session")
            return
        }
        dump(established, to: &dumped)
        let keyBytes = SessionKeys(paseKe: ke).initiatorToResponder.withUnsafeBytes { Array($0) }
        for secret in [Self.verifier.serialized.prefix(4), Self.salt.prefix(4)[...], keyBytes.prefix(4)[...]] {
            #expect(!dumped.contains(Array(secret).hex))
            #expect(!dumped.contains(secret.map { String($0) }.joined(separator: "\n")))
        }
        #expect(String(describing: established.keys) == "SessionKeys(redacted)")
    }
}

extension PASEResponder.Action {
    var sent: PASEResponder<Exchange>.Outgoing? {
        if case .send(let outgoing) = self { return outgoing }
        return nil
    }

    var failure: PASEResponder<Exchange>.Failure? {
        if case .failed(let failure) = self { return failure }
        return nil
    }

    var dropped: PASEResponder<Exchange>.DropReason? {
        if case .drop(let reason) = self { return reason }
        return nil
    }
}
