import Crypto
import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterCrypto

/// AES-128-CCM against published vectors (AESCCMVectors.swift says where each comes from), and the
/// refusals: an altered message yields no plaintext, wrong lengths say what is expected.
@Suite("AES-128-CCM")
struct AESCCMTests {
    @Test("RFC 3610's packet vectors seal and open with their 8- and 10-byte tags", arguments: AESCCMVectors.rfc3610)
    func rfc3610(vector: CCMVector) throws {
        let key = SymmetricKey(data: [UInt8](hex: vector.key))
        let nonce = [UInt8](hex: vector.nonce)
        let aad = [UInt8](hex: vector.aad)
        let sealed = try AESCCM.seal(
            key: key, nonce: nonce, plaintext: [UInt8](hex: vector.plaintext), aad: aad, tagLength: vector.tagLength)
        #expect(sealed.hex == vector.sealed)
        let opened = try AESCCM.open(
            key: key, nonce: nonce, sealed: [UInt8](hex: vector.sealed), aad: aad, tagLength: vector.tagLength)
        #expect(opened.hex == vector.plaintext)
    }

    @Test("Matter-shaped vectors (13-byte nonce, 16-byte MIC) seal and open", arguments: AESCCMVectors.matter)
    func matter(vector: CCMVector) throws {
        let key = SymmetricKey(data: [UInt8](hex: vector.key))
        let nonce = [UInt8](hex: vector.nonce)
        let aad = [UInt8](hex: vector.aad)
        let sealed = try AESCCM.seal(key: key, nonce: nonce, plaintext: [UInt8](hex: vector.plaintext), aad: aad)
        #expect(sealed.hex == vector.sealed)
        #expect(try AESCCM.open(key: key, nonce: nonce, sealed: sealed, aad: aad).hex == vector.plaintext)
    }

    @Test(
        "a flipped bit anywhere in the ciphertext, MIC, header or nonce opens nothing", arguments: AESCCMVectors.matter)
    func tampering(vector: CCMVector) {
        let key = SymmetricKey(data: [UInt8](hex: vector.key))
        let nonce = [UInt8](hex: vector.nonce)
        let aad = [UInt8](hex: vector.aad)
        let sealed = [UInt8](hex: vector.sealed)
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: MatterCryptoError.authenticationFailed) {
                try AESCCM.open(key: key, nonce: nonce, sealed: altered, aad: aad)
            }
        }
        for index in aad.indices {
            var altered = aad
            altered[index] ^= 0x80
            #expect(throws: MatterCryptoError.authenticationFailed) {
                try AESCCM.open(key: key, nonce: nonce, sealed: sealed, aad: altered)
            }
        }
        #expect(throws: MatterCryptoError.authenticationFailed) {
            try AESCCM.open(key: key, nonce: nonce, sealed: sealed, aad: aad + [0])
        }
        var otherNonce = nonce
        otherNonce[12] ^= 0x01
        #expect(throws: MatterCryptoError.authenticationFailed) {
            try AESCCM.open(key: key, nonce: otherNonce, sealed: sealed, aad: aad)
        }
        #expect(throws: MatterCryptoError.authenticationFailed) {
            try AESCCM.open(
                key: SymmetricKey(data: [UInt8](repeating: 7, count: 16)), nonce: nonce, sealed: sealed, aad: aad)
        }
    }

    struct LengthCase: Sendable, CustomStringConvertible {
        var description: String
        var keyByteCount = 16
        var nonceByteCount = 13
        var sealedByteCount = 20
        var expected: MatterCryptoError
    }

    @Test(
        "keys, nonces and sealed messages of the wrong length are refused before libcrypto sees them",
        arguments: [
            LengthCase(description: "AES-256 key", keyByteCount: 32, expected: .invalidKeyLength(32)),
            LengthCase(description: "12-byte nonce", nonceByteCount: 12, expected: .invalidNonceLength(12)),
            LengthCase(description: "empty nonce", nonceByteCount: 0, expected: .invalidNonceLength(0)),
            LengthCase(description: "shorter than the MIC", sealedByteCount: 15, expected: .ciphertextTooShort(15)),
        ])
    func lengths(lengthCase: LengthCase) {
        let key = SymmetricKey(data: [UInt8](repeating: 1, count: lengthCase.keyByteCount))
        let nonce = [UInt8](repeating: 2, count: lengthCase.nonceByteCount)
        #expect(throws: lengthCase.expected) {
            try AESCCM.open(
                key: key, nonce: nonce, sealed: [UInt8](repeating: 3, count: lengthCase.sealedByteCount), aad: [])
        }
        if lengthCase.sealedByteCount >= 16 {
            #expect(throws: lengthCase.expected) { try AESCCM.seal(key: key, nonce: nonce, plaintext: [1], aad: []) }
        }
    }

    @Test("CCM's own limits: odd or out-of-range tags, and messages over 65 535 bytes with a 13-byte nonce")
    func ccmLimits() {
        let key = SymmetricKey(data: [UInt8](repeating: 1, count: 16))
        let nonce = [UInt8](repeating: 2, count: 13)
        for tagLength in [0, 2, 7, 18] {
            #expect(throws: MatterCryptoError.invalidTagLength(tagLength)) {
                try AESCCM.seal(key: key, nonce: nonce, plaintext: [], aad: [], tagLength: tagLength)
            }
        }
        #expect(throws: MatterCryptoError.messageTooLong(65_536, limit: 65_535)) {
            try AESCCM.seal(key: key, nonce: nonce, plaintext: [UInt8](repeating: 0, count: 65_536), aad: [])
        }
        let longest = [UInt8](repeating: 0xA5, count: 65_535)
        #expect(
            (try? AESCCM.open(
                key: key, nonce: nonce, sealed: AESCCM.seal(key: key, nonce: nonce, plaintext: longest, aad: []),
                aad: [])) == longest)
    }
}
