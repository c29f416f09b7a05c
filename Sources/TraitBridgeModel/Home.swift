/// Identifies a home (a "structure" in Google's words).
public struct HomeID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: HomeID, rhs: HomeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Identifies a room; unique across homes.
public struct RoomID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: RoomID, rhs: RoomID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Identifies a zone; unique across homes.
public struct ZoneID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: ZoneID, rhs: ZoneID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A home: its rooms (one of them the default room), zones, groups and scenes.
public struct Home: Sendable, Hashable, Identifiable, Codable {
    public let id: HomeID
    public internal(set) var name: String
    public internal(set) var isPrimary: Bool
    /// Rooms in creation order; the first is the default room.
    public internal(set) var rooms: [Room]
    public internal(set) var zones: [Zone]
    public internal(set) var groups: [DeviceGroup] = []
    /// The four built-in scenes (HomeKit's action set types) first, then the user's.
    public internal(set) var scenes: [Scene] = []
    /// Where the home is, for its automations' clocks and the sun (`nil`: the bridge's zone, no sun).
    public internal(set) var location: HomeLocation?

    /// The room a device not assigned elsewhere is in ("entire home").
    public var defaultRoom: Room { rooms[0] }

    init(id: HomeID, name: String, isPrimary: Bool, defaultRoom: Room) {
        self.id = id
        self.name = name
        self.isPrimary = isPrimary
        self.rooms = [defaultRoom]
        self.zones = []
    }

    public func room(_ id: RoomID) -> Room? { rooms.first { $0.id == id } }
    public func zone(_ id: ZoneID) -> Zone? { zones.first { $0.id == id } }
    public func group(_ id: GroupID) -> DeviceGroup? { groups.first { $0.id == id } }
    public func scene(_ id: SceneID) -> Scene? { scenes.first { $0.id == id } }
}

/// A room; it belongs to exactly one home.
public struct Room: Sendable, Hashable, Identifiable, Codable {
    public let id: RoomID
    public internal(set) var name: String
    public let isDefault: Bool
}

/// A named set of rooms ("Upstairs"); a room may be in many zones.
public struct Zone: Sendable, Hashable, Identifiable, Codable {
    public let id: ZoneID
    public internal(set) var name: String
    public internal(set) var roomIDs: [RoomID]
}

/// A home's time zone (an IANA name, "Europe/Berlin") and, for sunrise and sunset, its place.
public struct HomeLocation: Sendable, Hashable, Codable {
    public var timeZone: String
    public var latitude: Double?
    public var longitude: Double?

    public init(timeZone: String, latitude: Double? = nil, longitude: Double? = nil) {
        self.timeZone = timeZone
        self.latitude = latitude
        self.longitude = longitude
    }
}
