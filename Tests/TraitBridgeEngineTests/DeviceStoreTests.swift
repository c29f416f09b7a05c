import Foundation
import Testing
import TraitBridgeModel
import TraitBridgeStore
import GRDB

@Suite("The registry on disk")
struct DeviceStoreTests {
    func record(_ id: String, name: String, room: String? = nil) throws -> DeviceRecord {
        DeviceRecord(id: try DeviceID(id), name: name, roomName: room,
                     sources: [SourceReference(family: "zigbee2mqtt", instance: "default", nativeID: id)])
    }

    @Test("rows survive reopening; an update keeps firstSeen and moves lastSeen; removal deletes")
    func roundTrip() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let store = try DeviceStore(directory: folder)
            try store.apply(upserts: [try record("a", name: "A"), try record("b", name: "B")], removals: [], seen: t0)
            try store.upsert(try record("a", name: "A renamed", room: "Kitchen"), seen: t0 + 60)
            try store.remove(try DeviceID("b"))
        }
        let rows = try DeviceStore(directory: folder).all()
        #expect(rows.map(\.id.rawValue) == ["a"])
        #expect(rows.first?.record.name == "A renamed")
        #expect(rows.first?.record.roomName == "Kitchen")
        #expect(rows.first?.firstSeen == t0)
        #expect(rows.first?.lastSeen == t0 + 60)
    }

    @Test("user placements survive reopening, apart from the device rows; an empty placement deletes its row")
    func placements() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-store-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let a = try DeviceID("a")
        let b = try DeviceID("b")
        do {
            let store = try DeviceStore(directory: folder)
            try store.upsert(try record("a", name: "source name"), seen: Date())
            try store.savePlacements([(a, UserPlacement(name: "Stair switch", room: "Hallway")), (b, UserPlacement(room: "Attic"))])
            try store.upsert(try record("a", name: "source renamed it"), seen: Date())
            try store.savePlacements([(b, UserPlacement())])
        }
        let store = try DeviceStore(directory: folder)
        #expect(try store.placements() == [a: UserPlacement(name: "Stair switch", room: "Hallway")])
        #expect(try store.all().first?.record.name == "source renamed it", "the record is the source's; the placement is kept apart")
    }

    @Test("a folder that cannot be created is an error that names the path")
    func unwritable() {
        #expect(throws: StoreError.self) { try DeviceStore(directory: "/proc/traitbridge-cannot-be-here") }
        do {
            _ = try DeviceStore(directory: "/proc/traitbridge-cannot-be-here")
        } catch {
            #expect(error.description.hasPrefix("cannot open the registry /proc/traitbridge-cannot-be-here/traitbridge.sqlite"))
        }
    }
}

@Suite("The registry on disk: damaged, newer, one transaction")
struct DeviceStoreSafetyTests {
    func folder() -> String { FileManager.default.temporaryDirectory.appendingPathComponent("tb-store-\(UUID().uuidString)").path }

    @Test("a file that is not SQLite is refused with what to do; nothing is overwritten")
    func damaged() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let garbage = Data(repeating: 0x41, count: 8_192)
        try garbage.write(to: URL(fileURLWithPath: folder + "/traitbridge.sqlite"))
        #expect {
            _ = try DeviceStore(directory: folder)
        } throws: { error in
            let text = "\(error)"
            return text.contains("\(folder)/traitbridge.sqlite is not a readable TraitBridge registry")
                && text.contains("mv \(folder)/traitbridge.sqlite \(folder)/traitbridge.sqlite.broken")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/traitbridge.sqlite")) == garbage)
    }

    @Test("a registry written by a newer version (a migration this one does not know) is refused, naming it")
    func newer() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try DeviceStore(directory: folder)
        let queue = try DatabaseQueue(path: folder + "/traitbridge.sqlite")
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: from the future')") }
        try queue.close()
        #expect {
            _ = try DeviceStore(directory: folder)
        } throws: { error in
            "\(error)".contains("was written by a newer TraitBridge (it has v9: from the future") && "\(error)".contains("run that version")
        }
    }

    @Test("one batch writes devices, removals, cloud entries and placements together")
    func batch() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try DeviceStore(directory: folder)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try store.apply(upserts: [try DeviceStoreTests().record("gone", name: "Gone")], removals: [], seen: t0)
        var batch = DeviceStore.Batch()
        batch.upserts = [try DeviceStoreTests().record("a", name: "A")]
        batch.removals = [try DeviceID("gone")]
        let plug = try DeviceStoreTests().record("c2c-c1", name: "Plug")
        let origin = CloudOriginRecord(c2cID: "c1", deviceID: plug.id, name: "Plug", type: "OUTLET", traits: [])
        batch.cloudDevices = [(origin, plug)]
        batch.placements = [(try DeviceID("a"), UserPlacement(name: "Lamp", room: "Hall"))]
        try store.commit(batch, at: t0)
        #expect(try store.all().map(\.id.rawValue) == ["a", "c2c-c1"])
        #expect(try store.cloudOrigins().map(\.c2cID) == ["c1"])
        #expect(try store.placements()[try DeviceID("a")] == UserPlacement(name: "Lamp", room: "Hall"))
    }

    /// The bridge commits several messages' rows at once: the order of adds and removals must hold.
    @Test("in one batch, a row added then removed is gone; removed then added again is there")
    func batchOrder() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try DeviceStore(directory: folder)
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        try store.apply(upserts: [try DeviceStoreTests().record("back", name: "Old")], removals: [], seen: t0)
        var batch = DeviceStore.Batch()
        batch.upsert(try DeviceStoreTests().record("gone", name: "Gone"))
        batch.remove(try DeviceID("back"))
        batch.upsert(try DeviceStoreTests().record("kept", name: "Kept"))
        batch.remove(try DeviceID("gone"))
        batch.upsert(try DeviceStoreTests().record("back", name: "New"))
        try store.commit(batch, at: t0)
        #expect(try store.all().map(\.id.rawValue) == ["back", "kept"])
        #expect(try store.all().first?.record.name == "New")
    }
}
