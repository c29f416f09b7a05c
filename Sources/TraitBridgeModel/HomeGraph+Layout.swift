/// Removing homes, editing zones, and the groups and scenes of a home: the rest of HomeKit's
/// layout, with the same rule as the rest of ``HomeGraph`` — a failed call changes nothing.
extension HomeGraph {
    // MARK: Homes

    /// Removes a home. Its devices go to the primary home's default room (they are still
    /// devices the sources feed; only the layout is gone); when it was primary, the first
    /// remaining home becomes primary. Returns the devices that moved.
    @discardableResult
    public mutating func removeHome(_ id: HomeID) throws(ModelError) -> [DeviceID] {
        let index = try homeIndex(id)
        guard homes.count > 1 else { throw .cannotRemoveLastHome }
        let wasPrimary = homes[index].isPrimary
        homes.remove(at: index)
        if wasPrimary { homes[0].isPrimary = true }
        let target = primaryHome.id
        var moved: [DeviceID] = []
        for (deviceID, device) in devices where device.homeID == id {
            devices[deviceID]?.homeID = target
            devices[deviceID]?.roomID = nil
            moved.append(deviceID)
        }
        return moved.sorted()
    }

    /// Sets where a home is (latitude −90…90, longitude −180…180; the time zone is checked by
    /// the caller, who knows the zone database).
    public mutating func setLocation(_ location: HomeLocation?, of id: HomeID) throws(ModelError) {
        let index = try homeIndex(id)
        if let location {
            guard location.latitude.map({ (-90...90).contains($0) }) ?? true,
                location.longitude.map({ (-180...180).contains($0) }) ?? true,
                (location.latitude == nil) == (location.longitude == nil)
            else {
                throw .invalidLocation("give latitude (−90 to 90) and longitude (−180 to 180) together")
            }
        }
        homes[index].location = location
    }

    /// The home that holds a zone, a group or a scene.
    public func home(containing zone: ZoneID) -> Home? { homes.first { $0.zone(zone) != nil } }
    public func home(containing group: GroupID) -> Home? { homes.first { $0.group(group) != nil } }
    public func home(containing scene: SceneID) -> Home? { homes.first { $0.scene(scene) != nil } }

    // MARK: Zones

    public mutating func renameZone(_ id: ZoneID, to name: String) throws(ModelError) {
        let (homeIndex, zoneIndex) = try zoneIndices(id)
        let others = homes[homeIndex].zones.filter { $0.id != id }.map(\.name)
        do { try NameRules.validateUnique(name, kind: .zone, among: others) } catch { throw .invalidName(error) }
        homes[homeIndex].zones[zoneIndex].name = name
    }

    /// Replaces a zone's rooms (each a room of the zone's home; repeats are dropped).
    public mutating func setRooms(_ rooms: [RoomID], ofZone zone: ZoneID) throws(ModelError) {
        let (homeIndex, zoneIndex) = try zoneIndices(zone)
        for room in rooms where homes[homeIndex].room(room) == nil { throw .unknownRoom(room) }
        var unique: [RoomID] = []
        for room in rooms where !unique.contains(room) { unique.append(room) }
        homes[homeIndex].zones[zoneIndex].roomIDs = unique
    }

    // MARK: Groups

    /// Adds a group to a home; its members must be devices of that home.
    @discardableResult
    public mutating func addGroup(named name: String, to homeID: HomeID, members: [GroupMember]) throws(ModelError)
        -> GroupID
    {
        let index = try homeIndex(homeID)
        do { try NameRules.validateUnique(name, kind: .group, among: homes[index].groups.map(\.name)) } catch {
            throw .invalidName(error)
        }
        let checked = try checkedMembers(members, in: index)
        let taken = Set(homes.flatMap(\.groups).map(\.id.rawValue))
        let id = GroupID(uniqueSlug("\(homeID.rawValue).group.\(name)", taken: taken))
        homes[index].groups.append(DeviceGroup(id: id, name: name, members: checked))
        return id
    }

