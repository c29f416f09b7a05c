import Foundation
import GRDB
import Testing
import TraitBridgeModel

@testable import TraitBridgeStore

/// The history's blocks: a batch's changes of a series in one row, split where a block's bounds say,
/// read back in order across blocks; bytes that make no sense never trap; h1's rows converted.
@Suite("History: changes stored in blocks")
struct HistoryBlockTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let light = try! DeviceID("light-1")
    let address = TraitAddress(deviceTypeKey: "light", traitID: .matter("LevelControl"))

    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-blocks-\(UUID().uuidString)").path
    }

    func level(_ level: Int64, at seconds: Double) -> HistoryRecord {
        HistoryRecord(
            device: light, address: address, attribute: "currentLevel", at: t0 + seconds, change: .value(.int(level)))
    }

    func blocks(_ path: String) throws -> [(count: Int, firstAt: Int64, lastAt: Int64)] {
        let queue = try DatabaseQueue(path: path + "/history.sqlite")
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT count, firstAt, lastAt FROM historyBlock ORDER BY id").map {
                ($0[0], $0[1], $0[2])
            }
        }
    }

    @Test("a batch's changes of a series are one block; a minute, 512 changes or a clock stepped back start another")
    func oneBlockABatch() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try HistoryStore(directory: path)
        #expect(try store.write((0..<60).map { level($0, at: Double($0)) }) == 60)
        #expect(try blocks(path).map(\.count) == [60])
        // 61 s from the block's first change: a new block; then 600 changes a millisecond apart: 512 and 88.
        try store.write([level(100, at: 100), level(101, at: 161)])
        try store.write((0..<600).map { level(1_000 + $0, at: 200 + Double($0) / 1_000) })
        #expect(try blocks(path).map(\.count) == [60, 1, 1, 512, 88])
        // The clock stepped back a second: the change is kept, in a block of its own, read in time order.
        try store.write([level(7, at: 300), level(8, at: 299)])
        #expect(try blocks(path).suffix(2).map(\.count) == [1, 1])
        let page = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0 + 298, to: t0 + 301, limit: 10))
        #expect(page.records.map(\.change) == [.value(.int(8)), .value(.int(7))])
        #expect(page.before.map(\.change) == [.value(.int(1_599))], "the last change before the range")
        #expect(try store.count() == 664)
    }

    @Test("the newest over the limit across blocks and series, and what held before, read as written")
    func readAcrossBlocks() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try HistoryStore(directory: path)
        let onOff = TraitAddress(deviceTypeKey: "light", traitID: .matter("OnOff"))
        for batch in 0..<5 {
            try store.write(
                (0..<40).flatMap { index -> [HistoryRecord] in
                    let second = Double(batch * 100 + index * 2)
                    let flag = HistoryRecord(
                        device: light, address: onOff, attribute: "onOff", at: t0 + second + 1,
                        change: .value(.bool(index % 2 == 0)))
                    return [level(Int64(batch * 100 + index), at: second), flag]
                })
        }
        let all = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0 + 1_000, limit: 1_000))
        #expect(all.records.count == 400 && !all.truncated)
        #expect(all.records.map(\.at) == all.records.map(\.at).sorted())
        let newest = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0 + 150, to: t0 + 1_000, limit: 3))
        #expect(newest.truncated && newest.records.map(\.at) == [t0 + 477, t0 + 478, t0 + 479])
        #expect(Set(newest.before.map(\.change)) == [.value(.int(124)), .value(.bool(true))])
    }

    @Test("bytes that stop making sense give the changes before them, at every cut and in noise")
    func damagedBytes() {
        var block = HistoryBlock()
        let connectivity = HistoryConnectivity(state: .offline, locality: .direct, reasonCode: "stale", reason: "quiet")
        let changes: [HistoryRecord.Change] = [
            .value(.null), .value(.bool(true)), .value(.int(-3)), .value(.double(21.5)), .value(.string("héat")),
            .value(.list([.int(1)])), .connectivity(connectivity), .notification(#"{"press":1}"#),
        ]
        for (index, change) in changes.enumerated() { block.append(at: 1_000 + Int64(index), change) }
        let whole = HistoryBlock.decode(block.bytes)
        #expect(whole.map(\.change) == changes && whole.map(\.at) == (0..<8).map { 1_000 + Int64($0) })
        for cut in 0..<block.bytes.count {
            let read = HistoryBlock.decode(Array(block.bytes.prefix(cut)))
            #expect(read.count < changes.count && read.map(\.change) == Array(changes.prefix(read.count)))
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let noise = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            _ = HistoryBlock.decode(noise)  // returns, whatever it reads
        }
        #expect(HistoryBlock.decode([0x02, 0x63]).isEmpty, "an unknown kind ends the block")
        #expect(HistoryBlock.decode(Array(repeating: 0xFF, count: 12)).isEmpty, "a number of eleven bytes")
    }

    @Test("a file of h1 (a row a change) is converted to blocks when opened, every change kept")
    func migration() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: path + "/history.sqlite")
        let t = HistoryStore.milliseconds(t0)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('h1: history');
                    CREATE TABLE historySeries (id INTEGER PRIMARY KEY, device TEXT NOT NULL, trait TEXT NOT NULL,
                      attribute TEXT NOT NULL, UNIQUE (device, trait, attribute));
                    CREATE TABLE history (id INTEGER PRIMARY KEY, series INTEGER NOT NULL, at INTEGER NOT NULL,
                      kind INTEGER NOT NULL, value);
                    CREATE INDEX historyBySeries ON history (series, at);
                    INSERT INTO historySeries VALUES (1, 'light-1', 'light/matter.LevelControl', 'currentLevel');
                    INSERT INTO historySeries VALUES (2, 'light-1', 'light/matter.LevelControl', '');
                    """)
            try db.execute(sql: "INSERT INTO history (series, at, kind, value) VALUES (1, ?, 2, 5)", arguments: [t])
            try db.execute(
                sql: "INSERT INTO history (series, at, kind, value) VALUES (2, ?, 6, ?)",
                arguments: [t + 500, #"{"state":"offline","locality":"direct","reasonCode":"stale","reason":"q"}"#])
            try db.execute(
                sql: "INSERT INTO history (series, at, kind, value) VALUES (1, ?, 3, 21.5)", arguments: [t + 1_000])
        }
        try queue.close()
        #expect(HistoryStore.changesToConvert(directory: path) == 3, "the start says why it waits")
        let store = try HistoryStore(directory: path)
        #expect(HistoryStore.changesToConvert(directory: path) == nil)
        let page = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0 + 10, limit: 10))
        let offline = HistoryConnectivity(state: .offline, locality: .direct, reasonCode: "stale", reason: "q")
        #expect(page.records.map(\.change) == [.value(.int(5)), .connectivity(offline), .value(.double(21.5))])
        #expect(try blocks(path).map(\.count) == [2, 1], "a block a series")
        let same = HistoryRecord(
            device: light, address: address, attribute: "currentLevel", at: t0 + 5, change: .value(.double(21.5)))
        #expect(try store.write([same]) == 0, "the series' last change, read from its converted block")
        let tables = try DatabaseQueue(path: path + "/history.sqlite").read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(!tables.contains("history") && tables.contains("historyBlock"))
    }
}
