public import TraitBridgeCloud
public import TraitBridgeModel

/// Which unified devices the Matter bridge offers: the section's `include`/`exclude` rules (ids,
/// rooms, device types, as HomeKit's and the cloud export's), and never a device that came in from a
/// Matter source unless its id is included — a controller that commissioned both would see it twice.
public struct MatterBridgeSelection: Sendable {
    /// The source family of devices read from a Matter Server.
    public static let matterFamily = "matter"

    public let rules: ExportRules

    public init(rules: ExportRules) { self.rules = rules }

    /// Whether `device`, in the room named `room`, is offered.
    public func offers(_ device: Device, room: String?) -> Bool {
        let id = device.id.rawValue
        if device.sources.contains(where: { $0.family == Self.matterFamily }), !rules.include.ids.contains(id) {
            return false
        }
        return rules.allows(id: id, room: room, types: device.deviceTypes.map(\.typeID.description))
    }
}
