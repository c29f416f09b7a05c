import Foundation
import GRDB
import Testing
import TraitBridgeStore

/// Several Matter bridges in the registry (migration v13): a registry of one bridge becomes bridge 1; each
/// bridge's state and endpoints are read, saved and reset apart from the others'; endpoint numbers are per
/// bridge, UniqueIDs over all bridges; which bridge serves each device is kept; a number out of 1…16 is
/// refused and named. The fixture `registry-v12` was written by the release before v13 (`matter reset
/// --identity`), its bridge's fabrics, ACL, resumption records, labels and endpoints added as v12 keeps them.
@Suite("The registry: several Matter bridges")
struct MatterBridgesStoreTests {
    static let fixture = GenericSourceTests.fixtures + "/registry-v12/traitbridge.sqlite"

    /// A copy of the fixture in a folder of its own.
    static func copyOfV12Registry() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-v12-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: folder + "/traitbridge.sqlite")
        return folder
    }

    /// The bridge state the fixture holds.
    static let v12Record: MatterBridgeRecord = {
        var record = MatterBridgeStoreTests.record
        record.resumptions = MatterBridgeStoreTests.resumptions(3)
        record.basicInformation = .init(vendorID: 0xFFF1, productID: 0x8001, nodeLabel: "Hall", location: "DE")
        return record
    }()

    typealias Endpoints = MatterEndpointStoreTests

    /// A second bridge's state: another identity, a fabric with the same index as bridge 1's, the same
    /// resumption IDs.
    static let second = MatterBridgeRecord(
        setup: .init(passcode: 34_567_890, discriminator: 1234, salt: Array(repeating: 5, count: 32), iterations: 2000),
        fabrics: [
            .init(
                index: 1, rootCertificate: [21], intermediateCertificate: nil, nodeCertificate: [22],
                ipkEpochKey: [UInt8](repeating: 3, count: 16), operationalKey: [UInt8](repeating: 4, count: 32),
                vendorID: 0x130D, label: "other")
        ],
        accessControl: [.init(fabricIndex: 1, privilege: 5, authMode: 2, subjects: [7])],
        resumptions: MatterBridgeStoreTests.resumptions(2),
        basicInformation: .init(vendorID: 0xFFF1, productID: 0x8002, nodeLabel: "Garage"))

    static func uniqueID(_ digit: Character) -> String { String(repeating: digit, count: 32) }

    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-mtbridges-\(UUID().uuidString)").path
    }

    @Test func `a v12 registry's bridge becomes bridge 1, every row kept; bridge 2 is empty`() throws {
        let path = try Self.copyOfV12Registry()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = try DatabaseQueue(path: path + "/traitbridge.sqlite")
        let rows = try before.read { db in try Endpoints.contents(db) }
        try before.close()
        #expect(rows["matterFabric"]?.count == 2 && rows["matterEndpoint"]?.count == 2, "the fixture holds a state")

        let store = try DeviceStore(directory: path)
        #expect(try store.matterBridgeNumbers() == [1])
        #expect(try store.matterBridge(1) == Self.v12Record)
        #expect(try store.matterBridge() == Self.v12Record, "1 when not said")
        #expect(try store.matterBridge(2) == nil)
        let light = Endpoints.light
        #expect(try store.matterEndpoints() == [light, Endpoints.plugPart])
        #expect(try store.matterEndpoints(bridge: 1) == [light, Endpoints.plugPart])
        #expect(try store.matterEndpoints(bridge: 2).isEmpty)
        #expect(try store.matterBridgeDevices().isEmpty)

        // Every row as it was, with bridge 1 (and v14's ACL targets, none); two migrations more, the new table empty.
        let queue = try DatabaseQueue(path: store.path)
        defer { try? queue.close() }
        let after = try queue.read { db in try Endpoints.contents(db, leavingOut: ["bridge", "targets"]) }
        #expect(
            try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(targets) FROM matterAccessControl") } == 0)
        let added: Set = ["matterBridgeDevice", "grdb_migrations"]
        #expect(after.filter { !added.contains($0.key) } == rows.filter { $0.key != "grdb_migrations" })
        #expect(after["matterBridgeDevice"] == [])
        #expect(after["grdb_migrations"]?.count == (rows["grdb_migrations"]?.count ?? 0) + 2)
        let bridges = try queue.read { db in
            try ["matterFabric", "matterAccessControl", "matterResumption", "matterEndpoint"].flatMap { table in
                try Int.fetchAll(db, sql: "SELECT DISTINCT bridge FROM \(table)")
            }
        }
        #expect(bridges == [1, 1, 1, 1])

        // A second bridge next to it; the first is as it was, after reopening too.
        try store.saveMatterBridge(Self.second, bridge: 2, now: Date())
        let reopened = try DeviceStore(directory: path)
        #expect(try reopened.matterBridge(1) == Self.v12Record && reopened.matterBridge(2) == Self.second)
        #expect(try reopened.matterBridgeNumbers() == [1, 2])
    }

    @Test func `two bridges are kept apart: saving or resetting one leaves the other's state and endpoints`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        let first = Self.v12Record
        try store.saveMatterBridge(first, now: Date())
        try store.saveMatterBridge(Self.second, bridge: 2, now: Date())
        #expect(try store.matterBridge(1) == first && store.matterBridge(2) == Self.second)
        #expect(try store.matterBridgeNumbers() == [1, 2])
        let secondLight = MatterEndpointAssignment(key: "hass:b", endpoint: 2, uniqueID: Self.uniqueID("b"), bridge: 2)
        try store.saveMatterEndpoints([Endpoints.light, Endpoints.plugPart, secondLight], now: Date())
        try store.updateMatterBridgeDevices(["zigbee2mqtt:0x00158d0001a2b3c4": 1, "shelly:plug-1": 1, "hass:b": 2])

        // A save of bridge 1 replaces its rows only.
        var changed = first
        changed.fabrics.removeLast()
        changed.resumptions.removeFirst()
        changed.basicInformation = nil
        try store.saveMatterBridge(changed, bridge: 1, now: Date())
        #expect(try store.matterBridge(1) == changed)
        #expect(try store.matterBridge(2) == Self.second)
        #expect(try store.matterEndpoints().count == 3, "a save keeps every endpoint")

        // A reset of bridge 2 forgets its fabrics, endpoints and devices; bridge 1 keeps all of its own.
        var reset = Self.second
        (reset.fabrics, reset.accessControl, reset.resumptions) = ([], [], [])
        try store.resetMatterBridge(reset, bridge: 2, now: Date())
        let reopened = try DeviceStore(directory: path)
        #expect(try reopened.matterBridge(2) == reset)
        #expect(try reopened.matterBridge(1) == changed)
        #expect(try reopened.matterEndpoints() == [Endpoints.light, Endpoints.plugPart])
        #expect(try reopened.matterEndpoints(bridge: 2).isEmpty)
        #expect(try reopened.matterBridgeDevices() == ["zigbee2mqtt:0x00158d0001a2b3c4": 1, "shelly:plug-1": 1])

        // And a reset of bridge 1 (the default) leaves bridge 2 as it is.
        try reopened.resetMatterBridge(Self.v12Record, now: Date())
        #expect(try reopened.matterEndpoints().isEmpty && reopened.matterBridgeDevices().isEmpty)
        #expect(try reopened.matterBridge(2) == reset && reopened.matterBridge(1) == Self.v12Record)
    }

    @Test func `endpoint numbers and keys may repeat across bridges but not within one; a UniqueID never repeats`()
        throws
    {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        let light = Endpoints.light
        // The same number on bridges 3 and 2, and the same key (a device that moved) on bridge 2.
        let onThree = MatterEndpointAssignment(key: "hass:c", endpoint: 2, uniqueID: Self.uniqueID("c"), bridge: 3)
        let moved = MatterEndpointAssignment(key: light.key, endpoint: 2, uniqueID: Self.uniqueID("d"), bridge: 2)
        let later = MatterEndpointAssignment(key: "hass:e", endpoint: 5, uniqueID: Self.uniqueID("e"), bridge: 2)
        try store.saveMatterEndpoints([onThree, later, light, moved], now: Date())
        #expect(try store.matterEndpoints() == [light, moved, later, onThree], "by bridge, then number")
        #expect(try store.matterEndpoints(bridge: 2) == [moved, later])

        let refusals: [(MatterEndpointAssignment, String)] = [
            (
                .init(key: "hass:x", endpoint: 5, uniqueID: Self.uniqueID("f"), bridge: 2),
                "endpoint 5 is already 'hass:e''s on bridge 2"
            ),
            (
                .init(key: "hass:c", endpoint: 9, uniqueID: Self.uniqueID("f"), bridge: 3),
                "'hass:c' already has endpoint 2 on bridge 3"
            ),
            (
                .init(key: "hass:x", endpoint: 2, uniqueID: light.uniqueID, bridge: 4),
                "the UniqueID of 'hass:x' is already '\(light.key)''s (bridge 1)"
            ),
        ]
        for (refused, expected) in refusals {
            let fine = MatterEndpointAssignment(key: "hass:fine", endpoint: 3, uniqueID: Self.uniqueID("9"), bridge: 4)
            #expect {
                try store.saveMatterEndpoints([fine, refused], now: Date())
            } throws: { error in
                "\(error)".contains(expected)
            }
            #expect(try store.matterEndpoints(bridge: 4).isEmpty, "nothing of the save is written: \(expected)")
        }

        // Allocation on bridge 2 follows bridge 2's numbers, and the new assignments are bridge 2's.
        var generator = SystemRandomNumberGenerator()
        let result = DeviceStore.assignMatterEndpoints(
            for: ["hass:e", "hass:new"], existing: try store.matterEndpoints(bridge: 2), bridge: 2, using: &generator)
        #expect(result.all["hass:e"] == later)
        #expect(result.new.map(\.bridge) == [2] && result.new.map(\.endpoint) == [6])
        try store.saveMatterEndpoints(result.new, now: Date())
        #expect(try store.matterEndpoints(bridge: 2).map(\.key) == [light.key, "hass:e", "hass:new"])
    }

    @Test func `which bridge serves each device is kept; nil forgets it`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        #expect(try store.matterBridgeDevices().isEmpty)
        try store.updateMatterBridgeDevices(["hass:a": 1, "hass:b": 2, "shelly:c": 16])
        try store.updateMatterBridgeDevices([:])
        #expect(try store.matterBridgeDevices() == ["hass:a": 1, "hass:b": 2, "shelly:c": 16])
        try store.updateMatterBridgeDevices(["hass:a": nil, "hass:b": 3, "gone": nil])
        #expect(try DeviceStore(directory: path).matterBridgeDevices() == ["hass:b": 3, "shelly:c": 16])
    }

    @Test(arguments: [0, 17, -1])
    func `a bridge number out of 1…16 is refused, named, and nothing is written`(bridge: Int) throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        let named = "\(bridge) is not a Matter bridge number (1…16)"
        let record = MatterBridgeStoreTests.record
        let calls: [(String, () throws -> Void)] = [
            ("matterBridge", { _ = try store.matterBridge(bridge) }),
            ("saveMatterBridge", { try store.saveMatterBridge(record, bridge: bridge, now: Date()) }),
            ("resetMatterBridge", { try store.resetMatterBridge(record, bridge: bridge, now: Date()) }),
            ("matterEndpoints", { _ = try store.matterEndpoints(bridge: bridge) }),
            (
                "saveMatterEndpoints",
                {
                    try store.saveMatterEndpoints(
                        [.init(key: "hass:a", endpoint: 2, uniqueID: Self.uniqueID("a"), bridge: bridge)], now: Date())
                }
            ),
            ("updateMatterBridgeDevices", { try store.updateMatterBridgeDevices(["hass:a": 1, "hass:z": bridge]) }),
        ]
        for (name, call) in calls {
            #expect(throws: StoreError.self, "\(name)") { try call() }
            do { try call() } catch { #expect("\(error)".contains(named), "\(name): \(error)") }
        }
        #expect(try store.matterBridgeNumbers().isEmpty && store.matterEndpoints().isEmpty)
        #expect(try store.matterBridgeDevices().isEmpty)
    }

    @Test(arguments: [
        ("UPDATE matterNode SET id = 17", "matterNode has a row with id 17, not a bridge number (1…16)"),
        ("UPDATE matterEndpoint SET bridge = 0", "'hass:a': bridge is 0, not in 1…16"),
        ("UPDATE matterEndpoint SET bridge = 'one'", "'hass:a': bridge holds a value of another type"),
        ("UPDATE matterBridgeDevice SET bridge = 99", "'hass:a': bridge is 99, not in 1…16"),
        ("UPDATE matterBridgeDevice SET device = x'00ff'", "a row's device is not text"),
    ])
    func `a damaged bridge number is a read error that names its row`(sql: String, expected: String) throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        try store.saveMatterBridge(MatterBridgeStoreTests.record, now: Date())
        try store.saveMatterEndpoints(
            [.init(key: "hass:a", endpoint: 2, uniqueID: Self.uniqueID("a"))], now: Date())
        try store.updateMatterBridgeDevices(["hass:a": 1])
        let edited = try DatabaseQueue(path: store.path)
        try edited.write { try $0.execute(sql: sql) }
        try edited.close()
        #expect {
            _ = try store.matterBridgeNumbers()
            _ = try store.matterEndpoints()
            _ = try store.matterBridgeDevices()
        } throws: { error in
            "\(error)".contains(expected)
        }
    }
}
