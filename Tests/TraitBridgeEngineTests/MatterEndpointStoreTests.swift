import Foundation
import GRDB
import Testing
import TraitBridgeModel
import TraitBridgeStore

/// The Matter bridge's endpoint assignments in the registry (migration v12): written and read back by
/// number, never overwritten nor given twice, a damaged row an error naming its key, forgotten by
/// `matter reset` only; a v11 registry opens with its rows as they were.
@Suite("The registry: the Matter bridge's endpoints")
struct MatterEndpointStoreTests {
    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-mtend-\(UUID().uuidString)").path
    }

    static let light = MatterEndpointAssignment(
        key: "zigbee2mqtt:0x00158d0001a2b3c4", endpoint: 2, uniqueID: "0123456789abcdef0123456789abcdef")
    static let plugPart = MatterEndpointAssignment(
        key: "shelly:plug-1/matter.OnOffPlugInUnit", endpoint: 65534, uniqueID: "fedcba9876543210fedcba9876543210")

    @Test func `assignments are written and read back by endpoint number`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        #expect(try store.matterEndpoints().isEmpty)
        try store.saveMatterEndpoints([Self.plugPart, Self.light], now: Date())
        try store.saveMatterEndpoints([], now: Date())
        #expect(try store.matterEndpoints() == [Self.light, Self.plugPart])
        #expect(try DeviceStore(directory: path).matterEndpoints() == [Self.light, Self.plugPart], "after reopening")

        // As the bridge uses them: allocate, save the new ones, and the next start allocates nothing.
        var generator = SystemRandomNumberGenerator()
        let keys = ["hass:a", Self.light.key, "hass:b"]
        let first = DeviceStore.assignMatterEndpoints(
            for: keys, existing: try store.matterEndpoints(), using: &generator)
        try store.saveMatterEndpoints(first.new, now: Date())
        #expect(first.new.map(\.endpoint) == [3, 4], "past 65534: the lowest never given, in order")
        let second = DeviceStore.assignMatterEndpoints(
            for: keys, existing: try store.matterEndpoints(), using: &generator)
        #expect(second.new.isEmpty && second.all == first.all)
    }

    @Test func `a key, number or UniqueID kept already is refused and named; nothing of the save is written`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        try store.saveMatterEndpoints([Self.light], now: Date())
        let fresh = MatterEndpointAssignment(key: "hass:new", endpoint: 3, uniqueID: String(repeating: "a", count: 32))
        let refusals: [(MatterEndpointAssignment, String)] = [
            (
                .init(key: Self.light.key, endpoint: 4, uniqueID: String(repeating: "b", count: 32)),
                "'zigbee2mqtt:0x00158d0001a2b3c4' already has endpoint 2"
            ),
            (
                .init(key: "hass:other", endpoint: 2, uniqueID: String(repeating: "b", count: 32)),
                "endpoint 2 is already 'zigbee2mqtt:0x00158d0001a2b3c4''s"
            ),
            (
                .init(key: "hass:other", endpoint: 4, uniqueID: Self.light.uniqueID),
                "the UniqueID of 'hass:other' is already 'zigbee2mqtt:0x00158d0001a2b3c4''s"
            ),
            (fresh, "'hass:new' already has endpoint 3"),  // given twice in one save
            (.init(key: "hass:other", endpoint: 1, uniqueID: String(repeating: "b", count: 32)), "not in 2…65534"),
            (.init(key: "hass:other", endpoint: 4, uniqueID: "ABCDEF"), "'hass:other': its UniqueID is not 32"),
        ]
        for (refused, expected) in refusals {
            #expect {
                try store.saveMatterEndpoints([fresh, refused], now: Date())
            } throws: { error in
                "\(error)".contains(expected)
            }
            #expect(try store.matterEndpoints() == [Self.light], "the whole save is refused: \(expected)")
        }
    }

    @Test(arguments: [
        ("UPDATE matterEndpoint SET endpoint = 70000 WHERE endpoint = 65534", "OnOffPlugInUnit': endpoint is 70000"),
        ("UPDATE matterEndpoint SET endpoint = 1 WHERE endpoint = 65534", "OnOffPlugInUnit': endpoint is 1, not in"),
        ("UPDATE matterEndpoint SET endpoint = 65535 WHERE endpoint = 65534", "endpoint is 65535, not in 2…65534"),
        ("UPDATE matterEndpoint SET endpoint = -2 WHERE endpoint = 2", "0x00158d0001a2b3c4': endpoint is -2"),
        ("UPDATE matterEndpoint SET endpoint = 'two' WHERE endpoint = 2", "endpoint holds a value of another type"),
        ("UPDATE matterEndpoint SET uniqueID = upper(uniqueID) WHERE endpoint = 2", "0x00158d0001a2b3c4': uniqueID"),
        ("UPDATE matterEndpoint SET uniqueID = 'abc' WHERE endpoint = 2", "uniqueID is not 32 lowercase hex"),
        ("UPDATE matterEndpoint SET uniqueID = x'00' WHERE endpoint = 2", "b3c4': uniqueID is not 32"),
        ("UPDATE matterEndpoint SET key = x'00ff' WHERE endpoint = 2", "a row's key is not text"),
    ])
    func `a damaged row is a read error that names its key`(sql: String, expected: String) throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        try store.saveMatterEndpoints([Self.light, Self.plugPart], now: Date())
        let edited = try DatabaseQueue(path: store.path)
        try edited.write { try $0.execute(sql: sql) }
        try edited.close()
        #expect {
            _ = try DeviceStore(directory: path).matterEndpoints()
        } throws: { error in
            "\(error)".contains(expected) && "\(error)".contains("matter reset")
        }
    }

    @Test func `matter reset forgets the assignments; a save of the bridge's state does not`() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DeviceStore(directory: path)
        try store.saveMatterEndpoints([Self.light, Self.plugPart], now: Date())
        var record = MatterBridgeStoreTests.record
        record.resumptions = MatterBridgeStoreTests.resumptions(2)
        try store.saveMatterBridge(record, now: Date())
        #expect(try store.matterEndpoints().count == 2, "serve's saves keep them")

        var reset = record
        reset.fabrics = []
        reset.accessControl = []
        reset.resumptions = []
        try store.resetMatterBridge(reset, now: Date())
        #expect(try store.matterEndpoints().isEmpty)
        #expect(try store.matterBridge() == reset)
        // Numbers start at 2 again, the old ones free for the same keys or others.
        try store.saveMatterEndpoints([.init(key: "hass:a", endpoint: 2, uniqueID: Self.light.uniqueID)], now: Date())
        #expect(try store.matterEndpoints().map(\.key) == ["hass:a"])
    }

    @Test func `a registry of migration v11 opens: its rows as they were, and the endpoint table there`() throws {
        // Back to v11: the registry of v12 (written by the release before v13) without its endpoint table.
        let path = try MatterBridgesStoreTests.copyOfV12Registry()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queue = try DatabaseQueue(path: path + "/traitbridge.sqlite")
        let before = try queue.write { db in
            try db.execute(sql: "DROP TABLE matterEndpoint")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier LIKE 'v12:%'")
            return try Self.contents(db)
        }
        try queue.close()
        #expect(before["matterResumption"]?.count == 3 && before["placement"]?.count == 1)

        let store = try DeviceStore(directory: path)
        let reopened = try DatabaseQueue(path: store.path)
        let after = try reopened.read { db in try Self.contents(db, leavingOut: ["bridge", "targets"]) }
        let added: Set = ["matterEndpoint", "matterBridgeDevice", "grdb_migrations"]
        #expect(after.filter { !added.contains($0.key) } == before.filter { $0.key != "grdb_migrations" })
        #expect(after["grdb_migrations"]?.count == (before["grdb_migrations"]?.count ?? 0) + 3, "v12, v13 and v14")
        #expect(after["matterEndpoint"] == [] && after["matterBridgeDevice"] == [])
        #expect(try store.matterBridge() == MatterBridgesStoreTests.v12Record)
        try store.saveMatterEndpoints([Self.light], now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(try store.matterEndpoints() == [Self.light])
        // The table's own constraints: a second row with the same number or key on the bridge, or the same
        // UniqueID on any bridge, is refused by SQLite too.
        for sql in [
            "INSERT INTO matterEndpoint VALUES (1, 'x', 2, 'ffffffffffffffffffffffffffffffff', 0)",
            "INSERT INTO matterEndpoint VALUES (2, 'x', 3, '\(Self.light.uniqueID)', 0)",
            "INSERT INTO matterEndpoint VALUES (1, '\(Self.light.key)', 3, 'ffffffffffffffffffffffffffffffff', 0)",
        ] {
            #expect(throws: DatabaseError.self) { try reopened.write { try $0.execute(sql: sql) } }
        }
        let assignedAt = try reopened.read { try Double.fetchOne($0, sql: "SELECT assignedAt FROM matterEndpoint") }
        #expect(assignedAt == 1_800_000_000)
        try reopened.close()
    }

    /// Every table's rows as text, sorted, by table name; without the column `leavingOut`.
    static func contents(_ db: Database, leavingOut left: Set<String> = []) throws -> [String: [String]] {
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var contents: [String: [String]] = [:]
        for table in tables {
            let columns = try db.columns(in: table).map(\.name).filter { !left.contains($0) }
            let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
            contents[table] = try GRDB.Row.fetchAll(db, sql: "SELECT \(list) FROM \(table)").map(\.description).sorted()
        }
        return contents
    }
}
