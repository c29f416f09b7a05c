import Crypto
import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterCrypto

/// Full PASE exchanges between a ``ProverHandshake`` (commissioner) and a ``VerifierHandshake``
/// (device) with random x and y: agreement, a wrong passcode, altered shares, invalid points, order.
@Suite("PASE handshakes")
struct HandshakeTests {
    static let salt = Array("SPAKE2P Key Salt".utf8)
    static let context = Spake2Plus.commissioningContext(
        pbkdfParamRequest: Array("request".utf8), pbkdfParamResponse: Array("response".utf8))

    static func device(passcode: UInt32 = 20_202_021) throws -> VerifierHandshake {
        VerifierHandshake(
            verifier: try Verifier.make(passcode: passcode, salt: salt, iterations: 1000), context: context)
    }

    static func commissioner(passcode: UInt32 = 20_202_021) throws -> ProverHandshake {
        try ProverHandshake(passcode: passcode, salt: salt, iterations: 1000, context: context)
    }

    @Test("commissioner and device agree on Ke and accept each other's confirmations")
    func agreement() throws {
        var prover = try Self.commissioner()
        var device = try Self.device()
        let pake2 = try device.respond(toPake1: prover.pA)
        let pake3 = try prover.finish(pake2: pake2)
        let deviceKe = try device.confirm(pake3: pake3.cA)
        #expect(deviceKe == pake3.ke)
        #expect(deviceKe.bitCount == 128)
    }

    /// The cA a commissioner with `passcode` would send after sharing `share`, had it skipped its own
    /// check of cB: what a device sees from a commissioner that guesses.
    static func guessedConfirmation(
        passcode: UInt32, share: (x: [UInt8], pA: [UInt8]), pake2: Pake2
    ) throws -> [UInt8] {
        let (w0, w1) = try PasscodeDerivation.w0w1(passcode: passcode, salt: salt, iterations: 1000)
        let secrets = try Spake2Plus.proverSecrets(w0: w0, w1: w1, x: share.x, pB: pake2.pB)
        let transcript = Spake2Plus.transcript(
            context: context, idProver: [], idVerifier: [], pA: share.pA, pB: pake2.pB, z: secrets.z, v: secrets.v,
            w0: w0)
        return KeySchedule(transcript: transcript).cA(pB: pake2.pB)
    }

    @Test("a wrong passcode fails the device's check of cA, and the commissioner's check of cB")
    func wrongPasscode() throws {
        let (w0, _) = try PasscodeDerivation.w0w1(passcode: 20_202_022, salt: Self.salt, iterations: 1000)
        let share = try Spake2Plus.proverShare(w0: w0, x: nil)
        var device = try Self.device()
        let pake2 = try device.respond(toPake1: share.pA)
        let cA = try Self.guessedConfirmation(passcode: 20_202_022, share: share, pake2: pake2)
        #expect(throws: MatterCryptoError.confirmationMismatch(name: "cA")) { try device.confirm(pake3: cA) }

        var prover = try Self.commissioner(passcode: 20_202_022)
        var otherDevice = try Self.device()
        let otherPake2 = try otherDevice.respond(toPake1: prover.pA)
        #expect(throws: MatterCryptoError.confirmationMismatch(name: "cB")) { try prover.finish(pake2: otherPake2) }
    }

