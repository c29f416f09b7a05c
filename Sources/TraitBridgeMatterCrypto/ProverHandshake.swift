public import Crypto

/// The commissioner's side of one SPAKE2+ run in PASE (Matter Core §3.10): from the passcode and the
/// device's PBKDF parameters it makes Pake1 (pA), then checks the device's Pake2 (pB, cB) in constant
/// time and answers with Pake3 (cA) and Ke. It exists so a commissioner (and the tests) can run the
/// full exchange against a ``VerifierHandshake``. A value type: the caller does the I/O.
public struct ProverHandshake: Sendable {
    enum State: Sendable {
        case awaitingPake2(x: [UInt8])
        case finished
    }

    /// The prover's share X = x·P + w0·M, 65 bytes: the Pake1 payload.
    public let pA: [UInt8]
    private let w0: [UInt8]
    private let w1: [UInt8]
    private let context: [UInt8]
    private let idProver: [UInt8]
    private let idVerifier: [UInt8]
    private var state: State

    /// `salt` and `iterations` from the device's PBKDFParamResponse; `context` as for
    /// ``VerifierHandshake/init(verifier:context:)``. Draws x from OpenSSL's DRBG.
    /// - Throws: ``MatterCryptoError/invalidPasscode``, ``MatterCryptoError/invalidSaltLength(_:)``,
    ///   ``MatterCryptoError/invalidIterationCount(_:)``.
    public init(passcode: UInt32, salt: [UInt8], iterations: Int, context: [UInt8]) throws(MatterCryptoError) {
        let (w0, w1) = try PasscodeDerivation.w0w1(passcode: passcode, salt: salt, iterations: iterations)
        try self.init(w0: w0, w1: w1, context: context, idProver: [], idVerifier: [], x: nil)
    }

    /// From w0 and w1 directly, with identities and, for vector tests only, the ephemeral scalar x.
    init(
        w0: [UInt8], w1: [UInt8], context: [UInt8], idProver: [UInt8], idVerifier: [UInt8], x: [UInt8]?
    ) throws(MatterCryptoError) {
        let share = try Spake2Plus.proverShare(w0: w0, x: x)
        pA = share.pA
        self.w0 = w0
        self.w1 = w1
        self.context = context
        self.idProver = idProver
        self.idVerifier = idVerifier
        state = .awaitingPake2(x: share.x)
    }

    /// Pake2 in, Pake3 out: checks pB (an uncompressed point on P-256, not the identity) and the
    /// device's cB in constant time, then returns cA and Ke. The handshake ends either way.
    /// - Throws: ``MatterCryptoError/invalidPoint(name:)`` for pB;
    ///   ``MatterCryptoError/confirmationMismatch(name:)`` when the device's verifier is not of this
    ///   passcode or a share was altered; ``MatterCryptoError/handshakeOutOfOrder(step:state:)``.
    public mutating func finish(pake2: Pake2) throws(MatterCryptoError) -> (cA: [UInt8], ke: SymmetricKey) {
        guard case .awaitingPake2(let x) = state else { throw .handshakeOutOfOrder(step: "Pake2", state: "finished") }
        state = .finished
        let secrets = try Spake2Plus.proverSecrets(w0: w0, w1: w1, x: x, pB: pake2.pB)
        let transcript = Spake2Plus.transcript(
            context: context, idProver: idProver, idVerifier: idVerifier, pA: pA, pB: pake2.pB, z: secrets.z,
            v: secrets.v, w0: w0)
        let keys = KeySchedule(transcript: transcript)
        guard LibCrypto.constantTimeEqual(pake2.cB, keys.cB(pA: pA)) else { throw .confirmationMismatch(name: "cB") }
        return (keys.cA(pB: pake2.pB), SymmetricKey(data: keys.ke))
    }
}

extension ProverHandshake: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The step it waits for, never w0, w1, x or Ke.
    public var description: String {
        switch state {
        case .awaitingPake2: "ProverHandshake(awaiting Pake2)"
        case .finished: "ProverHandshake(finished)"
        }
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
