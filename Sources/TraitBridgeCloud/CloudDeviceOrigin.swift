public import TraitBridgeJSON

/// What a SYNC said about a device that the model does not hold as traits: the C2C id, type and
/// trait list, the SYNC attributes as sent, `customData`, names and flags.
///
/// Kept with every imported device (and persisted) so that an export gives Google back exactly what
/// it described, and an EXECUTE request for a cloud-only trait carries the device's `customData`.
public struct CloudDeviceOrigin: Sendable, Equatable {
    /// The device's id in the cloud (`id` of the SYNC entry), not TraitBridge's device id.
    public var c2cID: String
    /// `action.devices.types.LIGHT`.
    public var type: String
    /// `action.devices.traits.OnOff`, … as declared, known ones only.
    public var traits: [String]
    /// The SYNC `attributes` object as sent (only keys of declared traits).
    public var attributes: JSONObject
    public var customData: JSONValue?
    public var defaultNames: [String]
    public var nicknames: [String]
    public var roomHint: String?
    public var structureHint: String?
    public var willReportState: Bool
    public var notificationSupportedByAgent: Bool?
    /// `deviceInfo` as sent.
    public var deviceInfo: JSONObject?

    public init(
        c2cID: String, type: String, traits: [String], attributes: JSONObject = JSONObject(), customData: JSONValue? = nil,
        defaultNames: [String] = [], nicknames: [String] = [], roomHint: String? = nil, structureHint: String? = nil,
        willReportState: Bool = false, notificationSupportedByAgent: Bool? = nil, deviceInfo: JSONObject? = nil
    ) {
        self.c2cID = c2cID
        self.type = type
        self.traits = traits
        self.attributes = attributes
        self.customData = customData
        self.defaultNames = defaultNames
        self.nicknames = nicknames
        self.roomHint = roomHint
        self.structureHint = structureHint
        self.willReportState = willReportState
        self.notificationSupportedByAgent = notificationSupportedByAgent
        self.deviceInfo = deviceInfo
    }
}
