/// A StatusReport's protocol-independent code (Matter Core Appendix D, General Status Codes;
/// connectedhomeip `GeneralStatusCode`, rs-matter `GeneralCode`). A struct, not an enum, so a code this
/// version does not name survives a decode and re-encode.
public struct GeneralCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let success = GeneralCode(rawValue: 0)
    public static let failure = GeneralCode(rawValue: 1)
    public static let badPrecondition = GeneralCode(rawValue: 2)
    public static let outOfRange = GeneralCode(rawValue: 3)
    public static let badRequest = GeneralCode(rawValue: 4)
    public static let unsupported = GeneralCode(rawValue: 5)
    public static let unexpected = GeneralCode(rawValue: 6)
    public static let resourceExhausted = GeneralCode(rawValue: 7)
    public static let busy = GeneralCode(rawValue: 8)
    public static let timeout = GeneralCode(rawValue: 9)
    public static let `continue` = GeneralCode(rawValue: 10)
    public static let aborted = GeneralCode(rawValue: 11)
    public static let invalidArgument = GeneralCode(rawValue: 12)
    public static let notFound = GeneralCode(rawValue: 13)
    public static let alreadyExists = GeneralCode(rawValue: 14)
    public static let permissionDenied = GeneralCode(rawValue: 15)
    public static let dataLoss = GeneralCode(rawValue: 16)

    private static let names = [
        "SUCCESS", "FAILURE", "BAD_PRECONDITION", "OUT_OF_RANGE", "BAD_REQUEST", "UNSUPPORTED", "UNEXPECTED",
        "RESOURCE_EXHAUSTED", "BUSY", "TIMEOUT", "CONTINUE", "ABORTED", "INVALID_ARGUMENT", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "DATA_LOSS",
    ]

    /// The spec's name (`INVALID_ARGUMENT`), or `general code 42` for one it does not name.
    public var description: String {
        Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "general code \(rawValue)"
    }
}

/// The Secure Channel's protocol codes in a StatusReport (Matter Core, Secure Channel Protocol, its status
/// codes; connectedhomeip `kProtocolCode…` in `secure_channel/Constants.h`, rs-matter `SCStatusCodes`).
public struct SecureChannelStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// The handshake succeeded; the responder's last word in PASE and CASE.
    public static let sessionEstablishmentSuccess = SecureChannelStatus(rawValue: 0)
    /// CASE: no trusted root in common.
    public static let noSharedTrustRoots = SecureChannelStatus(rawValue: 1)
    /// A message was malformed or failed a check (PASE: also a wrong passcode's confirmation).
    public static let invalidParameter = SecureChannelStatus(rawValue: 2)
    /// The sender is closing the session.
    public static let closeSession = SecureChannelStatus(rawValue: 3)
    /// The responder is in another handshake; the data holds the minimum wait in milliseconds.
    public static let busy = SecureChannelStatus(rawValue: 4)
    /// The session a message named does not exist (later specs; connectedhomeip and rs-matter define it).
    public static let sessionNotFound = SecureChannelStatus(rawValue: 5)
    /// connectedhomeip's placeholder when there is no protocol-specific code (`kProtocolCodeGeneralFailure`).
    public static let generalFailure = SecureChannelStatus(rawValue: 0xFFFF)

    public var description: String {
        switch self {
        case .sessionEstablishmentSuccess: "SESSION_ESTABLISHMENT_SUCCESS"
        case .noSharedTrustRoots: "NO_SHARED_TRUST_ROOTS"
        case .invalidParameter: "INVALID_PARAMETER"
        case .closeSession: "CLOSE_SESSION"
        case .busy: "BUSY"
        case .sessionNotFound: "SESSION_NOT_FOUND"
        case .generalFailure: "GENERAL_FAILURE"
        default: "secure channel code \(rawValue)"
        }
    }
}
