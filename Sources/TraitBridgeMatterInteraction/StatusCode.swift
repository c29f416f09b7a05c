/// An Interaction Model status code (Matter Core §8.10, "Status Code Table"; connectedhomeip
/// `protocols/interaction_model/StatusCodeList.h`, rs-matter `IMStatusCode`, CircuitMatter `StatusCode`):
/// what a StatusIB, a StatusResponse or an AttributeStatusIB carries. A struct, not an enum, so a code
/// this version does not name survives a decode and re-encode.
public struct StatusCode: Error, RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = StatusCode(rawValue: 0x00)
    public static let failure = StatusCode(rawValue: 0x01)
    /// The SubscriptionId of a message is not an active subscription.
    public static let invalidSubscription = StatusCode(rawValue: 0x7D)
    /// The subject has no privilege for the path (the spec's UNSUPPORTED_ACCESS).
    public static let unsupportedAccess = StatusCode(rawValue: 0x7E)
    /// A concrete path names an endpoint the node does not have.
    public static let unsupportedEndpoint = StatusCode(rawValue: 0x7F)
    /// The action is malformed: missing fields, wrong types, or a path the action does not allow.
    public static let invalidAction = StatusCode(rawValue: 0x80)
    public static let unsupportedCommand = StatusCode(rawValue: 0x81)
    public static let invalidCommand = StatusCode(rawValue: 0x85)
    /// A concrete path names an attribute the cluster instance does not have.
    public static let unsupportedAttribute = StatusCode(rawValue: 0x86)
    public static let constraintError = StatusCode(rawValue: 0x87)
    public static let unsupportedWrite = StatusCode(rawValue: 0x88)
    public static let resourceExhausted = StatusCode(rawValue: 0x89)
    public static let notFound = StatusCode(rawValue: 0x8B)
    public static let unreportableAttribute = StatusCode(rawValue: 0x8C)
    public static let invalidDataType = StatusCode(rawValue: 0x8D)
    public static let unsupportedRead = StatusCode(rawValue: 0x8F)
    public static let dataVersionMismatch = StatusCode(rawValue: 0x92)
    public static let timeout = StatusCode(rawValue: 0x94)
    public static let unsupportedNode = StatusCode(rawValue: 0x9B)
    public static let busy = StatusCode(rawValue: 0x9C)
    public static let accessRestricted = StatusCode(rawValue: 0x9D)
    /// A concrete path names a cluster the endpoint does not have.
    public static let unsupportedCluster = StatusCode(rawValue: 0xC3)
    public static let noUpstreamSubscription = StatusCode(rawValue: 0xC5)
    public static let needsTimedInteraction = StatusCode(rawValue: 0xC6)
    public static let unsupportedEvent = StatusCode(rawValue: 0xC7)
    /// The request has more paths than the node supports (the spec's minimum is 9 per read).
    public static let pathsExhausted = StatusCode(rawValue: 0xC8)
    public static let timedRequestMismatch = StatusCode(rawValue: 0xC9)
    public static let failsafeRequired = StatusCode(rawValue: 0xCA)
    public static let invalidInState = StatusCode(rawValue: 0xCB)
    public static let noCommandResponse = StatusCode(rawValue: 0xCC)

    private static let names: [UInt8: String] = [
        0x00: "SUCCESS", 0x01: "FAILURE", 0x7D: "INVALID_SUBSCRIPTION", 0x7E: "UNSUPPORTED_ACCESS",
        0x7F: "UNSUPPORTED_ENDPOINT", 0x80: "INVALID_ACTION", 0x81: "UNSUPPORTED_COMMAND", 0x85: "INVALID_COMMAND",
        0x86: "UNSUPPORTED_ATTRIBUTE", 0x87: "CONSTRAINT_ERROR", 0x88: "UNSUPPORTED_WRITE", 0x89: "RESOURCE_EXHAUSTED",
        0x8B: "NOT_FOUND", 0x8C: "UNREPORTABLE_ATTRIBUTE", 0x8D: "INVALID_DATA_TYPE", 0x8F: "UNSUPPORTED_READ",
        0x92: "DATA_VERSION_MISMATCH", 0x94: "TIMEOUT", 0x9B: "UNSUPPORTED_NODE", 0x9C: "BUSY",
        0x9D: "ACCESS_RESTRICTED", 0xC3: "UNSUPPORTED_CLUSTER", 0xC5: "NO_UPSTREAM_SUBSCRIPTION",
        0xC6: "NEEDS_TIMED_INTERACTION", 0xC7: "UNSUPPORTED_EVENT", 0xC8: "PATHS_EXHAUSTED",
        0xC9: "TIMED_REQUEST_MISMATCH", 0xCA: "FAILSAFE_REQUIRED", 0xCB: "INVALID_IN_STATE",
        0xCC: "NO_COMMAND_RESPONSE",
    ]

    /// The spec's name (`UNSUPPORTED_CLUSTER`), or `status 0x42` for one it does not name.
    public var description: String {
        Self.names[rawValue] ?? "status 0x" + String(rawValue, radix: 16, uppercase: true)
    }
}
