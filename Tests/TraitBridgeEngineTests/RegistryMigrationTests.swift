import Foundation
import GRDB
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeStore

/// Registries written before typed records kept each device as its published description. The
/// fixture `registry-v7` is such a file, written by the bridge before migration v8 (eight devices
/// of a 10 000-device scale run, one per shape). Opening it reads every description once into
/// records; nothing reads a description afterwards.
@Suite("The registry: typed records, and the upgrade from descriptions")
struct RegistryMigrationTests {
    static let fixture = GenericSourceTests.fixtures + "/registry-v7/traitbridge.sqlite"

    func copyOfFixture() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-v7-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: folder + "/traitbridge.sqlite")
        return folder
    }

    /// The fixture's descriptions, read as they are on disk (before any migration).
    func legacyDescriptions(in folder: String) throws -> [String: [UInt8]] {
        let queue = try DatabaseQueue(path: folder + "/traitbridge.sqlite")
        defer { try? queue.close() }
        return try queue.read { db in
            var result: [String: [UInt8]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, description FROM device") {
                result[row["id"]] = [UInt8](row["description"] as Data)
            }
            return result
        }
    }

    @Test("a registry of descriptions becomes records; restored devices are described byte for byte as before")
    func upgrade() throws {
        let folder = try copyOfFixture()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try legacyDescriptions(in: folder)
        #expect(before.count == 8 && before.values.allSatisfy { !$0.isEmpty }, "the fixture holds descriptions")

        let rows = try DeviceStore(directory: folder).all()
        #expect(rows.map(\.id.rawValue).sorted() == before.keys.sorted())
        #expect(rows.allSatisfy { $0.problems.isEmpty && !$0.record.types.isEmpty })
        #expect(try legacyDescriptions(in: folder).values.allSatisfy(\.isEmpty), "descriptions are not kept")

        var state = try EngineFixtures.state()
        let logs = state.restore(rows)
        #expect(!logs.contains { $0.level == .warning }, "\(logs.map(\.message))")
        let connected = state.brokerConnected(now: Date())
        for (id, description) in before {
            let topic = "traitbridge/devices/\(id)"
            let published = try #require(connected.publications.last { $0.topic == topic }, "\(topic) not published")
            #expect(String(decoding: published.payload, as: UTF8.self) == String(decoding: description, as: UTF8.self))
        }
    }

    @Test(
        "an old row that does not read (not JSON, ids that do not parse) keeps its device; the others are whole"
    )
    func hostileLegacyRows() throws {
        let folder = try copyOfFixture()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let queue = try DatabaseQueue(path: folder + "/traitbridge.sqlite")
        let odd = #"""
            {"identity":{"vendorId":70000,"productId":-1,"otherDeviceIds":[{"agentId":7},{"deviceId":"x"}]},
             "sources":["no brackets",17],"isMatterDevice":"yes",
             "types":{"a":{"type":"not an id","traits":{}},"b":{"type":"matter.OnOffLight","isPrimaryType":true,
               "traits":{"no-dot":{},"matter.OnOff":{"attributes":[1,2],"commands":{"on":1},"source":"junk"}}}}}
            """#
        try queue.write { db in
            for (id, description) in [("bad-json", "not json {"), ("odd", odd)] {
                try db.execute(
                    sql:
                        "INSERT INTO device (id, name, sourceFamily, sourceInstance, nativeID, description, firstSeen, "
                        + "lastSeen) VALUES (?, ?, 'zigbee2mqtt', 'default', ?, ?, 0, 0)",
                    arguments: [id, id, id, Data(description.utf8)])
            }
        }
        try queue.close()

        let rows = try DeviceStore(directory: folder).all()
        #expect(rows.count == 10)
        let bad = try #require(rows.first { $0.id.rawValue == "bad-json" }?.record)
        #expect(bad.types.isEmpty)
        #expect(bad.sources == [SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "bad-json")])
        let record = try #require(rows.first { $0.id.rawValue == "odd" }?.record)
        #expect(record.identity.vendorID == nil && record.identity.productID == nil)
        #expect(record.identity.otherDeviceIDs == [OtherDeviceID(deviceID: "x")])
        #expect(record.sources.map(\.nativeID) == ["odd"], "unreadable sources fall back to the row's")
        #expect(record.types.map(\.key) == ["b"])
        #expect(record.types.first?.traits.map(\.id.description) == ["matter.OnOff"])
        #expect(record.types.first?.traits.first?.commands == [])

        let (_, problems) = LegacyDescription.record(
            id: try DeviceID("odd"), name: "odd", roomName: nil,
            source: SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "odd"),
            description: Array(odd.utf8))
        #expect(
            problems == [
                "types.a.type is not a device type id; left out", "types.b.traits.no-dot is not a trait id; left out",
            ])

        var state = try EngineFixtures.state()
        _ = state.restore(rows)
        #expect(state.graph.devices.count >= 9, "the eight whole devices and what reads of the others")
    }

    @Test("an old registry's kept SYNC entries are imported once at start, kept as typed records, and come back after")
    func legacyCloudEntries() throws {
        let folder = try copyOfFixture()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let entry =
            #"{"id":"cloud-plug","type":"action.devices.types.OUTLET","traits":["action.devices.traits.OnOff"],"#
            + #""name":{"name":"Garden plug"},"willReportState":true,"roomHint":"Garden","customData":{"hub":"h7"}}"#
        let queue = try DatabaseQueue(path: folder + "/traitbridge.sqlite")
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO cloudDevice (c2cID, entry, importedAt) VALUES ('cloud-plug', ?, 0)",
                arguments: [Data(entry.utf8)])
        }
        try queue.close()
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let client = MQTTClientConfiguration(broker: try BrokerURL("mqtt://127.0.0.1:1"))
        let plug = try DeviceID("c2c-cloud-plug")
        // A start without the Cloud-to-cloud table cannot read them: they are kept for one that can.
        let withoutCloud = Bridge(
            state: try EngineFixtures.state(), client: client, store: try DeviceStore(directory: folder), logger: logger
        )
        #expect(withoutCloud.snapshot.graph.devices[plug] == nil)
        #expect(try DeviceStore(directory: folder).legacyCloudEntries().map(\.c2cID) == ["cloud-plug"])
        for start in ["upgrade", "restart"] {
            let store = try DeviceStore(directory: folder)
            let bridge = Bridge(
                state: try EngineFixtures.state(withCloud: true), client: client, store: store, logger: logger)
            #expect(bridge.snapshot.graph.devices[plug]?.name == "Garden plug", "\(start)")
            #expect(bridge.snapshot.graph.room(of: plug)?.name == "Garden", "\(start)")
            #expect(bridge.snapshot.graph.devices.count == 9, "\(start): the eight devices and the plug")
            #expect(try store.legacyCloudEntries().isEmpty, "\(start)")
            let origin = try #require(try store.cloudOrigins().first)
            #expect(
                origin.c2cID == "cloud-plug" && origin.customData == #"{"hub":"h7"}"# && origin.roomHint == "Garden")
        }
    }

    @Test("a record goes to disk and back whole; an update replaces its parts; a removal takes them")
    func roundTrip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-rec-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hub = SourceReference(family: "homeassistant", instance: "main", nativeID: "plug_1")
        let z2m = SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: "0x01")
        let full = DeviceRecord(
            id: try DeviceID("z2m-0x01"), name: "Plug \"quoted\"", roomName: "Hall",
            identity: DeviceIdentity(
                vendorID: 4447, productID: 65535, uniqueID: "u-1", serialNumber: "S/N 7",
                otherDeviceIDs: [
                    OtherDeviceID(agentID: "zigbee2mqtt", deviceID: "0x01"), OtherDeviceID(deviceID: "mac"),
                ]),
            info: DeviceInfo(manufacturer: "Acme", model: "P1", hardwareVersion: "2", softwareVersion: nil),
            isMatterDevice: true, sources: [z2m, hub],
            types: [
                StoredDeviceType(
                    key: "plug", type: try #require(DeviceTypeID(parsing: "matter.OnOffPlugInUnit")),
                    isPrimaryType: true,
                    traits: [
                        StoredTrait(
                            id: try #require(TraitID(parsing: "matter.OnOff")), source: z2m,
                            attributes: #"{"onOff":{"format":"bool","writable":true,"nullable":false}}"#,
                            commands: ["on", "off", "say \"hi\""]),
                        StoredTrait(id: try #require(TraitID(parsing: "matter.Identify")), source: nil),
                    ]),
                StoredDeviceType(
                    key: "power", type: try #require(DeviceTypeID(parsing: "matter.ElectricalSensor")),
                    isPrimaryType: false,
                    traits: [
                        StoredTrait(
                            id: try #require(TraitID(parsing: "matter.ElectricalPowerMeasurement")), source: hub)
                    ]),
            ])
        let store = try DeviceStore(directory: folder)
        try store.upsert(full, seen: Date())
        #expect(try DeviceStore(directory: folder).all().map(\.record) == [full])

        var smaller = full
        smaller.types.removeLast()
        smaller.sources = [z2m]
        smaller.identity.otherDeviceIDs = []
        try store.upsert(smaller, seen: Date())
        #expect(try DeviceStore(directory: folder).all().map(\.record) == [smaller])

        try store.remove(full.id)
        let queue = try DatabaseQueue(path: folder + "/traitbridge.sqlite")
        defer { try? queue.close() }
        let left = try queue.read { db in
            try ["deviceSource", "deviceOtherID", "deviceType", "deviceTrait"].map { table in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1
            }
        }
        #expect(left == [0, 0, 0, 0])
    }

    @Test("a stored part this version cannot read is left out and named; the device comes back without it")
    func unreadablePart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-rec-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        let effects = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let store = try DeviceStore(directory: folder)
        for change in effects.storeChanges {
            if case .upsert(let record) = change { try store.upsert(record, seen: Date()) }
        }
        let queue = try DatabaseQueue(path: folder + "/traitbridge.sqlite")
        try queue.write { db in
            try db.execute(
                sql: "UPDATE deviceTrait SET trait = 'no-dot', commands = 'not json' "
                    + "WHERE deviceID = ? AND typePosition = 0 AND position = 0",
                arguments: [EngineFixtures.light.rawValue])
        }
        try queue.close()
        let rows = try store.all()
        let light = try #require(rows.first { $0.id == EngineFixtures.light })
        #expect(light.problems == ["trait 'no-dot' is not a trait id; left out"])
        var restarted = try EngineFixtures.state()
        let logs = restarted.restore(rows)
        #expect(restarted.graph.devices.count == 3)
        #expect(logs.contains { $0.message == "registry: trait 'no-dot' is not a trait id; left out" })
    }

    @Test("several processes' worth of opens of one new registry at once: every one migrates or waits, none fails")
    func concurrentOpens() async throws {
        var failures: [String] = []
        for round in 0..<10 {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-race-\(UUID().uuidString)")
                .path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let errors = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        do {
                            let store = try DeviceStore(directory: folder)
                            return try store.all().isEmpty ? nil : "a new registry has rows"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: [String]()) { if let error = $1 { $0.append(error) } }
            }
            failures += errors.map { "round \(round): \($0)" }
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }
}