    @Test("a pA altered in transit fails: off the curve it is refused, as another point both checks fail")
    func alteredShare() throws {
        let (w0, _) = try PasscodeDerivation.w0w1(passcode: 20_202_021, salt: Self.salt, iterations: 1000)
        let share = try Spake2Plus.proverShare(w0: w0, x: nil)
        let curve = try LibCrypto.P256()
        let one = try curve.scalar([UInt8](repeating: 0, count: 31) + [1], name: "one")
        let altered = try curve.bytes(
            of: curve.add(curve.point(share.pA, name: "pA"), curve.generator(times: one)), name: "pA")
        var device = try Self.device()
        let pake2 = try device.respond(toPake1: altered)
        let cA = try Self.guessedConfirmation(passcode: 20_202_021, share: share, pake2: pake2)
        #expect(throws: MatterCryptoError.confirmationMismatch(name: "cA")) { try device.confirm(pake3: cA) }

        var prover = try Self.commissioner()
        var otherDevice = try Self.device()
        var alteredPake1 = prover.pA
        alteredPake1[64] ^= 0x01
        #expect(throws: MatterCryptoError.invalidPoint(name: "pA")) { try otherDevice.respond(toPake1: alteredPake1) }
        var thirdDevice = try Self.device()
        let pake2ForAltered = try thirdDevice.respond(
            toPake1: try curve.bytes(
                of: curve.add(curve.point(prover.pA, name: "pA"), curve.generator(times: one)), name: "pA"))
        #expect(throws: MatterCryptoError.confirmationMismatch(name: "cB")) {
            try prover.finish(pake2: pake2ForAltered)
        }
    }

    /// P-256's generator, uncompressed (SEC 2 §2.4.2).
    static let generator = [UInt8](
        hex: "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
            + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")

    static let invalidShares: [(String, [UInt8])] = [
        ("empty", []),
        ("the identity's encoding (00)", [0]),
        ("compressed (02 ‖ x)", [0x02] + generator[1...32]),
        ("hybrid (06 ‖ x ‖ y)", [0x06] + generator.dropFirst()),
        ("off the curve (y + 1)", generator.dropLast() + [generator[64] &+ 1]),
        ("all zero after 04", [0x04] + [UInt8](repeating: 0, count: 64)),
        ("x and y of p's size", [0x04] + [UInt8](repeating: 0xFF, count: 64)),
        ("66 bytes", generator + [0]),
        ("64 bytes, no prefix", Array(generator.dropFirst())),
    ]

    @Test("a pA that is not an uncompressed point on P-256 is refused and ends the handshake", arguments: invalidShares)
    func invalidPA(name: String, share: [UInt8]) throws {
        var device = try Self.device()
        #expect(throws: MatterCryptoError.invalidPoint(name: "pA")) { try device.respond(toPake1: share) }
        #expect(throws: MatterCryptoError.handshakeOutOfOrder(step: "Pake1", state: "finished")) {
            try device.respond(toPake1: Self.generator)
        }
    }

    @Test("a pB that is not an uncompressed point on P-256 is refused", arguments: invalidShares)
    func invalidPB(name: String, share: [UInt8]) throws {
        var prover = try Self.commissioner()
        #expect(throws: MatterCryptoError.invalidPoint(name: "pB")) {
            try prover.finish(pake2: Pake2(pB: share, cB: [UInt8](repeating: 0, count: 32)))
        }
    }

    @Test("pA = w0·M, which would make Z the identity, is refused")
    func identityZ() throws {
        let verifier = try Verifier.make(passcode: 20_202_021, salt: Self.salt, iterations: 1000)
        let curve = try LibCrypto.P256()
        let w0M = try curve.multiply(curve.point(Spake2Plus.m, name: "M"), by: curve.scalar(verifier.w0, name: "w0"))
        var device = VerifierHandshake(verifier: verifier, context: Self.context)
        #expect(throws: MatterCryptoError.invalidPoint(name: "Z")) {
            try device.respond(toPake1: curve.bytes(of: w0M, name: "w0·M"))
        }
    }

    @Test("Pake3 before Pake1, or twice, is refused")
    func order() throws {
        var device = try Self.device()
        #expect(throws: MatterCryptoError.handshakeOutOfOrder(step: "Pake3", state: "awaiting Pake1")) {
            try device.confirm(pake3: [])
        }
        var prover = try Self.commissioner()
        let pake2 = try device.respond(toPake1: prover.pA)
        #expect(throws: MatterCryptoError.handshakeOutOfOrder(step: "Pake1", state: "awaiting Pake3")) {
            try device.respond(toPake1: prover.pA)
        }
        let pake3 = try prover.finish(pake2: pake2)
        _ = try device.confirm(pake3: pake3.cA)
        #expect(throws: MatterCryptoError.handshakeOutOfOrder(step: "Pake3", state: "finished")) {
            try device.confirm(pake3: pake3.cA)
        }
    }

    @Test("each run draws fresh x and y: two runs share neither pA nor pB")
    func freshRandomness() throws {
        let first = try Self.commissioner()
        let second = try Self.commissioner()
        #expect(first.pA != second.pA)
        var deviceA = try Self.device()
        var deviceB = try Self.device()
        #expect(try deviceA.respond(toPake1: first.pA).pB != deviceB.respond(toPake1: first.pA).pB)
    }

    @Test("the context is SHA-256 of \"CHIP PAKE V1 Commissioning\" and both PBKDF messages")
    func commissioningContext() {
        let expected = Array(SHA256.hash(data: Array("CHIP PAKE V1 Commissioningrequestresponse".utf8)))
        #expect(Self.context == expected)
    }

    @Test("a handshake's description and dump name its step, never its secrets")
    func redacted() throws {
        var prover = try Self.commissioner()
        var device = try Self.device()
        let pake2 = try device.respond(toPake1: prover.pA)
        var dumped = ""
        dump(device, to: &dumped)
        dump(prover, to: &dumped)
        let texts = [String(describing: device), String(reflecting: prover), dumped]
        #expect(texts[0] == "VerifierHandshake(awaiting Pake3)")
        let pake3 = try prover.finish(pake2: pake2)
        let ke = try device.confirm(pake3: pake3.cA).withUnsafeBytes { Array($0) }
        for text in texts {
            #expect(!text.contains(Array(pake3.cA.prefix(6)).hex))
            #expect(!text.contains(pake3.cA.prefix(3).map { String($0) }.joined(separator: ", ")))
            #expect(!text.contains(ke.prefix(3).map { String($0) }.joined(separator: ", ")))
        }
    }
}
