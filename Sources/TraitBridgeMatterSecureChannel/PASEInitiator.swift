import TraitBridgeMatterCrypto

/// The commissioner's side of PASE (Core §4.14.1) as payloads in and out: PBKDFParamRequest, then
/// Pake1 from the device's PBKDFParamResponse, then Pake3 and the session keys from its Pake2. It
/// exists so the device's tests and fuzz targets open a real PASE session with the node, the same
/// handshake a controller runs, without a controller. A value type: the caller frames and sends.
public struct PASEInitiator: Sendable {
    public let request: PBKDFParamRequest
    private var prover: ProverHandshake?
    /// The session ID the device allocated (its PBKDFParamResponse's), once answered.
    public private(set) var responderSessionID: UInt16 = 0

    /// A request with `random` (32 bytes) and our session ID `sessionID`.
    public init(random: [UInt8], sessionID: UInt16) {
        request = PBKDFParamRequest(
            initiatorRandom: random, initiatorSessionID: sessionID, initiatorSessionParameters: .mrpDefaults)
    }

    /// The PBKDFParamRequest payload.
    public var pbkdfParamRequest: [UInt8] { request.encoded }

    /// Pake1's payload after the device's PBKDFParamResponse `response`, for `passcode`.
    /// - Throws: when the response does not decode, carries no PBKDF parameters, or the passcode is invalid.
    public mutating func pake1(answering response: [UInt8], passcode: UInt32) throws -> [UInt8] {
        let decoded = try PBKDFParamResponse(decoding: response)
        guard let parameters = decoded.pbkdfParameters else { throw PASEInitiatorError.noPBKDFParameters }
        responderSessionID = decoded.responderSessionID
        let context = Spake2Plus.commissioningContext(pbkdfParamRequest: request.encoded, pbkdfParamResponse: response)
        let prover = try ProverHandshake(
            passcode: passcode, salt: parameters.salt, iterations: Int(parameters.iterations), context: context)
        self.prover = prover
        return Pake1(pA: prover.pA).encoded
    }

    /// Pake3's payload and the session's keys after the device's Pake2 `pake2`.
    /// - Throws: when Pake2 does not decode or its confirmation is wrong (another passcode).
    public mutating func pake3(answering pake2: [UInt8]) throws -> (pake3: [UInt8], keys: SessionKeys) {
        guard var prover else { throw PASEInitiatorError.pake2BeforePake1 }
        let (confirmation, ke) = try prover.finish(pake2: try Pake2(decoding: pake2))
        self.prover = nil
        return (Pake3(cA: confirmation).encoded, SessionKeys(paseKe: ke))
    }
}

/// Why ``PASEInitiator`` cannot go on.
public enum PASEInitiatorError: Error, Sendable, Equatable {
    /// The device's PBKDFParamResponse has no PBKDF parameters (it was asked for them).
    case noPBKDFParameters
    /// Pake2 came before Pake1 was made.
    case pake2BeforePake1
}
