import Crypto

/// SPAKE2+ with P-256, SHA-256, HKDF-SHA256 and HMAC-SHA256 as Matter runs it in PASE (Core §3.10):
/// draft-bar-cfrg-spake2plus-01, which is what connectedhomeip (CHIPCryptoPAL.cpp, Spake2p) and
/// rs-matter (sc/pase/spake2p.rs) implement. The handshakes (``VerifierHandshake``,
/// ``ProverHandshake``) are built from the steps here; this type exists for the one value both
/// Matter roles compute the same way, the context.
///
/// Where Matter differs from RFC 9383 (the published SPAKE2+): the key schedule (Ka ‖ Ke = Hash(TT),
/// 16-byte confirmation keys from Ka, Ke used as is, where RFC 9383 has K_main = Hash(TT), 32-byte
/// confirmation keys and K_shared = KDF(K_main, "SharedKey")), and the passcode derivation (PBKDF2 of
/// the passcode alone, no identities). The shares, Z, V and the transcript TT are the same.
public enum Spake2Plus {
    /// The context both sides put first in TT: SHA-256("CHIP PAKE V1 Commissioning" ‖ PBKDFParamRequest
    /// ‖ PBKDFParamResponse), the two messages as sent (their TLV payloads). connectedhomeip
    /// PASESession (kSpake2pContext, mCommissioningHash), rs-matter Spake2P::start_context.
    public static func commissioningContext(pbkdfParamRequest: [UInt8], pbkdfParamResponse: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(data: Array("CHIP PAKE V1 Commissioning".utf8))
        hash.update(data: pbkdfParamRequest)
        hash.update(data: pbkdfParamResponse)
        return Array(hash.finalize())
    }

    /// M for P-256 (RFC 9383 §4, as in draft-01: 02886e2f…2f compressed), uncompressed.
    static let m: [UInt8] = bytes(
        "04886e2f97ace46e55ba9dd7242579f2993b64e16ef3dcab95afd497333d8fa12f"
            + "5ff355163e43ce224e0b0e65ff02ac8e5c7be09419c785e0ca547d55a12e2d20")
    /// N for P-256 (RFC 9383 §4, as in draft-01: 03d8bbd6…49 compressed), uncompressed.
    static let n: [UInt8] = bytes(
        "04d8bbd6c639c62937b04d997f38c3770719c629d7014d49a24b4f98baa1292b49"
            + "07d60aa6bfade45008a636337f5168c64d9bd36034808cd564490b1e656edbe7")

    // MARK: Steps

    /// The prover's share: x (random unless given, for vectors) and pA = X = x·P + w0·M.
    static func proverShare(w0: [UInt8], x: [UInt8]?) throws(MatterCryptoError) -> (x: [UInt8], pA: [UInt8]) {
        let curve = try LibCrypto.P256()
        let w0 = try curve.scalar(w0, name: "w0")
        let scalar = try ephemeral(x, name: "x", on: curve)
        let share = try curve.add(curve.generator(times: scalar), curve.multiply(curve.point(m, name: "M"), by: w0))
        return (try curve.bytes(of: scalar), try curve.bytes(of: share, name: "pA"))
    }

    /// The prover's Z = x·(Y − w0·N) and V = w1·(Y − w0·N), after checking the verifier's pB = Y.
    static func proverSecrets(
        w0: [UInt8], w1: [UInt8], x: [UInt8], pB: [UInt8]
    ) throws(MatterCryptoError) -> (z: [UInt8], v: [UInt8]) {
        let curve = try LibCrypto.P256()
        let share = try curve.point(pB, name: "pB")
        let w0 = try curve.scalar(w0, name: "w0")
        let unblinded = try curve.subtract(share, curve.multiply(curve.point(n, name: "N"), by: w0))
        let z = try curve.multiply(unblinded, by: curve.scalar(x, name: "x"))
        let v = try curve.multiply(unblinded, by: curve.scalar(w1, name: "w1"))
        return (try curve.bytes(of: z, name: "Z"), try curve.bytes(of: v, name: "V"))
    }

