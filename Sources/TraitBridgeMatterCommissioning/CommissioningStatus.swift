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
