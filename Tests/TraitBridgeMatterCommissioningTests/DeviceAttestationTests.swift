import Testing
import TraitBridgeMatterInteraction
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning

/// The embedded SDK test credentials and the attestation replies' input checks.
@Suite struct DeviceAttestationTests {
    let attestation = DeviceAttestation.sdkTestCredentials

    @Test func `the test Certification Declaration names vendor FFF1 and product 8001`() throws {
        let cd = attestation.certificationDeclaration
        #expect(cd.count == 541)
        // The CMS eContent: OCTET STRING 04 82 01 5E around the CD's TLV.
        let marker: [UInt8] = [0x04, 0x82, 0x01, 0x5E]
        let start = try #require((0..<(cd.count - 4)).first { Array(cd[$0..<$0 + 4]) == marker }) + 4
        let content = try TLVElement(decoding: Array(cd[start..<start + 0x15E])).value
        #expect(try content.uint(1, as: UInt16.self) == 0xFFF1)
        #expect(try content.array(2).contains(.unsigned(0x8001)))
        #expect(try content.uint(3, as: UInt32.self) == 0x0016)
        #expect(try content.uint(8, as: UInt8.self) == 0)
    }

    @Test func `certificate types 1 and 2 are the DAC and the PAI`() {
        #expect(attestation.certificate(type: 1)?.count == 491)
        #expect(attestation.certificate(type: 2)?.count == 463)
        #expect(attestation.certificate(type: 0) == nil)
        #expect(DeviceAttestation.sdkTestPAACertificate.count == 449)
    }

    @Test func `wrong nonce and challenge sizes are refused`() {
        let nonce = [UInt8](repeating: 0, count: 32)
        #expect(throws: DeviceAttestation.InputError.nonce(byteCount: 31)) {
            try attestation.attestationResponse(nonce: Array(nonce.dropLast()), attestationChallenge: Session.challenge)
        }
        #expect(throws: DeviceAttestation.InputError.attestationChallenge(byteCount: 15)) {
            try attestation.attestationResponse(nonce: nonce, attestationChallenge: Array(Session.challenge.dropLast()))
        }
    }

    @Test func `printing shows sizes, never the key`() {
        #expect(attestation.description == "device attestation: DAC 491 B, PAI 463 B, CD 541 B")
        #expect(!String(reflecting: attestation).contains("aab600ae"))
    }
}
