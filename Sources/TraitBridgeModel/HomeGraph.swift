/// Homes, rooms, zones and the devices placed in them, with their invariants kept in one place.
///
/// Every home has a default room; a device not assigned elsewhere is in it, and removing a room
/// returns its devices there. Names follow ``NameRules``. This is a value: the bridge keeps one,
/// changes it through these methods, and persists it; a failed call changes nothing.
public struct HomeGraph: Sendable, Hashable {
    public internal(set) var homes: [Home] = []
    public internal(set) var devices: [DeviceID: Device] = [:]
    /// Identity key (`id:<unique or other device id>`, `serial:<serial>`) → the devices that have it:
    /// who may be the same physical device, found without a scan of every device.
    private var identityIndex: [String: Set<DeviceID>] = [:]

    /// An empty graph with one primary home named `name`.
    public init(primaryHomeName name: String = "My Home") throws(ModelError) {
        try addHome(named: name)
    }

    public var primaryHome: Home { homes.first(where: \.isPrimary) ?? homes[0] }

    public func home(_ id: HomeID) -> Home? { homes.first { $0.id == id } }

    /// The home that holds a room.
    public func home(containing room: RoomID) -> Home? { homes.first { $0.room(room) != nil } }

    // MARK: Homes

    /// Adds a home with its default room; the first home is primary.
    @discardableResult
    public mutating func addHome(named name: String) throws(ModelError) -> HomeID {
        do { try NameRules.validateUnique(name, kind: .home, among: homes.map(\.name)) } catch {
            throw .invalidName(error)
        }
        let id = HomeID(uniqueSlug(name, taken: Set(homes.map(\.id.rawValue))))
        let defaultRoom = Room(id: RoomID("\(id.rawValue).entire-home"), name: "Entire Home", isDefault: true)
        var home = Home(id: id, name: name, isPrimary: homes.isEmpty, defaultRoom: defaultRoom)
        home.scenes = SceneKind.allCases.compactMap { kind in
            kind.builtInName.map {
                Scene(id: SceneID("\(id.rawValue).scene.\(kind.rawValue)"), name: $0, kind: kind, actions: [])
            }
        }
        homes.append(home)
        return id
    }

    public mutating func renameHome(_ id: HomeID, to name: String) throws(ModelError) {
        let index = try homeIndex(id)
        let others = homes.filter { $0.id != id }.map(\.name)
        do { try NameRules.validateUnique(name, kind: .home, among: others) } catch { throw .invalidName(error) }
        homes[index].name = name
    }

    /// Makes `id` the primary home (exactly one home is primary).
    public mutating func setPrimaryHome(_ id: HomeID) throws(ModelError) {
        _ = try homeIndex(id)
        for index in homes.indices { homes[index].isPrimary = homes[index].id == id }
    }

    // MARK: Rooms

    /// Adds a room to a home; the name must be new within that home.
    @discardableResult
    public mutating func addRoom(named name: String, to homeID: HomeID) throws(ModelError) -> RoomID {
        let index = try homeIndex(homeID)
        do { try NameRules.validateUnique(name, kind: .room, among: homes[index].rooms.map(\.name)) } catch {
            throw .invalidName(error)
        }
        let taken = Set(homes.flatMap(\.rooms).map(\.id.rawValue))
        let id = RoomID(uniqueSlug("\(homeID.rawValue).\(name)", taken: taken))
        homes[index].rooms.append(Room(id: id, name: name, isDefault: false))
        return id
    }

    /// The room with this name in a home, added when there is none (a room hint, a suggested
    /// area or a user's `move` names rooms that may not exist yet).
    public mutating func room(named name: String, addingTo homeID: HomeID) throws(ModelError) -> RoomID {
        if let existing = room(named: name, in: homeID) { return existing.id }
        return try addRoom(named: name, to: homeID)
    }

    /// The room with this name in a home (compared as ``NameRules`` compares names).
    public func room(named name: String, in homeID: HomeID) -> Room? {
        let key = NameRules.comparisonKey(name)
        return home(homeID)?.rooms.first { NameRules.comparisonKey($0.name) == key }
    }

    public mutating func renameRoom(_ id: RoomID, to name: String) throws(ModelError) {
        let (homeIndex, roomIndex) = try roomIndices(id)
        let others = homes[homeIndex].rooms.filter { $0.id != id }.map(\.name)
        do { try NameRules.validateUnique(name, kind: .room, among: others) } catch { throw .invalidName(error) }
        homes[homeIndex].rooms[roomIndex].name = name
    }

