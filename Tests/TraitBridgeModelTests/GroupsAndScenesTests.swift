import FoundationEssentials
import Testing
import TraitBridgeModel

/// Groups and scenes in the home graph, with HomeKit's rules at their edges, and a group's
/// connectivity through every combination of its members' states.
@Suite("Groups, scenes, zones and the kept layout")
struct GroupsAndScenesTests {
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A speaker (OnOff + LevelControl) whose traits are all in `state` (`nil`: never heard).
    func member(_ id: String, _ state: TraitConnectivityState?, locality: TraitLocality = .localPeer) throws -> Device {
        let catalog = try testCatalog()
        let type = try catalog.makeDeviceType(
            key: "speaker", type: .matter("Speaker"), isPrimaryType: true,
            traits: [.matter("OnOff"), .matter("LevelControl")])
        var device = try Device(id: DeviceID(id), name: id, deviceTypes: [type])
        if let state {
            for address in device.traitAddresses {
                try device.setConnectivity(
                    state, locality: locality, reason: .messageReceived(topic: "zigbee2mqtt/\(id)"), at: address,
                    time: t0)
            }
        }
        return device
    }

    static let states: [TraitConnectivityState?] = [.online, .offline, nil]

    @Test(
        "a group's connectivity through every combination of three members' states (online, offline, unknown)",
        arguments: states, states)
    func everyCombination(first: TraitConnectivityState?, second: TraitConnectivityState?) throws {
        for third in Self.states {
            var graph = try HomeGraph(primaryHomeName: "Home")
            let states = [first, second, third]
            for (index, state) in states.enumerated() { try graph.addDevice(member("m\(index)", state)) }
            let id = try graph.addGroup(
                named: "All", to: graph.primaryHome.id,
                members: (0..<3).map { GroupMember(device: try! DeviceID("m\($0)")) })
            let online = states.filter { $0 == .online }.count
            let offline = states.filter { $0 == .offline }.count
            // The table of ARCHITECTURE §3, written out again here as the oracle.
            let expected: ConnectivityState =
                online == 3 ? .online : online > 0 ? .partiallyOnline : offline > 0 ? .offline : .unknown
            let connectivity = graph.connectivity(of: try #require(graph.group(id)))
            #expect(connectivity.connectivityState == expected, "\(states)")
            #expect(connectivity.dataSourceLocality == (online + offline > 0 ? .localPeer : .unspecified), "\(states)")
        }
    }

    @Test("a partially online member, a member gone and localities that differ: partiallyOnline, unknown, mixed")
    func aggregateEdges() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        var half = try member("half", .online)
        try half.setConnectivity(
            .offline, locality: .localPeer, reason: .messageReceived(topic: "x"),
            at: TraitAddress(deviceTypeKey: "speaker", traitID: .matter("LevelControl")), time: t0)
        try graph.addDevice(half)
        try graph.addDevice(member("cloud", .online, locality: .remote))
        try graph.addDevice(member("gone", .online))
        let id = try graph.addGroup(
            named: "Mixed", to: graph.primaryHome.id,
            members: ["half", "cloud", "gone"].map { GroupMember(device: try! DeviceID($0)) })
        var group = try #require(graph.group(id))
        #expect(
            graph.connectivity(of: group)
                == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
        try graph.removeDevice(DeviceID("gone"))
        group = try #require(graph.group(id))
        #expect(graph.connectivity(of: group.members[2]) == .unknown, "a member the bridge no longer holds")
        try graph.setMembers([GroupMember(device: DeviceID("cloud"))], ofGroup: id)
        #expect(graph.connectivity(of: try #require(graph.group(id))).connectivityState == .online)
    }

