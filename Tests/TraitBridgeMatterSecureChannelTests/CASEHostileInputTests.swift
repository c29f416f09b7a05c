import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCredentials
import TraitBridgeMatterTransport
import TraitBridgeTesting

@testable import TraitBridgeMatterSecureChannel

/// Malformed and random CASE messages: each gets a typed error and a StatusReport, never a trap.
@Suite("CASE hostile input")
struct CASEHostileInputTests {
    typealias Tests = CASEResponderTests

    static func structure(_ members: KeyValuePairs<UInt8, TLVValue?>) -> [UInt8] {
        TLVElement(value: .contextStructure(members)).encoded
    }

    static let point = [UInt8](repeating: 4, count: 65)
    static let bytes32 = [UInt8](repeating: 1, count: 32)

    static let badSigma1s: [(String, [UInt8], String)] = [
        ("empty", [], ""),
        ("random of 31 bytes", structure([1: .octets(Array(bytes32.dropLast())), 2: .unsigned(1)]), "initiatorRandom"),
        (
            "session ID missing", structure([1: .octets(bytes32), 3: .octets(bytes32), 4: .octets(point)]),
            "initiatorSessionId"
        ),
        (
            "session ID too wide",
            structure([
                1: .octets(bytes32), 2: .unsigned(70_000), 3: .octets(bytes32), 4: .octets(point),
            ]), "initiatorSessionId"
        ),
        (
            "destination ID a string",
            structure([
                1: .octets(bytes32), 2: .unsigned(1), 3: .string("x"), 4: .octets(point),
            ]), "destinationId"
        ),
        (
            "key of 64 bytes",
            structure([
                1: .octets(bytes32), 2: .unsigned(1), 3: .octets(bytes32), 4: .octets(Array(point.dropLast())),
            ]), "initiatorEphPubKey"
        ),
        (
            "resumption ID of 15 bytes",
            structure([
                1: .octets(bytes32), 2: .unsigned(1), 3: .octets(bytes32), 4: .octets(point),
                6: .octets([UInt8](repeating: 0, count: 15)), 7: .octets([UInt8](repeating: 0, count: 16)),
            ]), "resumptionID"
        ),
    ]

    @Test("a malformed Sigma1 gets INVALID_PARAMETER with the field named", arguments: badSigma1s)
    func badSigma1(name: String, payload: [UInt8], field: String) throws {
        var device = try Tests.device()
        let failure = try #require(device.handle(.sigma1(payload: payload, localSessionID: 9), on: 1).failure)
        guard case .malformedMessage(let error) = failure.error else {
            Issue.record("\(failure.error)")
            return
        }
        #expect("\(error)".contains(field))
        #expect(failure.reply?.payload == Tests.invalidParameter && device.phase == "listening")
    }

    @Test("an ephemeral key off the curve gets INVALID_PARAMETER")
    func offCurve() throws {
        var device = try Tests.device()
        var sigma1 = try Tests.initiator().sigma1()
        sigma1.initiatorEphemeralPublicKey = [4] + [UInt8](repeating: 0xFF, count: 64)
        let failure = try #require(device.handle(.sigma1(payload: sigma1.encoded, localSessionID: 9), on: 1).failure)
        #expect(failure.error == .invalidEphemeralKey && failure.reply?.payload == Tests.invalidParameter)
    }

    static let badSigma3s: [(String, [UInt8])] = [
        ("empty", []),
        ("encrypted3 of 16 bytes", structure([1: .octets([UInt8](repeating: 0, count: 16))])),
        ("encrypted3 missing", structure([2: .octets([UInt8](repeating: 0, count: 40))])),
        ("truncated", [0x15, 0x30, 0x01, 0x40, 0x00]),
    ]

    @Test("a malformed Sigma3 gets INVALID_PARAMETER and ends the handshake", arguments: badSigma3s)
    func badSigma3(name: String, payload: [UInt8]) throws {
        var device = try Tests.device()
        _ = device.handle(.sigma1(payload: try Tests.initiator().sigma1().encoded, localSessionID: 9), on: 1)
        let failure = try #require(device.handle(.sigma3(payload: payload), on: 1).failure)
        guard case .malformedMessage = failure.error else {
            Issue.record("\(failure.error)")
            return
        }
        #expect(failure.reply?.payload == Tests.invalidParameter && device.phase == "listening")
    }

    @Test("messages round-trip and TBEData3 names its fields")
    func messages() throws {
        let sigma1 = try Tests.initiator().sigma1()
        #expect(try Sigma1(decoding: sigma1.encoded) == sigma1)
        let sigma3 = Sigma3(encrypted3: [UInt8](repeating: 2, count: 40))
        #expect(try Sigma3(decoding: sigma3.encoded) == sigma3)
        let tbe = SigmaTBEData3(initiatorNOC: [1, 2], initiatorICAC: nil, signature: [UInt8](repeating: 0, count: 63))
        #expect(
            throws: PASEMessageError.invalidField(
                message: "TBEData3", field: "signature", .wrongLength(.context(3), expected: 64, found: 63))
        ) {
            try SigmaTBEData3(decoding: tbe.encoded)
        }
    }

    @Test("seeded random and bit-flipped Sigma1 and Sigma3 payloads never trap")
    func fuzz() throws {
        var generator = SeededGenerator(seed: 0xCA5E)
        var device = try Tests.device()
        let initiator = Tests.initiator()
        let sigma1 = try initiator.sigma1().encoded
        var payloads = (0..<sigma1.count).map { Array(sigma1.prefix($0)) }
        for _ in 0..<200 {
            var flipped = sigma1
            flipped[Int.random(in: 0..<flipped.count, using: &generator)] ^= UInt8.random(
                in: 1...255, using: &generator)
            payloads.append(flipped)
            payloads.append(
                (0..<Int.random(in: 0..<160, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
                })
        }
        for payload in payloads {
            switch device.handle(.sigma1(payload: payload, localSessionID: 9), on: 1) {
            case .send: _ = device.timeOut()
            case .failed: break
            case let other: Issue.record("unexpected \(other)")
            }
        }
        // Sigma3: every alteration of a valid one, and random bytes, is refused.
        let sigma2 = try #require(device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1).sent)
        let sigma3 = try initiator.finish(sigma1: sigma1, sigma2: sigma2.payload).sigma3
        _ = device.timeOut()
        for round in 0..<120 {
            var payload = sigma3
            if round.isMultiple(of: 2) {
                payload[Int.random(in: 0..<payload.count, using: &generator)] ^= UInt8.random(
                    in: 1...255, using: &generator)
            } else {
                payload = (0..<Int.random(in: 0..<400, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
            _ = device.handle(.sigma1(payload: sigma1, localSessionID: 9), on: 1)
            #expect(device.handle(.sigma3(payload: payload), on: 1).failure != nil)
        }
    }
}
