import TraitBridgeModel

/// What the user decided about a device — its name and its room — which wins over what any
/// source says (a Shelly announces only its id; zigbee2mqtt and Home Assistant rename and
/// re-area devices on their own schedule). Kept in the registry apart from the device's record,
/// so a source's next description never overwrites it.
public struct UserPlacement: Sendable, Hashable {
    /// The name the user gave (`nil`: the source's name).
    public var name: String?
    /// The room the user put the device in (`nil`: where its source or the cloud puts it).
    public var room: String?
    /// The home the user put the device in, by id (`nil`: the primary home); `room` is a room of it.
    public var home: String?

    public init(name: String? = nil, room: String? = nil, home: String? = nil) {
        self.name = name
        self.room = room
        self.home = home
    }

    /// Nothing decided: the row can go.
    public var isEmpty: Bool { name == nil && room == nil && home == nil }
}
