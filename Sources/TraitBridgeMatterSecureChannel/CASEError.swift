public import TraitBridgeMatterCredentials
public import TraitBridgeMatterTransport

/// Why a CASE handshake ended without a session, as ``CASEResponder`` reports it, with the StatusReport
/// the device answered (the SDK's in `CASESession::HandleSigma1` and `HandleSigma3`: NO_SHARED_TRUST_ROOTS
/// when no fabric matches, INVALID_PARAMETER for every other refusal). No case carries a key, a shared
/// secret or plaintext, so the descriptions are safe to log.
public enum CASEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Sigma1, Sigma3 or the decrypted TBEData3 was refused; answered INVALID_PARAMETER.
    case malformedMessage(PASEMessageError)
    /// Sigma1's destination ID names none of the device's fabrics; answered NO_SHARED_TRUST_ROOTS.
    case noSharedTrustRoot
    /// The initiator's ephemeral key is no P-256 point; answered INVALID_PARAMETER.
    case invalidEphemeralKey
    /// encrypted3's MIC does not match S3K (another key, or tampering); answered INVALID_PARAMETER.
    case decryptionFailed
    /// The initiator's NOC or ICAC is not a valid Matter certificate; answered INVALID_PARAMETER.
    case malformedCertificate(ChainError.Role, OperationalCertificate.DecodeError)
    /// The initiator's chain does not verify up to the fabric's root; answered INVALID_PARAMETER.
    case certificateChain(ChainError)
    /// The initiator's NOC is on another fabric ID under the same root; answered INVALID_PARAMETER.
    case fabricMismatch(expected: UInt64, found: UInt64)
    /// TBSData3's signature does not verify with the initiator NOC's key; answered INVALID_PARAMETER.
    case signature
    /// Signing TBSData2 or sealing TBEData2 failed (a bug or a broken libcrypto); answered INVALID_PARAMETER.
    case internalFailure(String)
    /// A CASE message out of order on the handshake's exchange.
    case unexpectedMessage(received: SecureChannelOpcode, expected: SecureChannelOpcode)
    /// The initiator sent a StatusReport, ending the handshake.
    case peerStatusReport(StatusReport)
    /// The initiator sent something in place of a StatusReport that is not one.
    case malformedStatusReport(StatusReport.DecodeError)
    /// The caller's timer for the handshake fired.
    case timedOut

    public var description: String {
        switch self {
        case .malformedMessage(let error): "CASE: \(error) — answered INVALID_PARAMETER"
        case .noSharedTrustRoot:
            "CASE: Sigma1's destination ID matches no installed fabric (wrong root, fabric, node ID or IPK)"
                + " — answered NO_SHARED_TRUST_ROOTS"
        case .invalidEphemeralKey: "CASE: the initiator's ephemeral key is no P-256 point — answered INVALID_PARAMETER"
        case .decryptionFailed:
            "CASE: Sigma3 does not decrypt (wrong IPK or shared secret, or altered) — answered INVALID_PARAMETER"
        case .malformedCertificate(let role, let error):
            "CASE: the initiator's \(role.rawValue) is malformed: \(error) — answered INVALID_PARAMETER"
        case .certificateChain(let error): "CASE: \(error) — answered INVALID_PARAMETER"
        case .fabricMismatch(let expected, let found):
            "CASE: the initiator's NOC is on fabric \(hex(found)), this session's is \(hex(expected))"
                + " — answered INVALID_PARAMETER"
        case .signature:
            "CASE: the initiator's Sigma3 signature does not verify with its NOC's key — answered INVALID_PARAMETER"
        case .internalFailure(let detail): "CASE: \(detail) — answered INVALID_PARAMETER"
        case .unexpectedMessage(let received, let expected):
            "CASE: \(received) arrived while \(expected) was expected — answered INVALID_PARAMETER"
        case .peerStatusReport(let report): "CASE: the initiator ended the handshake with \(report)"
        case .malformedStatusReport(let error): "CASE: the initiator sent a malformed status report (\(error))"
        case .timedOut: "CASE: the handshake did not finish in time — the initiator went away; it may retry"
        }
    }
}
