/// An Interaction Model status code (Matter Core §8.10), the answer a read or invoke gets when there
/// is no value or response command: the IM layer puts it in an AttributeStatusIB or CommandStatusIB.
/// Defined here so the root endpoint's clusters can answer without depending on the IM module.
public struct InteractionStatus: Error, RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// SUCCESS (0x00): a command without a response command succeeded.
    public static let success = InteractionStatus(rawValue: 0x00)
    /// FAILURE (0x01).
    public static let failure = InteractionStatus(rawValue: 0x01)
    /// UNSUPPORTED_ENDPOINT (0x7F).
    public static let unsupportedEndpoint = InteractionStatus(rawValue: 0x7F)
    /// UNSUPPORTED_COMMAND (0x81).
    public static let unsupportedCommand = InteractionStatus(rawValue: 0x81)
    /// INVALID_COMMAND (0x85): fields missing, of the wrong type, or a value the command refuses.
    public static let invalidCommand = InteractionStatus(rawValue: 0x85)
    /// UNSUPPORTED_ATTRIBUTE (0x86).
    public static let unsupportedAttribute = InteractionStatus(rawValue: 0x86)
    /// CONSTRAINT_ERROR (0x87): a field outside its constraint (length, range, enum).
    public static let constraintError = InteractionStatus(rawValue: 0x87)
    /// UNSUPPORTED_WRITE (0x88).
    public static let unsupportedWrite = InteractionStatus(rawValue: 0x88)
    /// UNSUPPORTED_CLUSTER (0xC3).
    public static let unsupportedCluster = InteractionStatus(rawValue: 0xC3)
    /// FAILSAFE_REQUIRED (0xCA): the command needs an armed fail-safe (ArmFailSafe first).
    public static let failsafeRequired = InteractionStatus(rawValue: 0xCA)

    public var description: String {
        let names: [UInt8: String] = [
            0x00: "SUCCESS", 0x01: "FAILURE", 0x7F: "UNSUPPORTED_ENDPOINT", 0x81: "UNSUPPORTED_COMMAND",
            0x85: "INVALID_COMMAND", 0x86: "UNSUPPORTED_ATTRIBUTE", 0x87: "CONSTRAINT_ERROR",
            0x88: "UNSUPPORTED_WRITE", 0xC3: "UNSUPPORTED_CLUSTER", 0xCA: "FAILSAFE_REQUIRED",
        ]
        return names[rawValue] ?? "status 0x" + String(rawValue, radix: 16, uppercase: true)
    }
}

/// The ErrorCode of ArmFailSafeResponse, SetRegulatoryConfigResponse and CommissioningCompleteResponse
/// (General Commissioning `CommissioningErrorEnum`, Matter Core §11.10.5.1).
public enum CommissioningError: UInt8, Sendable, Hashable, CaseIterable {
    case ok = 0
    /// A value (expiry, regulatory config) the device cannot take.
    case valueOutsideRange = 1
    /// CommissioningComplete not on a CASE session of the fabric being commissioned.
    case invalidAuthentication = 2
    /// CommissioningComplete without an armed fail-safe.
    case noFailSafe = 3
    /// The fail-safe is held by another fabric's administrator.
    case busyWithOtherAdmin = 4
}

/// The StatusCode of NOCResponse (Operational Credentials `NodeOperationalCertStatusEnum`, §11.18.4.9).
public enum NOCStatus: UInt8, Sendable, Hashable, CaseIterable {
    case ok = 0
    /// The NOC's public key is not the operational key of the CSRRequest.
    case invalidPublicKey = 1
    /// The NOC's node id is not an operational node id.
    case invalidNodeOpID = 2
    /// The chain does not verify or the NOC does not decode.
    case invalidNOC = 3
    /// No CSRRequest in this fail-safe.
    case missingCsr = 4
    /// No fabric index is free.
    case tableFull = 5
    /// CaseAdminSubject is neither an operational node id nor a CASE Authenticated Tag.
    case invalidAdminSubject = 6
    /// A fabric with this root key and fabric id is already installed.
    case fabricConflict = 9
    /// Another fabric has this label.
    case labelConflict = 10
    /// No fabric has the index given.
    case invalidFabricIndex = 11
}
