import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterCrypto

/// PBKDF2-HMAC-SHA256 against RFC 7914, and Matter's use of it: the passcode as 4 little-endian bytes,
/// 80 bytes out, Matter's limits on passcode, salt and iteration count.
@Suite("PBKDF2-HMAC-SHA256")
struct PBKDF2Tests {
    struct Vector: Sendable, CustomStringConvertible {
        var password: String
        var salt: String
        var iterations: Int
        var derived: String
        var description: String { "P=\"\(password)\", S=\"\(salt)\", c=\(iterations)" }
    }

    /// RFC 7914 §11 ("Test Vectors for PBKDF2 with HMAC-SHA-256"), dkLen = 64.
    static let rfc7914Vectors = [
        Vector(
            password: "passwd", salt: "salt", iterations: 1,
            derived: "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"),
        Vector(
            password: "Password", salt: "NaCl", iterations: 80_000,
            derived: "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"),
    ]

    @Test("RFC 7914 §11's vectors", arguments: rfc7914Vectors)
    func rfc7914(vector: Vector) throws {
        let derived = try PBKDF2.sha256(
            password: Array(vector.password.utf8), salt: Array(vector.salt.utf8), iterations: vector.iterations,
            byteCount: 64)
        #expect(derived.hex == vector.derived)
    }

    @Test("passcode 123456, 2000 iterations: chip-tool's w0s ‖ w1s (rs-matter's test_pbkdf2)")
    func matterPasscode() throws {
        // rs-matter/src/sc/pase/spake2p.rs (project-chip/rs-matter@087262c6), test_pbkdf2: "the vectors from
        // one sample run of chip-tool along with our PBKDFParamResponse".
        let salt = [UInt8](hex: "04a1d2c611f0bd367867797bfe823600")
        let ws = try PasscodeDerivation.ws(passcode: 123_456, salt: salt, iterations: 2000)
        #expect(
            ws.hex
                == "c789339cc5ebbcf6df04a91111064c15ac5aea67699f3262cfc6e919e8a40bb342e8c68ea99a73e2"
                + "59d117d8edcb728cbf3ba98802d8454bd02de5e41cc3d700033c86209a425f55963b9f6f79efcb37")
    }

    struct LimitCase: Sendable, CustomStringConvertible {
        var description: String
        var passcode: UInt32 = 20_202_021
        var saltByteCount = 16
        var iterations = 1000
        var expected: MatterCryptoError
    }

    @Test(
        "passcodes, salts and iteration counts outside Matter's limits are refused",
        arguments: [
            LimitCase(description: "passcode 0", passcode: 0, expected: .invalidPasscode),
            LimitCase(description: "passcode 11111111", passcode: 11_111_111, expected: .invalidPasscode),
            LimitCase(description: "passcode 12345678", passcode: 12_345_678, expected: .invalidPasscode),
            LimitCase(description: "passcode 87654321", passcode: 87_654_321, expected: .invalidPasscode),
            LimitCase(description: "passcode 99999999", passcode: 99_999_999, expected: .invalidPasscode),
            LimitCase(description: "passcode over 8 digits", passcode: 100_000_000, expected: .invalidPasscode),
            LimitCase(description: "15-byte salt", saltByteCount: 15, expected: .invalidSaltLength(15)),
            LimitCase(description: "33-byte salt", saltByteCount: 33, expected: .invalidSaltLength(33)),
            LimitCase(description: "999 iterations", iterations: 999, expected: .invalidIterationCount(999)),
            LimitCase(description: "100001 iterations", iterations: 100_001, expected: .invalidIterationCount(100_001)),
        ])
    func limits(limitCase: LimitCase) {
        let salt = [UInt8](repeating: 0x5A, count: limitCase.saltByteCount)
        #expect(throws: limitCase.expected) {
            try Verifier.make(passcode: limitCase.passcode, salt: salt, iterations: limitCase.iterations)
        }
        #expect(throws: limitCase.expected) {
            try ProverHandshake(passcode: limitCase.passcode, salt: salt, iterations: limitCase.iterations, context: [])
        }
    }
}
