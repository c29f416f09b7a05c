import Crypto
import SwiftASN1
import Testing
import TraitBridgeMatterCodec
import X509
import TraitBridgeTesting

@testable import TraitBridgeMatterCredentials

/// The operational key pair's CSR, checked by swift-certificates, and the NOCSRElements around it.
@Suite("NOCSR")
struct NOCSRTests {
    @Test("the CSR parses back in swift-certificates, for our key, with a valid signature")
    func csrParsesAndVerifies() throws {
        let keyPair = OperationalKeyPair()
        let der = try keyPair.certificateSigningRequest()
        let csr = try CertificateSigningRequest(derEncoded: der)
        #expect(csr.publicKey == Certificate.PublicKey(keyPair.privateKey.publicKey))
        #expect(csr.publicKey.isValidSignature(csr.signature, for: csr))
        #expect(csr.signatureAlgorithm == .ecdsaWithSHA256)
        #expect(csr.subject.description == "OU=CSA")
        #expect(try csr.attributes.extensionRequest?.extensions.isEmpty == true)
    }

    @Test("NOCSRElements: {1: csr, 2: nonce}, and the attestation TBS appends the challenge")
    func elements() throws {
        let csr = try OperationalKeyPair().certificateSigningRequest()
        let nonce = [UInt8](repeating: 0xA5, count: 32)
        let elements = try NOCSR.nocsrElements(csr: csr, nonce: nonce)
        let decoded = try TLVElement(decoding: elements).value
        #expect(try decoded.octets(1) == csr)
        #expect(try decoded.octets(2) == nonce)
        #expect(decoded[3] == nil)
        let challenge = [UInt8](repeating: 7, count: 16)
        #expect(try NOCSR.attestationTBS(elements: elements, attestationChallenge: challenge) == elements + challenge)
    }

    @Test("a nonce that is not 32 bytes, and an oversized result, are refused")
    func refusesBadInput() {
        #expect(throws: NOCSR.InputError.nonce(byteCount: 16)) {
            try NOCSR.nocsrElements(csr: [1], nonce: [UInt8](repeating: 0, count: 16))
        }
        #expect(throws: NOCSR.InputError.tooLong(byteCount: 1_011)) {
            try NOCSR.nocsrElements(csr: [UInt8](repeating: 0, count: 970), nonce: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("the key pair prints its public key and never the private one")
    func noSecretInDescription() {
        let keyPair = OperationalKeyPair()
        let secret = Array(keyPair.privateKey.rawRepresentation).hex
        #expect(!keyPair.description.contains(secret))
        #expect(keyPair.description.contains(keyPair.publicKey.hex))
    }
}
