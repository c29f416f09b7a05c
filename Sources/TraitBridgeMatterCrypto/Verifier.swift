/// What a Matter device stores instead of its passcode (Core §3.10, "PAKE verifier"): w0 and
/// L = w1·P. It exists so the device can run SPAKE2+ as the verifier while never holding the passcode
/// or w1. Serialized as connectedhomeip does (Spake2pVerifier::Serialize): w0 (32 bytes) then L
/// (65 bytes), the 97 bytes behind CHIP_DEVICE_CONFIG_USE_TEST_SPAKE2P_VERIFIER.
///
/// Its description and dump show neither value: with the salt, L alone allows an offline search of the
/// 27-bit passcode space.
public struct Verifier: Sendable {
    /// w0 (32 bytes) then L (65 bytes).
    public static let serializedByteCount = 97
    /// The PBKDF salt lengths Matter allows (connectedhomeip kSpake2p_Min/Max_PBKDF_Salt_Length, spake2p.py).
    public static let saltByteCounts: ClosedRange<Int> = 16...32
    /// The PBKDF iteration counts Matter allows (connectedhomeip kSpake2p_Min/Max_PBKDF_Iterations).
    public static let iterationCounts: ClosedRange<Int> = 1000...100_000

    /// w0, 32 bytes big-endian, below the group order.
    let w0: [UInt8]
    /// L = w1·P, 65 bytes uncompressed.
    let l: [UInt8]

    /// The verifier of `passcode` under `salt` and `iterations`: w0s ‖ w1s = PBKDF2-HMAC-SHA256(passcode
    /// as 4 little-endian bytes, salt, iterations, 80 bytes), w0 = w0s mod n, L = (w1s mod n)·P.
    /// - Throws: ``MatterCryptoError/invalidPasscode``, ``MatterCryptoError/invalidSaltLength(_:)``,
    ///   ``MatterCryptoError/invalidIterationCount(_:)``.
    public static func make(passcode: UInt32, salt: [UInt8], iterations: Int) throws(MatterCryptoError) -> Verifier {
        let (w0, w1) = try PasscodeDerivation.w0w1(passcode: passcode, salt: salt, iterations: iterations)
        let curve = try LibCrypto.P256()
        let l = try curve.generator(times: try curve.scalar(w1, name: "w1"))
        return Verifier(checkedW0: w0, l: try curve.bytes(of: l, name: "L"))
    }

    /// A stored verifier read back: 97 bytes, w0 below the group order, L a valid point.
    public init(serialized: [UInt8]) throws(MatterCryptoError) {
        guard serialized.count == Self.serializedByteCount else { throw .invalidVerifierLength(serialized.count) }
        let w0 = Array(serialized.prefix(LibCrypto.P256.scalarByteCount))
        let l = Array(serialized.suffix(LibCrypto.P256.pointByteCount))
        let curve = try LibCrypto.P256()
        _ = try curve.scalar(w0, name: "w0")
        _ = try curve.point(l, name: "L")
        self.init(checkedW0: w0, l: l)
    }

    /// What to store: w0 then L.
    public var serialized: [UInt8] { w0 + l }

    private init(checkedW0 w0: [UInt8], l: [UInt8]) {
        self.w0 = w0
        self.l = l
    }
}

extension Verifier: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "Verifier(w0 and L redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Matter's passcode to w0s ‖ w1s (Core §3.10; connectedhomeip Spake2pVerifier::ComputeWS, rs-matter
/// compute_w0s_w1s): PBKDF2-HMAC-SHA256 of the passcode as 4 little-endian bytes, 80 bytes out.
enum PasscodeDerivation {
    /// ceil(log2 n)/8 + 8: 40 bytes, so reducing mod n biases w0 and w1 by less than 2^-64.
    static let halfByteCount = 40

    /// Core §5.1.7.1: passcodes a device shall not use.
    static let forbiddenPasscodes: Set<UInt32> = [
        0, 11_111_111, 22_222_222, 33_333_333, 44_444_444, 55_555_555, 66_666_666, 77_777_777, 88_888_888,
        99_999_999, 12_345_678, 87_654_321,
    ]

    /// w0s ‖ w1s, 80 bytes, after checking the passcode, salt and iteration count against Matter's limits.
    static func ws(passcode: UInt32, salt: [UInt8], iterations: Int) throws(MatterCryptoError) -> [UInt8] {
        guard (1...99_999_998).contains(passcode), !forbiddenPasscodes.contains(passcode) else {
            throw .invalidPasscode
        }
        guard Verifier.saltByteCounts.contains(salt.count) else { throw .invalidSaltLength(salt.count) }
        guard Verifier.iterationCounts.contains(iterations) else { throw .invalidIterationCount(iterations) }
        let password = (0..<4).map { UInt8(truncatingIfNeeded: passcode >> (8 * $0)) }
        return try PBKDF2.sha256(password: password, salt: salt, iterations: iterations, byteCount: 2 * halfByteCount)
    }

    /// w0 = w0s mod n and w1 = w1s mod n, 32 bytes each: the prover's secrets.
    static func w0w1(
        passcode: UInt32, salt: [UInt8], iterations: Int
    ) throws(MatterCryptoError) -> (w0: [UInt8], w1: [UInt8]) {
        let ws = try ws(passcode: passcode, salt: salt, iterations: iterations)
        let curve = try LibCrypto.P256()
        let w0 = try curve.reduced(Array(ws.prefix(halfByteCount)))
        let w1 = try curve.reduced(Array(ws.suffix(halfByteCount)))
        return (try curve.bytes(of: w0), try curve.bytes(of: w1))
    }
}
