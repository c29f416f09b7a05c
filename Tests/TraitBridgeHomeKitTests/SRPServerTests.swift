import Foundation
import Testing
import TraitBridgeTesting

@testable import TraitBridgeHomeKit

/// The accessory's SRP against one exchange computed by aiohomekit's own SRP (Fixtures/srp-vector.json,
/// written by Fixtures/make-srp-vector.py): the same B, the controller's proof accepted, the same
/// session key and server proof.
@Suite("SRP-6a of pair-setup")
struct SRPServerTests {
    static let vector: [String: String] = {
        let path = TestPaths(filePath: #filePath).repository + "/Tests/TraitBridgeHomeKitTests/Fixtures/srp-vector.json"
        let data = FileManager.default.contents(atPath: path) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: String] ?? [:]
    }()

    static func bytes(_ key: String) -> [UInt8] {
        let hex = Array(vector[key] ?? "")
        return stride(from: 0, to: hex.count - 1, by: 2).compactMap { UInt8(String(hex[$0...$0 + 1]), radix: 16) }
    }

    static func server() -> SRPServer {
        SRPServer(setupCode: vector["code"] ?? "", salt: bytes("salt"), privateValue: bytes("b"))
    }

    @Test("B, the session key and the server's proof match aiohomekit's")
    func matchesAiohomekit() {
        #expect(Self.vector.count == 8, "the fixture is there")
        let server = Self.server()
        #expect(server.publicKey == Self.bytes("B"))
        let verified = server.verify(clientPublicKey: Self.bytes("A"), clientProof: Self.bytes("M1"))
        #expect(verified?.sessionKey == Self.bytes("K"))
        #expect(verified?.proof == Self.bytes("M2"))
    }

    @Test("k is RFC 5054's H(N | PAD(g)) for the 3072-bit group (aiohomekit's constant)")
    func multiplier() {
        let expected =
            "a9c2e2559bf0ebb53f0cbbf62282906bede7f2182f00678211fbd5bde5b285033a4993503b87397f9be5ec02080fedbc"
            + "0835587ad039060879b8621e8c3659e0"
        let k = SRPServer.padded(SRPServer.multiplier).drop { $0 == 0 }.map { String(format: "%02x", $0) }.joined()
        #expect(k == expected)
    }

    @Test("a wrong proof, a proof of the wrong length and A = 0 mod N are refused")
    func refusals() {
        let server = Self.server()
        var proof = Self.bytes("M1")
        proof[0] ^= 1
        #expect(server.verify(clientPublicKey: Self.bytes("A"), clientProof: proof) == nil)
        #expect(server.verify(clientPublicKey: Self.bytes("A"), clientProof: Array(proof.prefix(10))) == nil)
        let modulus = SRPServer.padded(SRPServer.modulus)
        #expect(server.verify(clientPublicKey: modulus, clientProof: Self.bytes("M1")) == nil)
        #expect(server.verify(clientPublicKey: [0], clientProof: Self.bytes("M1")) == nil)
        #expect(server.verify(clientPublicKey: [UInt8](repeating: 1, count: 385), clientProof: Self.bytes("M1")) == nil)
    }
}
