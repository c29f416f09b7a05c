public import TraitBridgeModel

/// One device to export as Cloud-to-cloud: the device, where it is, and what the cloud said of it.
public struct CloudExportInput: Sendable {
    public var device: Device
    /// The room's name, when the device is in a room other than the default one (→ `roomHint`).
    public var roomName: String?
    /// What a SYNC said about it, when a SYNC imported (part of) it.
    public var origin: CloudDeviceOrigin?
    /// Cloud states no trait holds (kept from QUERY imports), given back in QUERY exports.
    public var extraStates: [String: AttributeValue]
    /// Attribute metadata narrowed to this device (a bulb's own 153…454 mireds), by trait address.
    public var metadata: [TraitAddress: [String: AttributeMetadata]]
    /// The attributes the device's source can write, by trait address (a Home Assistant light's
    /// colour modes are known from its config before any state arrives).
    public var commandable: [TraitAddress: Set<String>]

    public init(
        device: Device, roomName: String? = nil, origin: CloudDeviceOrigin? = nil,
        extraStates: [String: AttributeValue] = [:], metadata: [TraitAddress: [String: AttributeMetadata]] = [:],
        commandable: [TraitAddress: Set<String>] = [:]
    ) {
        self.device = device
        self.roomName = roomName
        self.origin = origin
        self.extraStates = extraStates
        self.metadata = metadata
        self.commandable = commandable
    }

    /// The id the cloud knows the device by: the SYNC's own id, else TraitBridge's.
    public var c2cID: String { origin?.c2cID ?? device.id.rawValue }
}