    /// Removes a room: its devices return to the default room, and zones forget it.
    public mutating func removeRoom(_ id: RoomID) throws(ModelError) {
        let (homeIndex, roomIndex) = try roomIndices(id)
        guard !homes[homeIndex].rooms[roomIndex].isDefault else { throw .cannotRemoveDefaultRoom(id) }
        homes[homeIndex].rooms.remove(at: roomIndex)
        for zoneIndex in homes[homeIndex].zones.indices {
            homes[homeIndex].zones[zoneIndex].roomIDs.removeAll { $0 == id }
        }
        for (deviceID, device) in devices where device.roomID == id {
            devices[deviceID]?.roomID = nil
        }
    }

    // MARK: Zones

    @discardableResult
    public mutating func addZone(named name: String, to homeID: HomeID, rooms: [RoomID] = []) throws(ModelError)
        -> ZoneID
    {
        let index = try homeIndex(homeID)
        do { try NameRules.validateUnique(name, kind: .zone, among: homes[index].zones.map(\.name)) } catch {
            throw .invalidName(error)
        }
        for room in rooms where homes[index].room(room) == nil { throw .unknownRoom(room) }
        let taken = Set(homes.flatMap(\.zones).map(\.id.rawValue))
        let id = ZoneID(uniqueSlug("\(homeID.rawValue).zone.\(name)", taken: taken))
        var unique: [RoomID] = []
        for room in rooms where !unique.contains(room) { unique.append(room) }
        homes[index].zones.append(Zone(id: id, name: name, roomIDs: unique))
        return id
    }

    /// Puts a room in a zone (a room may be in many zones; adding twice is a no-op).
    public mutating func addRoom(_ room: RoomID, toZone zone: ZoneID) throws(ModelError) {
        let (homeIndex, zoneIndex) = try zoneIndices(zone)
        guard homes[homeIndex].room(room) != nil else { throw .unknownRoom(room) }
        if !homes[homeIndex].zones[zoneIndex].roomIDs.contains(room) {
            homes[homeIndex].zones[zoneIndex].roomIDs.append(room)
        }
    }

    public mutating func removeZone(_ id: ZoneID) throws(ModelError) {
        let (homeIndex, zoneIndex) = try zoneIndices(id)
        homes[homeIndex].zones.remove(at: zoneIndex)
    }

    /// The zones a room is in.
    public func zones(containing room: RoomID) -> [Zone] {
        homes.flatMap(\.zones).filter { $0.roomIDs.contains(room) }
    }

    // MARK: Devices

    /// Adds a device; without a home it goes to the primary home's default room.
    public mutating func addDevice(_ device: Device) throws(ModelError) {
        guard devices[device.id] == nil else { throw .duplicateDevice(device.id) }
        var device = device
        if let homeID = device.homeID {
            let index = try homeIndex(homeID)
            if let room = device.roomID, homes[index].room(room) == nil { throw .unknownRoom(room) }
        } else {
            device.homeID = primaryHome.id
            device.roomID = nil
        }
        devices[device.id] = device
        index(device.id, old: nil, new: device.identity)
    }

    /// Replaces a device's description and values, keeping where the user placed it.
    public mutating func updateDevice(_ device: Device) throws(ModelError) {
        guard let existing = devices[device.id] else { throw .unknownDevice(device.id) }
        var device = device
        device.homeID = existing.homeID
        device.roomID = existing.roomID
        devices[device.id] = device
        if existing.identity != device.identity { index(device.id, old: existing.identity, new: device.identity) }
    }

    /// Changes a device in place (no copy of the device); `nil` when there is no such device.
    @discardableResult
    public mutating func modifyDevice<Result>(_ id: DeviceID, _ body: (inout Device) throws(ModelError) -> Result)
        throws(ModelError) -> Result?
    {
        guard let index = devices.index(forKey: id) else { return nil }  // one hash lookup, then in place
        // Read through the inout access: `devices.values[index]` as a value copies the whole device
        // (every string and array in it retained, then released), twice per message on the hot path.
        var moved: (old: DeviceIdentity, new: DeviceIdentity)?
        defer { if let moved { self.index(id, old: moved.old, new: moved.new) } }  // also when the body throws
        return try Self.inPlace(&devices.values[index]) { (device) throws(ModelError) -> Result in
            let identity = device.identity
            defer { if device.identity != identity { moved = (identity, device.identity) } }
            return try body(&device)
        }
    }

