import Crypto
import Testing

@testable import TraitBridgeMatterCrypto

/// SPAKE2+ against published vectors (Spake2PlusVectors.swift says where each comes from): the shares,
/// Z and V of both sides and TT against draft-01 and RFC 9383; Matter's key schedule against draft-01.
@Suite("SPAKE2+ vectors")
struct Spake2PlusVectorTests {
    static let all = Spake2PlusVectors.draft01 + [Spake2PlusVectors.rfc9383]

    @Test("L = w1·P", arguments: all)
    func l(vector: Spake2PlusVector) throws {
        let curve = try LibCrypto.P256()
        let l = try curve.generator(times: curve.scalar(vector.w1, name: "w1"))
        #expect(try curve.bytes(of: l, name: "L") == vector.l)
    }

    @Test("the prover's X = x·P + w0·M, and its Z and V from the verifier's Y", arguments: all)
    func prover(vector: Spake2PlusVector) throws {
        let share = try Spake2Plus.proverShare(w0: vector.w0, x: vector.x)
        #expect(share.x == vector.x)
        #expect(share.pA == vector.pA)
        let secrets = try Spake2Plus.proverSecrets(w0: vector.w0, w1: vector.w1, x: vector.x, pB: vector.pB)
        #expect(secrets.z == vector.z)
        #expect(secrets.v == vector.v)
    }

    @Test("the verifier's Y = y·P + w0·N, Z = y·(X − w0·M) and V = y·L", arguments: all)
    func verifier(vector: Spake2PlusVector) throws {
        let step = try Spake2Plus.verifierStep(w0: vector.w0, l: vector.l, pA: vector.pA, y: vector.y)
        #expect(step.pB == vector.pB)
        #expect(step.z == vector.z)
        #expect(step.v == vector.v)
    }

    @Test("RFC 9383's TT is built the same way (8-byte little-endian lengths), and SHA-256(TT) is its K_main")
    func rfc9383Transcript() {
        let vector = Spake2PlusVectors.rfc9383
        let transcript = Spake2Plus.transcript(
            context: vector.context, idProver: vector.idProver, idVerifier: vector.idVerifier, pA: vector.pA,
            pB: vector.pB, z: vector.z, v: vector.v, w0: vector.w0)
        #expect(transcript == Spake2PlusVectors.rfc9383Transcript)
        #expect(Array(SHA256.hash(data: transcript)) == Spake2PlusVectors.rfc9383KMain)
    }

    @Test("Matter's key schedule gives draft-01's Ka, Ke, KcA, KcB, cA and cB", arguments: Spake2PlusVectors.draft01)
    func matterSchedule(vector: Spake2PlusVector) throws {
        let expected = try #require(vector.schedule)
        let transcript = Spake2Plus.transcript(
            context: vector.context, idProver: vector.idProver, idVerifier: vector.idVerifier, pA: vector.pA,
            pB: vector.pB, z: vector.z, v: vector.v, w0: vector.w0)
        let keys = KeySchedule(transcript: transcript)
        #expect(keys.ka == expected.ka)
        #expect(keys.ke == expected.ke)
        #expect(keys.kcA == expected.kcA)
        #expect(keys.kcB == expected.kcB)
        #expect(keys.cA(pB: vector.pB) == expected.cA)
        #expect(keys.cB(pA: vector.pA) == expected.cB)
    }

    @Test("the two handshakes replay draft-01's exchange with its x and y", arguments: Spake2PlusVectors.draft01)
    func handshakes(vector: Spake2PlusVector) throws {
        let expected = try #require(vector.schedule)
        var prover = try ProverHandshake(
            w0: vector.w0, w1: vector.w1, context: vector.context, idProver: vector.idProver,
            idVerifier: vector.idVerifier, x: vector.x)
        #expect(prover.pA == vector.pA)
        var serialized = vector.w0
        serialized += vector.l
        var device = VerifierHandshake(
            verifier: try Verifier(serialized: serialized), context: vector.context, idProver: vector.idProver,
            idVerifier: vector.idVerifier)
        let pake2 = try device.respond(toPake1: prover.pA, y: vector.y)
        #expect(pake2 == Pake2(pB: vector.pB, cB: expected.cB))
        let pake3 = try prover.finish(pake2: pake2)
        #expect(pake3.cA == expected.cA)
        #expect(pake3.ke.withUnsafeBytes { Array($0) } == expected.ke)
        let ke = try device.confirm(pake3: pake3.cA)
        #expect(ke.withUnsafeBytes { Array($0) } == expected.ke)
    }

    @Test("where Matter and RFC 9383 part: RFC 9383's confirmation keys come from all of K_main, Matter's from Ka")
    func scheduleDifference() {
        let rfcKeys = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Spake2PlusVectors.rfc9383KMain), salt: [UInt8](),
            info: Array("ConfirmationKeys".utf8), outputByteCount: 64
        ).withUnsafeBytes { Array($0) }
        #expect(rfcKeys == Spake2PlusVectors.rfc9383KConfirmP + Spake2PlusVectors.rfc9383KConfirmV)
        let matterKeys = KeySchedule(transcript: Spake2PlusVectors.rfc9383Transcript)
        #expect(matterKeys.ka + matterKeys.ke == Spake2PlusVectors.rfc9383KMain)
        #expect(matterKeys.kcA.count == 16)
        #expect(matterKeys.kcA != Array(Spake2PlusVectors.rfc9383KConfirmP.prefix(16)))
    }
}