    public mutating func renameGroup(_ id: GroupID, to name: String) throws(ModelError) {
        let (homeIndex, groupIndex) = try groupIndices(id)
        let others = homes[homeIndex].groups.filter { $0.id != id }.map(\.name)
        do { try NameRules.validateUnique(name, kind: .group, among: others) } catch { throw .invalidName(error) }
        homes[homeIndex].groups[groupIndex].name = name
    }

    public mutating func setMembers(_ members: [GroupMember], ofGroup id: GroupID) throws(ModelError) {
        let (homeIndex, groupIndex) = try groupIndices(id)
        homes[homeIndex].groups[groupIndex].members = try checkedMembers(members, in: homeIndex)
    }

    public mutating func removeGroup(_ id: GroupID) throws(ModelError) {
        let (homeIndex, groupIndex) = try groupIndices(id)
        homes[homeIndex].groups.remove(at: groupIndex)
    }

    /// A group by id, anywhere.
    public func group(_ id: GroupID) -> DeviceGroup? {
        for home in homes { if let group = home.group(id) { return group } }
        return nil
    }

    /// A member's connectivity: its device type's, or the device's; unknown when the bridge no
    /// longer holds the device (or the type).
    public func connectivity(of member: GroupMember) -> SourceConnectivity {
        guard let device = devices[member.device] else { return .unknown }
        guard let key = member.deviceTypeKey else { return device.sourceConnectivity }
        return device.deviceType(key: key)?.sourceConnectivity ?? .unknown
    }

    /// A group's connectivity, by the rules of a device's (``SourceConnectivity/aggregate(_:)``)
    /// over its members: all online → online, some → partiallyOnline, localities that differ → mixed.
    public func connectivity(of group: DeviceGroup) -> SourceConnectivity {
        SourceConnectivity.aggregate(group.members.map { connectivity(of: $0) })
    }

    /// Members without repeats, each a device of the home (and a device type it has, when named).
    private func checkedMembers(_ members: [GroupMember], in homeIndex: Int) throws(ModelError) -> [GroupMember] {
        var unique: [GroupMember] = []
        for member in members where !unique.contains(member) {
            guard let device = devices[member.device] else { throw .unknownDevice(member.device) }
            guard (device.homeID ?? primaryHome.id) == homes[homeIndex].id else {
                throw .notInHome(device: member.device, home: homes[homeIndex].name)
            }
            if let key = member.deviceTypeKey, device.deviceType(key: key) == nil {
                throw .unknownDeviceTypeKey(key: key, known: device.deviceTypes.map(\.key))
            }
            unique.append(member)
        }
        return unique
    }

    // MARK: Scenes

    /// Adds a user scene to a home; its actions may name any device the bridge knows.
    @discardableResult
    public mutating func addScene(named name: String, to homeID: HomeID, actions: [SceneAction]) throws(ModelError)
        -> SceneID
    {
        let index = try homeIndex(homeID)
        do { try NameRules.validateUnique(name, kind: .scene, among: homes[index].scenes.map(\.name)) } catch {
            throw .invalidName(error)
        }
        for action in actions where devices[action.device] == nil { throw .unknownDevice(action.device) }
        let taken = Set(homes.flatMap(\.scenes).map(\.id.rawValue))
        let id = SceneID(uniqueSlug("\(homeID.rawValue).scene.\(name)", taken: taken))
        homes[index].scenes.append(Scene(id: id, name: name, kind: .user, actions: actions))
        return id
    }

    public mutating func renameScene(_ id: SceneID, to name: String) throws(ModelError) {
        let (homeIndex, sceneIndex) = try sceneIndices(id)
        let others = homes[homeIndex].scenes.filter { $0.id != id }.map(\.name)
        do { try NameRules.validateUnique(name, kind: .scene, among: others) } catch { throw .invalidName(error) }
        homes[homeIndex].scenes[sceneIndex].name = name
    }