    /// Reads a device where it is, without the copy a dictionary's getter makes; `nil` when there
    /// is no such device. Mutating only to reach the storage in place: the device is not changed.
    public mutating func readDevice<Result>(_ id: DeviceID, _ body: (borrowing Device) -> Result) -> Result? {
        guard let index = devices.index(forKey: id) else { return nil }
        return Self.inPlace(&devices.values[index]) { device in body(device) }
    }

    /// Whether the graph holds the device (`devices[id] != nil` copies it out first).
    public func hasDevice(_ id: DeviceID) -> Bool { devices.index(forKey: id) != nil }

    private static func inPlace<Result, Failure>(
        _ device: inout Device, _ body: (inout Device) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(&device)
    }

    public mutating func removeDevice(_ id: DeviceID) throws(ModelError) {
        guard let removed = devices.removeValue(forKey: id) else { throw .unknownDevice(id) }
        index(id, old: removed.identity, new: nil)
    }

    /// The devices whose identity shares a key with `identity` (a unique id, a serial, an id of
    /// `otherDeviceIds`), sorted: the candidates ``DeviceIdentity/matches(_:)`` then decides on.
    public func devices(sharingIdentityWith identity: DeviceIdentity) -> [DeviceID] {
        let keys = Self.identityKeys(identity)
        guard !keys.isEmpty else { return [] }
        var found: Set<DeviceID> = []
        for key in keys { found.formUnion(identityIndex[key] ?? []) }
        return found.sorted()
    }

    static func identityKeys(_ identity: DeviceIdentity) -> [String] {
        var keys: [String] = []
        if let unique = identity.uniqueID, !unique.isEmpty { keys.append("id:" + unique) }
        if let serial = identity.serialNumber, !serial.isEmpty { keys.append("serial:" + serial) }
        for other in identity.otherDeviceIDs where !other.deviceID.isEmpty { keys.append("id:" + other.deviceID) }
        return keys
    }

    private mutating func index(_ id: DeviceID, old: DeviceIdentity?, new: DeviceIdentity?) {
        for key in old.map(Self.identityKeys) ?? [] {
            identityIndex[key]?.remove(id)
            if identityIndex[key]?.isEmpty == true { identityIndex.removeValue(forKey: key) }
        }
        for key in new.map(Self.identityKeys) ?? [] { identityIndex[key, default: []].insert(id) }
    }

    /// Moves a device to a room (its home follows the room).
    public mutating func assignDevice(_ id: DeviceID, to room: RoomID) throws(ModelError) {
        guard devices[id] != nil else { throw .unknownDevice(id) }
        guard let home = home(containing: room) else { throw .unknownRoom(room) }
        devices[id]?.homeID = home.id
        devices[id]?.roomID = room == home.defaultRoom.id ? nil : room
    }

    /// The room a device is in (its home's default room when unassigned).
    public func room(of id: DeviceID) -> Room? {
        guard let device = devices[id], let homeID = device.homeID, let home = home(homeID) else { return nil }
        return device.roomID.flatMap(home.room) ?? home.defaultRoom
    }

    /// Devices in a room, including unassigned devices when it is the default room.
    public func devices(in room: RoomID) -> [Device] {
        devices.values.filter { self.room(of: $0.id)?.id == room }.sorted { $0.id < $1.id }
    }

    // MARK: Helpers

    func homeIndex(_ id: HomeID) throws(ModelError) -> Int {
        guard let index = homes.firstIndex(where: { $0.id == id }) else { throw .unknownHome(id) }
        return index
    }

    func roomIndices(_ id: RoomID) throws(ModelError) -> (Int, Int) {
        for (homeIndex, home) in homes.enumerated() {
            if let roomIndex = home.rooms.firstIndex(where: { $0.id == id }) { return (homeIndex, roomIndex) }
        }
        throw .unknownRoom(id)
    }

    func zoneIndices(_ id: ZoneID) throws(ModelError) -> (Int, Int) {
        for (homeIndex, home) in homes.enumerated() {
            if let zoneIndex = home.zones.firstIndex(where: { $0.id == id }) { return (homeIndex, zoneIndex) }
        }
        throw .unknownZone(id)
    }

    func uniqueSlug(_ text: String, taken: Set<String>) -> String {
        var slug = ""
        for scalar in text.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "." {
                slug.unicodeScalars.append(scalar)
            } else if scalar == " " || scalar == "-", !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        if slug.isEmpty || slug.hasSuffix(".") { slug += "x" }
        var candidate = slug
        var counter = 2
        while taken.contains(candidate) {
            candidate = "\(slug)-\(counter)"
            counter += 1
        }
        return candidate
    }
}