    /// The verifier's step, after checking the prover's pA = X: y (random unless given, for vectors),
    /// pB = Y = y·P + w0·N, Z = y·(X − w0·M), V = y·L. y does not leave this function.
    static func verifierStep(
        w0: [UInt8], l: [UInt8], pA: [UInt8], y: [UInt8]?
    ) throws(MatterCryptoError) -> (pB: [UInt8], z: [UInt8], v: [UInt8]) {
        let curve = try LibCrypto.P256()
        let share = try curve.point(pA, name: "pA")
        let w0 = try curve.scalar(w0, name: "w0")
        let scalar = try ephemeral(y, name: "y", on: curve)
        let response = try curve.add(curve.generator(times: scalar), curve.multiply(curve.point(n, name: "N"), by: w0))
        let unblinded = try curve.subtract(share, curve.multiply(curve.point(m, name: "M"), by: w0))
        let z = try curve.multiply(unblinded, by: scalar)
        let v = try curve.multiply(curve.point(l, name: "L"), by: scalar)
        return (
            try curve.bytes(of: response, name: "pB"), try curve.bytes(of: z, name: "Z"),
            try curve.bytes(of: v, name: "V")
        )
    }

    /// TT = Context, idProver (A), idVerifier (B), M, N, X, Y, Z, V, w0, each after its length as 8
    /// little-endian bytes (RFC 9383 §3.3, unchanged from draft-01; Matter's identities are empty).
    static func transcript(
        context: [UInt8], idProver: [UInt8], idVerifier: [UInt8], pA: [UInt8], pB: [UInt8], z: [UInt8], v: [UInt8],
        w0: [UInt8]
    ) -> [UInt8] {
        var transcript: [UInt8] = []
        for field in [context, idProver, idVerifier, m, n, pA, pB, z, v, w0] {
            transcript += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(field.count) >> (8 * $0)) }
            transcript += field
        }
        return transcript
    }

    /// x or y: the one a vector test gives, or a fresh random one.
    private static func ephemeral(
        _ given: [UInt8]?, name: String, on curve: LibCrypto.P256
    ) throws(MatterCryptoError) -> LibCrypto.Scalar {
        guard let given else { return try curve.randomScalar() }
        return try curve.scalar(given, name: name)
    }

    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { index in
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
                preconditionFailure("M and N are hexadecimal constants")
            }
            return byte
        }
    }
}

/// Matter's SPAKE2+ key schedule, draft-01's rather than RFC 9383 §3.4's (connectedhomeip
/// Spake2p::GenerateKeys, rs-matter compute_ke_ca_cb): Ka ‖ Ke = SHA-256(TT), KcA ‖ KcB =
/// HKDF-SHA256(salt: none, Ka, "ConfirmationKeys", 32 bytes), cA = HMAC(KcA, pB), cB = HMAC(KcB, pA).
/// Ke seeds the session keys.
struct KeySchedule {
    let ka: [UInt8]
    let ke: [UInt8]
    let kcA: [UInt8]
    let kcB: [UInt8]

    init(transcript: [UInt8]) {
        let hash = Array(SHA256.hash(data: transcript))
        ka = Array(hash.prefix(16))
        ke = Array(hash.suffix(16))
        let confirmationKeys = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ka), salt: [UInt8](), info: Array("ConfirmationKeys".utf8),
            outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
        kcA = Array(confirmationKeys.prefix(16))
        kcB = Array(confirmationKeys.suffix(16))
    }

    /// The prover's confirmation, over the verifier's share.
    func cA(pB: [UInt8]) -> [UInt8] { Array(HMAC<SHA256>.authenticationCode(for: pB, using: SymmetricKey(data: kcA))) }

    /// The verifier's confirmation, over the prover's share.
    func cB(pA: [UInt8]) -> [UInt8] { Array(HMAC<SHA256>.authenticationCode(for: pA, using: SymmetricKey(data: kcB))) }
}