    public mutating func setActions(_ actions: [SceneAction], ofScene id: SceneID) throws(ModelError) {
        let (homeIndex, sceneIndex) = try sceneIndices(id)
        for action in actions where devices[action.device] == nil { throw .unknownDevice(action.device) }
        homes[homeIndex].scenes[sceneIndex].actions = actions
    }

    /// Removes a user scene; a built-in one stays (HomeKit's rule).
    public mutating func removeScene(_ id: SceneID) throws(ModelError) {
        let (homeIndex, sceneIndex) = try sceneIndices(id)
        let scene = homes[homeIndex].scenes[sceneIndex]
        guard scene.kind == .user else { throw .cannotRemoveBuiltInScene(name: scene.name, kind: scene.kind) }
        homes[homeIndex].scenes.remove(at: sceneIndex)
    }

    /// A scene by id, anywhere.
    public func scene(_ id: SceneID) -> Scene? {
        for home in homes { if let scene = home.scene(id) { return scene } }
        return nil
    }

    // MARK: Restore

    /// Puts a kept layout back (homes with their rooms, zones, groups and scenes, as
    /// ``homes`` gave them), checking what the methods above keep true: one primary home,
    /// a default room first in each, ids unique, names unique per kind within a home,
    /// zones naming their home's rooms. Devices are added afterwards, as at any start.
    public static func restoring(_ kept: [Home]) throws(ModelError) -> HomeGraph {
        guard !kept.isEmpty else { throw .invalidLayout("it has no home") }
        var graph = try HomeGraph()
        graph.homes = []
        var ids: Set<String> = []
        func unique(_ id: String) throws(ModelError) {
            guard ids.insert(id).inserted else { throw .invalidLayout("the id '\(id)' is used twice") }
        }
        for home in kept {
            try unique("home:" + home.id.rawValue)
            do {
                try NameRules.validateUnique(home.name, kind: .home, among: graph.homes.map(\.name))
                guard let first = home.rooms.first, first.isDefault,
                    !home.rooms.dropFirst().contains(where: \.isDefault)
                else { throw ModelError.invalidLayout("home '\(home.name)' must have exactly one default room, first") }
                for (index, room) in home.rooms.enumerated() {
                    try unique("room:" + room.id.rawValue)
                    try NameRules.validateUnique(room.name, kind: .room, among: home.rooms[..<index].map(\.name))
                }
                for (index, zone) in home.zones.enumerated() {
                    try unique("zone:" + zone.id.rawValue)
                    try NameRules.validateUnique(zone.name, kind: .zone, among: home.zones[..<index].map(\.name))
                    for room in zone.roomIDs where home.room(room) == nil { throw ModelError.unknownRoom(room) }
                }
                for (index, group) in home.groups.enumerated() {
                    try unique("group:" + group.id.rawValue)
                    try NameRules.validateUnique(group.name, kind: .group, among: home.groups[..<index].map(\.name))
                }
                for (index, scene) in home.scenes.enumerated() {
                    try unique("scene:" + scene.id.rawValue)
                    try NameRules.validateUnique(scene.name, kind: .scene, among: home.scenes[..<index].map(\.name))
                }
            } catch let error as NameError {
                throw .invalidLayout("\(error)")
            } catch let error as ModelError {
                throw error
            } catch {
                throw .invalidLayout("\(error)")
            }
            graph.homes.append(home)
        }
        guard graph.homes.filter(\.isPrimary).count == 1 else {
            throw .invalidLayout("exactly one home must be primary")
        }
        return graph
    }

    // MARK: Helpers

    func groupIndices(_ id: GroupID) throws(ModelError) -> (Int, Int) {
        for (homeIndex, home) in homes.enumerated() {
            if let index = home.groups.firstIndex(where: { $0.id == id }) { return (homeIndex, index) }
        }
        throw .unknownGroup(id)
    }

    func sceneIndices(_ id: SceneID) throws(ModelError) -> (Int, Int) {
        for (homeIndex, home) in homes.enumerated() {
            if let index = home.scenes.firstIndex(where: { $0.id == id }) { return (homeIndex, index) }
        }
        throw .unknownScene(id)
    }
}
