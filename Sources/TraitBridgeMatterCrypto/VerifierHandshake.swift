public import Crypto

/// The device's side of one SPAKE2+ run in PASE (Matter Core §3.10 and the PASE messages): it takes the
/// commissioner's Pake1 (pA), answers with Pake2 (pB, cB), then checks Pake3 (cA) in constant time and
/// only then gives out Ke. It exists so the device proves and checks knowledge of the passcode with
/// nothing but its stored ``Verifier``. A value type: the caller does the I/O; one run per attempt.
public struct VerifierHandshake: Sendable {
    enum State: Sendable {
        case awaitingPake1
        case awaitingPake3(expectedCA: [UInt8], ke: [UInt8])
        case finished
    }

    private let verifier: Verifier
    private let context: [UInt8]
    private let idProver: [UInt8]
    private let idVerifier: [UInt8]
    private var state = State.awaitingPake1

    /// `context`: ``Spake2Plus/commissioningContext(pbkdfParamRequest:pbkdfParamResponse:)`` of this
    /// exchange's PBKDFParamRequest and PBKDFParamResponse.
    public init(verifier: Verifier, context: [UInt8]) {
        self.init(verifier: verifier, context: context, idProver: [], idVerifier: [])
    }

    /// With identities (Matter's are empty; the draft-01 vectors use "client" and "server").
    init(verifier: Verifier, context: [UInt8], idProver: [UInt8], idVerifier: [UInt8]) {
        self.verifier = verifier
        self.context = context
        self.idProver = idProver
        self.idVerifier = idVerifier
    }

    /// Pake1 in, Pake2 out: checks pA (an uncompressed point on P-256, not the identity), draws y from
    /// OpenSSL's DRBG, and returns pB and cB. On an invalid pA the handshake ends.
    /// - Throws: ``MatterCryptoError/invalidPoint(name:)`` for pA;
    ///   ``MatterCryptoError/handshakeOutOfOrder(step:state:)`` when Pake1 was already answered.
    public mutating func respond(toPake1 pA: [UInt8]) throws(MatterCryptoError) -> Pake2 {
        try respond(toPake1: pA, y: nil)
    }

    /// `y`: the ephemeral scalar, given only by vector tests; nil draws a random one.
    mutating func respond(toPake1 pA: [UInt8], y: [UInt8]?) throws(MatterCryptoError) -> Pake2 {
        guard case .awaitingPake1 = state else { throw .handshakeOutOfOrder(step: "Pake1", state: stateName) }
        state = .finished
        let step = try Spake2Plus.verifierStep(w0: verifier.w0, l: verifier.l, pA: pA, y: y)
        let transcript = Spake2Plus.transcript(
            context: context, idProver: idProver, idVerifier: idVerifier, pA: pA, pB: step.pB, z: step.z, v: step.v,
            w0: verifier.w0)
        let keys = KeySchedule(transcript: transcript)
        state = .awaitingPake3(expectedCA: keys.cA(pB: step.pB), ke: keys.ke)
        return Pake2(pB: step.pB, cB: keys.cB(pA: pA))
    }

    /// Pake3 in: Ke, the secret Matter derives the PASE session keys from (HKDF, "SessionKeys"), when
    /// cA matches (compared in constant time). The handshake ends either way.
    /// - Throws: ``MatterCryptoError/confirmationMismatch(name:)`` when the commissioner used another
    ///   passcode or a share was altered; ``MatterCryptoError/handshakeOutOfOrder(step:state:)``.
    public mutating func confirm(pake3 cA: [UInt8]) throws(MatterCryptoError) -> SymmetricKey {
        guard case .awaitingPake3(let expectedCA, let ke) = state else {
            throw .handshakeOutOfOrder(step: "Pake3", state: stateName)
        }
        state = .finished
        guard LibCrypto.constantTimeEqual(cA, expectedCA) else { throw .confirmationMismatch(name: "cA") }
        return SymmetricKey(data: ke)
    }

    private var stateName: String {
        switch state {
        case .awaitingPake1: "awaiting Pake1"
        case .awaitingPake3: "awaiting Pake3"
        case .finished: "finished"
        }
    }
}

extension VerifierHandshake: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The step it waits for, never w0, L, cA or Ke.
    public var description: String { "VerifierHandshake(\(stateName))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// The device's Pake2 payload (PASE): its share pB = Y and its confirmation cB = HMAC(KcB, pA).
/// Public values; they exist as a type so the two fields cannot be swapped.
public struct Pake2: Sendable, Hashable {
    /// Y, 65 bytes uncompressed.
    public var pB: [UInt8]
    /// HMAC-SHA256(KcB, pA), 32 bytes.
    public var cB: [UInt8]

    /// The two fields as read from, or to be written to, the Pake2 message.
    public init(pB: [UInt8], cB: [UInt8]) {
        self.pB = pB
        self.cB = cB
    }
}