    @Test("group, scene and zone names are unique per home, compared ignoring case, spaces and apostrophes")
    func names() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let cabin = try graph.addHome(named: "Cabin")
        let home = graph.primaryHome.id
        try graph.addGroup(named: "Kid's Lamps", to: home, members: [])
        #expect(throws: ModelError.invalidName(.duplicate(kind: .group, name: "kids lamps", existing: "Kid's Lamps"))) {
            try graph.addGroup(named: "kids lamps", to: home, members: [])
        }
        try graph.addGroup(named: "kids lamps", to: cabin, members: [])  // another home: allowed
        try graph.addScene(named: "Movie Night", to: home, actions: [])
        #expect(throws: ModelError.self) { try graph.addScene(named: "MOVIENIGHT", to: home, actions: []) }
        #expect(throws: ModelError.self) { try graph.addScene(named: "good morning", to: home, actions: []) }
        let zone = try graph.addZone(named: "Upstairs", to: home)
        try graph.addZone(named: "Downstairs", to: home)
        #expect(throws: ModelError.self) { try graph.renameZone(zone, to: "down stairs") }
        try graph.renameZone(zone, to: "Up stairs")
        #expect(graph.primaryHome.zone(zone)?.name == "Up stairs")
        #expect(throws: ModelError.self) { try graph.addGroup(named: "Bad/Name", to: home, members: []) }
    }

    @Test("every home has the four built-in scenes; they can be renamed, not removed")
    func builtInScenes() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let kinds = graph.primaryHome.scenes.map(\.kind)
        #expect(kinds == [.wakeUp, .sleep, .leavingHome, .arrivingHome])
        let night = graph.primaryHome.scenes[1]
        #expect(throws: ModelError.cannotRemoveBuiltInScene(name: "Good Night", kind: .sleep)) {
            try graph.removeScene(night.id)
        }
        try graph.renameScene(night.id, to: "Bedtime")
        #expect(graph.scene(night.id)?.name == "Bedtime" && graph.scene(night.id)?.kind == .sleep)
        let user = try graph.addScene(named: "Reading", to: graph.primaryHome.id, actions: [])
        try graph.removeScene(user)
        #expect(graph.scene(user) == nil)
    }

    @Test("members are devices of the group's home, with the device type they name")
    func members() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let cabin = try graph.addHome(named: "Cabin")
        try graph.addDevice(member("lamp", .online))
        #expect(throws: ModelError.unknownDevice(try DeviceID("nobody"))) {
            try graph.addGroup(
                named: "G", to: graph.primaryHome.id, members: [GroupMember(device: try DeviceID("nobody"))])
        }
        #expect(throws: ModelError.notInHome(device: try DeviceID("lamp"), home: "Cabin")) {
            try graph.addGroup(named: "G", to: cabin, members: [GroupMember(device: try DeviceID("lamp"))])
        }
        #expect(throws: ModelError.unknownDeviceTypeKey(key: "l9", known: ["speaker"])) {
            try graph.addGroup(
                named: "G", to: graph.primaryHome.id,
                members: [GroupMember(device: try DeviceID("lamp"), deviceTypeKey: "l9")])
        }
        let id = try graph.addGroup(
            named: "G", to: graph.primaryHome.id,
            members: [GroupMember(device: try DeviceID("lamp")), GroupMember(device: try DeviceID("lamp"))])
        #expect(graph.group(id)?.members.count == 1, "a member given twice is one member")
    }

    @Test("removing a home moves its devices to the primary home; the last home stays")
    func removeHome() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let cabin = try graph.addHome(named: "Cabin")
        try graph.addDevice(member("lamp", .online))
        let shed = try graph.addRoom(named: "Shed", to: cabin)
        try graph.assignDevice(try DeviceID("lamp"), to: shed)
        try graph.setPrimaryHome(cabin)
        #expect(try graph.removeHome(cabin) == [DeviceID("lamp")])
        #expect(graph.primaryHome.name == "Home" && graph.primaryHome.isPrimary)
        #expect(try graph.room(of: DeviceID("lamp"))?.isDefault == true)
        #expect(throws: ModelError.cannotRemoveLastHome) { try graph.removeHome(graph.primaryHome.id) }
    }

    @Test("a kept layout comes back as it was; one that breaks an invariant is refused with the reason")
    func restoring() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let cabin = try graph.addHome(named: "Cabin")
        let shed = try graph.addRoom(named: "Shed", to: cabin)
        try graph.addZone(named: "Outside", to: cabin, rooms: [shed])
        try graph.addScene(named: "Evening", to: cabin, actions: [])
        let restored = try HomeGraph.restoring(graph.homes)
        #expect(restored.homes == graph.homes)
        #expect(throws: ModelError.invalidLayout("it has no home")) { try HomeGraph.restoring([]) }
        #expect(throws: ModelError.invalidLayout("the id 'home:home' is used twice")) {
            try HomeGraph.restoring([graph.homes[0], graph.homes[0]])
        }
        let other = try HomeGraph(primaryHomeName: "Other")  // primary too
        #expect(throws: ModelError.invalidLayout("exactly one home must be primary")) {
            try HomeGraph.restoring([graph.homes[0], other.homes[0]])
        }
    }
}
