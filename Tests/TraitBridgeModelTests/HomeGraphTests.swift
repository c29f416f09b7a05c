import Testing
import TraitBridgeModel

@Suite("Homes, rooms and zones")
struct HomeGraphTests {
    func device(_ id: String) throws -> Device { try Device(id: DeviceID(id), name: id) }

    @Test("a new graph has one primary home with its default room")
    func initialHome() throws {
        let graph = try HomeGraph(primaryHomeName: "Maple Street")
        #expect(graph.homes.count == 1)
        #expect(graph.primaryHome.name == "Maple Street")
        #expect(graph.primaryHome.isPrimary)
        #expect(graph.primaryHome.defaultRoom.isDefault)
        #expect(graph.primaryHome.defaultRoom.name == "Entire Home")
    }

    @Test("exactly one home is primary")
    func primary() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let cabin = try graph.addHome(named: "Cabin")
        #expect(graph.home(cabin)?.isPrimary == false)
        try graph.setPrimaryHome(cabin)
        #expect(graph.homes.filter(\.isPrimary).map(\.id) == [cabin])
    }

    @Test("home names are unique among homes; room names within a home only")
    func namespaces() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        #expect(throws: ModelError.self) { try graph.addHome(named: "home") }
        let cabin = try graph.addHome(named: "Cabin")
        try graph.addRoom(named: "Kitchen", to: graph.primaryHome.id)
        try graph.addRoom(named: "Kitchen", to: cabin)  // another home: allowed
        #expect(throws: ModelError.self) { try graph.addRoom(named: "kitchen", to: cabin) }
        #expect(throws: ModelError.self) { try graph.addRoom(named: "Bad/Name", to: cabin) }
        #expect(graph.home(cabin)?.rooms.count == 2)
    }

    @Test("an unassigned device is in the default room; removing a room returns its devices there")
    func defaultRoom() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let home = graph.primaryHome.id
        let kitchen = try graph.addRoom(named: "Kitchen", to: home)
        try graph.addDevice(device("lamp"))
        try graph.addDevice(device("kettle"))
        #expect(try graph.room(of: DeviceID("lamp"))?.isDefault == true)
        try graph.assignDevice(DeviceID("kettle"), to: kitchen)
        #expect(try graph.room(of: DeviceID("kettle"))?.id == kitchen)
        #expect(graph.devices(in: kitchen).map(\.id.rawValue) == ["kettle"])
        try graph.removeRoom(kitchen)
        #expect(try graph.room(of: DeviceID("kettle"))?.isDefault == true)
        #expect(graph.devices(in: graph.primaryHome.defaultRoom.id).count == 2)
        #expect(throws: ModelError.cannotRemoveDefaultRoom(graph.primaryHome.defaultRoom.id)) {
            try graph.removeRoom(graph.primaryHome.defaultRoom.id)
        }
    }

    @Test("a room may be in many zones; removing it removes it from every zone")
    func zones() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let home = graph.primaryHome.id
        let bedroom = try graph.addRoom(named: "Bedroom", to: home)
        let bath = try graph.addRoom(named: "Bath", to: home)
        let upstairs = try graph.addZone(named: "Upstairs", to: home, rooms: [bedroom, bath])
        let quiet = try graph.addZone(named: "Quiet", to: home, rooms: [bedroom])
        try graph.addRoom(bedroom, toZone: quiet)  // twice: no-op
        #expect(Set(graph.zones(containing: bedroom).map(\.id)) == [upstairs, quiet])
        #expect(graph.home(home)?.zone(quiet)?.roomIDs == [bedroom])
        try graph.removeRoom(bedroom)
        #expect(graph.zones(containing: bedroom).isEmpty)
        #expect(graph.home(home)?.zone(upstairs)?.roomIDs == [bath])
        #expect(throws: ModelError.self) { try graph.addZone(named: "upstairs", to: home) }
    }

    @Test("a failed change leaves the graph as it was")
    func atomicFailure() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        try graph.addDevice(device("lamp"))
        let before = graph
        #expect(throws: ModelError.duplicateDevice(try DeviceID("lamp"))) { try graph.addDevice(device("lamp")) }
        #expect(throws: ModelError.unknownRoom(RoomID("nope"))) { try graph.assignDevice(DeviceID("lamp"), to: RoomID("nope")) }
        #expect(graph == before)
    }

    @Test("updating a device keeps the room the user chose")
    func updateKeepsPlacement() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        let office = try graph.addRoom(named: "Office", to: graph.primaryHome.id)
        try graph.addDevice(device("lamp"))
        try graph.assignDevice(DeviceID("lamp"), to: office)
        var renamed = try device("lamp")
        renamed.name = "Desk Lamp"
        try graph.updateDevice(renamed)
        #expect(graph.devices[try DeviceID("lamp")]?.name == "Desk Lamp")
        #expect(graph.room(of: try DeviceID("lamp"))?.id == office)
    }

    @Test("a device changed in place is found by its new identity, not its old; reads and checks change nothing")
    func inPlace() throws {
        var graph = try HomeGraph(primaryHomeName: "Home")
        var lamp = try device("lamp")
        lamp.identity.serialNumber = "S-1"
        try graph.addDevice(lamp)
        let probe = { (serial: String) -> DeviceIdentity in
            var identity = DeviceIdentity()
            identity.serialNumber = serial
            return identity
        }
        #expect(graph.devices(sharingIdentityWith: probe("S-1")) == [lamp.id])
        let renamed = try graph.modifyDevice(lamp.id) { (device: inout Device) throws(ModelError) -> String in
            device.identity.serialNumber = "S-2"
            device.name = "Lamp"
            return device.name
        }
        #expect(renamed == "Lamp")
        #expect(graph.devices(sharingIdentityWith: probe("S-1")).isEmpty)
        #expect(graph.devices(sharingIdentityWith: probe("S-2")) == [lamp.id])
        #expect(graph.readDevice(lamp.id) { $0.name } == "Lamp")
        #expect(graph.readDevice(try DeviceID("absent")) { $0.name } == nil)
        #expect(graph.hasDevice(lamp.id))
        #expect(!graph.hasDevice(try DeviceID("absent")))
        let unchanged = try graph.modifyDevice(try DeviceID("absent")) { (_: inout Device) throws(ModelError) in 1 }
        #expect(unchanged == nil)
        // A body that changes the identity and then throws: the change stays, so does the index's.
        #expect(throws: ModelError.self) {
            try graph.modifyDevice(lamp.id) { (device: inout Device) throws(ModelError) in
                device.identity.serialNumber = "S-3"
                throw ModelError.unknownDevice(device.id)
            }
        }
        #expect(graph.devices(sharingIdentityWith: probe("S-3")) == [lamp.id])
        #expect(graph.devices(sharingIdentityWith: probe("S-2")).isEmpty)
    }
}
