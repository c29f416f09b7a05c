import Foundation
import Testing
import TraitBridgeModel
import TraitBridgeStore

@Suite("The registry on disk")
struct DeviceStoreTests {
    func record(_ id: String, name: String, room: String? = nil) throws -> DeviceRecord {
        DeviceRecord(id: try DeviceID(id), name: name, roomName: room, sourceFamily: "zigbee2mqtt", sourceInstance: "default",
                     nativeID: id, description: Array(#"{"types":{}}"#.utf8))
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
