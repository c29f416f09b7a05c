import Foundation
import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterCrypto

/// The stored PAKE verifier: Matter's derivation from a passcode against connectedhomeip's published
/// test verifier, its serialization, its refusals, and that it never prints its values.
@Suite("PAKE verifier")
struct VerifierTests {
    /// connectedhomeip scripts/tools/spake2p/README.md (commit aee7f784): `spake2p.py gen-verifier
    /// -p 20202021 -s U1BBS0UyUCBLZXkgU2FsdA== -i 1000`, the CHIP_DEVICE_CONFIG_USE_TEST_SPAKE2P_VERIFIER
    /// of connectedhomeip's examples. The salt is "SPAKE2P Key Salt".
    static let testVerifier =
        "uWFwqugDNGiEck/po7KHwwMwwqZgN10XuyBajPGuyzUEV/iree4lOrao5GuwnlQ65CJzbeUB49s31EH+NEkg0JVI5MGCQGMMT/SRPFNRODm3"
        + "wH/MBiehuFc6FJ/NH6Rmzw=="

    @Test("passcode 20202021, salt 'SPAKE2P Key Salt', 1000 iterations: connectedhomeip's test verifier")
    func connectedhomeipTestVerifier() throws {
        let salt = try #require(Data(base64Encoded: "U1BBS0UyUCBLZXkgU2FsdA=="))
        #expect(String(decoding: salt, as: UTF8.self) == "SPAKE2P Key Salt")
        let verifier = try Verifier.make(passcode: 20_202_021, salt: Array(salt), iterations: 1000)
        let expected = try #require(Data(base64Encoded: Self.testVerifier))
        #expect(verifier.serialized == Array(expected))
    }

    @Test("a serialized verifier reads back as the same verifier")
    func roundTrip() throws {
        let expected = Array(try #require(Data(base64Encoded: Self.testVerifier)))
        #expect(try Verifier(serialized: expected).serialized == expected)
    }

    @Test("draft-01's w0 and w1 give its L (L = w1·P)")
    func lFromW1() throws {
        let curve = try LibCrypto.P256()
        let l = try curve.generator(times: curve.scalar(Spake2PlusVectors.draft01W1, name: "w1"))
        #expect(try curve.bytes(of: l, name: "L") == Spake2PlusVectors.draft01L)
    }

    @Test("a stored verifier of the wrong length, with w0 not below n, or with L off the curve is refused")
    func refusals() throws {
        let good = Array(try #require(Data(base64Encoded: Self.testVerifier)))
        #expect(throws: MatterCryptoError.invalidVerifierLength(96)) {
            try Verifier(serialized: Array(good.dropLast()))
        }
        #expect(throws: MatterCryptoError.invalidVerifierLength(0)) { try Verifier(serialized: []) }
        var bigW0 = good
        bigW0.replaceSubrange(0..<32, with: [UInt8](repeating: 0xFF, count: 32))
        #expect(throws: MatterCryptoError.invalidScalar(name: "w0")) { try Verifier(serialized: bigW0) }
        var offCurve = good
        offCurve[96] ^= 0x01
        #expect(throws: MatterCryptoError.invalidPoint(name: "L")) { try Verifier(serialized: offCurve) }
        var compressed = good
        compressed[32] = 0x02
        #expect(throws: MatterCryptoError.invalidPoint(name: "L")) { try Verifier(serialized: compressed) }
    }

    @Test("its description, debug description and dump show neither w0 nor L")
    func redacted() throws {
        let serialized = Array(try #require(Data(base64Encoded: Self.testVerifier)))
        let verifier = try Verifier(serialized: serialized)
        var dumped = ""
        dump(verifier, to: &dumped)
        let leaks = [
            Array(serialized.prefix(8)).hex, Array(serialized.suffix(8)).hex,
            serialized.prefix(3).map { String($0) }.joined(separator: ", "),
        ]
        for text in [String(describing: verifier), String(reflecting: verifier), dumped] {
            #expect(text.contains("redacted"))
            for leak in leaks { #expect(!text.contains(leak)) }
        }
    }
}
