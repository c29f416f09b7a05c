public import TraitBridgeMatterInteraction

/// The Matter status a controller's command is answered with, from the unified command path's
/// answer: done (confirmed by the device's echo, or assumed where the device never echoes) is
/// SUCCESS; a refusal is the status that says why, never a silent success.
public enum MatterCommandStatus {
    /// `status` and `code` as the unified answer has them (`{"status": "error", "code": "deviceOffline"}`).
    public static func of(status: String, code: String?) -> StatusCode {
        switch status {
        case "confirmed", "assumed": return .success
        case "error": break
        // Sent and not refused, not (yet) confirmed: the report will say what the device did.
        default: return .success
        }
        switch code {
        case "valueOutOfRange": return .constraintError
        case "notSupported": return .unsupportedCommand
        case "invalidValue", "protocolError": return .invalidCommand
        case "failedPrecondition": return .invalidInState
        case "resourceExhausted": return .resourceExhausted
        // deviceOffline (the SDK's bridge answers Failure for an unreachable device), deviceNotFound,
        // challengeNeeded, partnerError and anything new.
        default: return .failure
        }
    }
}
