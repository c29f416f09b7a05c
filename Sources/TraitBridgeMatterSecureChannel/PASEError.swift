public import TraitBridgeMatterCrypto
public import TraitBridgeMatterTransport

/// Why a PASE attempt ended without a session, as ``PASEResponder`` reports it. No case carries a
/// passcode, w0, L, a share or a key (``MatterCryptoError`` carries none either), so the descriptions
/// are safe to log.
public enum PASEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A message's payload was refused; the responder answered INVALID_PARAMETER.
    case malformedMessage(PASEMessageError)
    /// The commissioner asked for a passcode other than the commissioning passcode (ID 0).
    case unsupportedPasscodeID(UInt16)
    /// A PASE message out of order on the handshake's exchange (e.g. Pake3 before Pake1).
    case unexpectedMessage(received: SecureChannelOpcode, expected: SecureChannelOpcode)
    /// SPAKE2+ refused: pA is no valid point, or cA does not match (another passcode, or tampering).
    case handshake(MatterCryptoError)
    /// The commissioner sent a StatusReport, ending the attempt.
    case peerStatusReport(StatusReport)
    /// The commissioner sent something in place of a StatusReport that is not one.
    case malformedStatusReport(StatusReport.DecodeError)
    /// The caller's timer for the handshake fired (``PASEResponder/timeOut()``).
    case timedOut

    public var description: String {
        switch self {
        case .malformedMessage(let error):
            "PASE: \(error) — answered INVALID_PARAMETER"
        case .unsupportedPasscodeID(let id):
            "PASE: passcode ID \(id) requested; only 0, the commissioning passcode, exists"
                + " — answered INVALID_PARAMETER"
        case .unexpectedMessage(let received, let expected):
            "PASE: \(received) arrived while \(expected) was expected — answered INVALID_PARAMETER; the commissioner"
                + " must start over"
        case .handshake(.confirmationMismatch):
            "PASE: the commissioner's confirmation (cA) does not match — it used another passcode, or a message"
                + " was altered; answered INVALID_PARAMETER"
        case .handshake(let error):
            "PASE: \(error) — answered INVALID_PARAMETER"
        case .peerStatusReport(let report):
            "PASE: the commissioner ended the attempt with \(report) — if INVALID_PARAMETER, check the passcode"
        case .malformedStatusReport(let error):
            "PASE: the commissioner sent a malformed status report (\(error)); the attempt is over"
        case .timedOut:
            "PASE: the handshake did not finish in time — the commissioner went away or is too slow; it may retry"
        }
    }
}
