import Foundation
import GRDB
import Logging
import Synchronization
import Testing
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

@testable import TraitBridgeEngine

/// The history: what the engine records (only changes, only when on), what the store keeps (no
/// repeated value, every kind read back, a range, the newest when over the limit), pruning by age
/// (time injected) and by size, a restart, and the request's refusals.
@Suite("History: records, the store, pruning, the request")
struct HistoryTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-history-\(UUID().uuidString)").path
    }

    func discovered(recording: Bool = true) throws -> BridgeState {
        var state = try EngineFixtures.state()
        state.configuration.recordsHistory = recording
        _ = state.brokerConnected(now: t0)
        _ = state.receive("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, at: t0)
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: t0)
        return state
    }

    func value(_ device: DeviceID, _ trait: String, _ attribute: String, _ value: AttributeValue, at: Date)
        -> HistoryRecord
    {
        let address = TraitAddress(deviceTypeKey: "light", traitID: TraitID(parsing: trait)!)
        return HistoryRecord(device: device, address: address, attribute: attribute, at: at, change: .value(value))
    }

    @Test("a changed value is one record, an unchanged one none; connectivity moving is one per trait; off: none")
    func engineRecords() throws {
        var state = try discovered()
        let first = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#, at: t0 + 1)
        let values = first.history.filter { $0.attribute == "onOff" }
        #expect(values.count == 1 && values.first?.change == .value(.bool(true)) && values.first?.at == t0 + 1)
        #expect(first.history.contains { $0.attribute.isEmpty }, "its traits came online")
        let same = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#, at: t0 + 2)
        #expect(same.history.isEmpty, "\(same.history)")
        let offline = state.receive("zigbee2mqtt/Hall light/availability", "offline", at: t0 + 3)
        let moved = offline.history.compactMap { record -> HistoryConnectivity? in
            if case .connectivity(let connectivity) = record.change { return connectivity }
            return nil
        }
        #expect(moved.count == 4 && moved.allSatisfy { $0.state == .offline && $0.reasonCode == "availability" })
        #expect(offline.history.allSatisfy { $0.at == t0 + 3 && $0.device == EngineFixtures.light })

        var off = try discovered(recording: false)
        let effects = off.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#, at: t0 + 1)
        #expect(effects.history.isEmpty && !effects.publications.isEmpty)
        let refused = off.runRequest("history", payload: Array(#"{"device":"Hall light"}"#.utf8), waiter: 1, now: t0)
        let answer = String(decoding: refused.answers.first?.payload ?? [], as: UTF8.self)
        #expect(answer.contains(#""code":"historyOff""#), "\(answer)")
    }

    @Test("notifications: each recorded (an equal second one too), stored, answered as sent, never in `before`")
    func notifications() throws {
        var state = try LiveViewStateTests.ready(at: t0)
        state.configuration.recordsHistory = true
        let motion = state.receive("frigate/front_door/motion", "ON", at: t0 + 1)
        let notes = motion.history.filter { $0.attribute == HistoryRecord.notificationAttribute }
        let note = try #require(notes.first)
        #expect(notes.count == 1 && note.change == .notification(#"{"kind":"motion","state":"start"}"#), "\(notes)")
        #expect(note.address.traitID == .matter("OccupancySensing") && note.at == t0 + 1)
        let asked = state.runRequest(
            "history", payload: Array(#"{"device":"frigate-front_door","attribute":"notification"}"#.utf8), waiter: 1,
            now: t0 + 10)
        #expect(asked.historyQueries.count == 1, "'notification' is an attribute a request may name")

        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try HistoryStore(directory: path)
        var again = note
        again.at = t0 + 2
        #expect(try store.write([note, again]) == 2, "a second press is a press")
        let filter = HistoryFilter(
            device: note.device, trait: nil, attribute: nil, from: t0 + 1.5, to: t0 + 9, limit: 9)
        let page = try store.page(filter)
        #expect(page.records == [again] && page.before.isEmpty, "\(page)")
        let query = HistoryQuery(sink: .waiter(1), filter: filter, name: "Front door")
        let answer = try JSONDocument.parse(BridgeState.historyAnswer(page, query: query)).root.value
        let record = answer["records"]?.arrayElements?.first
        #expect(record?["attribute"] == .string("notification") && record?["value"] == nil)
        #expect(record?["notification"] == ["kind": "motion", "state": "start"], "as sent: \(answer)")
    }

    @Test("a request: checked against the home (device, trait, attribute, times, limit), else one query")
    func requests() throws {
        var state = try discovered()
        func ask(_ payload: String) -> (String, [HistoryQuery]) {
            let effects = state.runRequest("history", payload: Array(payload.utf8), waiter: 7, now: t0 + 10)
            return (String(decoding: effects.answers.first?.payload ?? [], as: UTF8.self), effects.historyQueries)
        }
        let (none, query) = ask(#"{"device":"hall light","trait":"matter.OnOff","limit":5}"#)
        #expect(none.isEmpty)
        let filter = try #require(query.first?.filter)
        #expect(query.count == 1 && query.first?.name == "Hall light" && query.first?.sink == .waiter(7))
        #expect(filter.device == EngineFixtures.light && filter.trait == "matter.OnOff" && filter.limit == 5)
        #expect(filter.to == t0 + 10 && filter.from == t0 + 10 - 86_400, "the last day by default")
        let refusals: [(String, String)] = [
            (#"{"device":"Hal light"}"#, #"did you mean 'Hall light'"#),
            (#"{"device":"Hall light","trait":"matter.OnOf"}"#, "did you mean 'light/matter.OnOff'"),
            (#"{"device":"Hall light","attribute":"onof"}"#, "did you mean 'onOff'"),
            (#"{"device":"Hall light","from":"yesterday"}"#, "RFC 3339"),
            (#"{"device":"Hall light","from":"2027-01-01T00:00:00Z","to":"2026-01-01T00:00:00Z"}"#, "after"),
            (#"{"device":"Hall light","limit":0}"#, "1 to 10000"),
            (#"{"device":"Hall light","limit":1.5}"#, "1 to 10000"),
            (#"{"device":"Hall light","since":"1h"}"#, "unknown field 'since'"),
            (#"[1]"#, "expected {"),
        ]
        for (payload, words) in refusals {
            let (answer, queries) = ask(payload)
            #expect(queries.isEmpty && answer.contains(#""status":"error""#), "\(payload)")
            #expect(answer.contains(words), "\(payload): \(answer)")
        }
        #expect(ask(#"{"device":"Nobody"}"#).0.contains(#""code":"deviceNotFound""#))
        #expect(ask(#"{"device":"Hall light","attribute":"connectivity"}"#).1.count == 1)
    }

    @Test("the store: every kind read back, no repeated change, a range, the newest over the limit, after reopening")
    func store() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let light = EngineFixtures.light
        let kinds: [AttributeValue] = [
            .null, .bool(true), .int(-7), .double(21.5), .string("heat"), .list([.int(1), .string("a")]),
            .structure(["x": .double(0.25)]),
        ]
        var records = kinds.enumerated().map { index, kind in
            value(light, "matter.OnOff", "a\(index)", kind, at: t0 + Double(index))
        }
        records.append(value(light, "matter.OnOff", "a1", .bool(true), at: t0 + 20))  // the same again: not kept
        let offline = HistoryConnectivity(state: .offline, locality: .localPeer, reasonCode: "stale", reason: "quiet")
        let address = TraitAddress(deviceTypeKey: "light", traitID: .matter("OnOff"))
        records.append(
            HistoryRecord(device: light, address: address, attribute: "", at: t0 + 30, change: .connectivity(offline)))
        var again = offline
        again.reason = "another reason, same band"
        records.append(
            HistoryRecord(device: light, address: address, attribute: "", at: t0 + 31, change: .connectivity(again)))
        do {
            let store = try HistoryStore(directory: path)
            #expect(try store.write(records) == kinds.count + 1)
        }
        let store = try HistoryStore(directory: path)
        #expect(
            try store.write([value(light, "matter.OnOff", "a2", .int(-7), at: t0 + 40)]) == 0, "known after reopening")
        let all = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0 + 100, limit: 100))
        #expect(all.records.map(\.change) == kinds.map { .value($0) } + [.connectivity(offline)])
        #expect(!all.truncated && all.before.isEmpty)
        let newest = try store.page(
            HistoryFilter(device: light, trait: "matter.OnOff", attribute: nil, from: t0, to: t0 + 100, limit: 2))
        #expect(newest.truncated && newest.records.map(\.at) == [t0 + 6, t0 + 30])
        let later = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: "a3", from: t0 + 5, to: t0 + 100, limit: 10))
        #expect(
            later.records.isEmpty && later.before.map(\.change) == [.value(.double(21.5))], "what held at the start")
        let connectivity = try store.page(
            HistoryFilter(
                device: light, trait: "light/matter.OnOff", attribute: "connectivity", from: t0, to: t0 + 100, limit: 10
            ))
        #expect(connectivity.records.map(\.at) == [t0 + 30])
    }

    @Test("pruning by age keeps exactly the last days (time injected); by size keeps the newest under the bound")
    func pruning() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try HistoryStore(directory: path)
        let light = EngineFixtures.light
        // One change an hour for twelve days.
        let records = (0..<288).map { hour in
            value(light, "matter.LevelControl", "currentLevel", .int(Int64(hour)), at: t0 + Double(hour) * 3_600)
        }
        try store.write(records)
        let now = t0 + 288 * 3_600
        let pruned = try store.prune(now: now, maxAge: .seconds(10 * 86_400), maxBytes: 1 << 30, chunk: 50)
        #expect(pruned.byAge == 48 && pruned.bySize == 0 && !pruned.isPartial)
        let left = try store.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: now, limit: 1_000))
        #expect(left.records.count == 240 && left.records.first?.at == now - 240 * 3_600)
        #expect(try store.prune(now: now, maxAge: .seconds(10 * 86_400), maxBytes: 1 << 30).byAge == 0, "idempotent")
        // An equal value after its series was pruned is stored again (nothing else would show it).
        let quiet = try HistoryStore(directory: path + "/quiet")
        try quiet.write([value(light, "matter.OnOff", "onOff", .bool(true), at: t0)])
        try quiet.prune(now: t0 + 20 * 86_400, maxAge: .seconds(86_400), maxBytes: 1 << 30)
        #expect(try quiet.write([value(light, "matter.OnOff", "onOff", .bool(true), at: t0 + 20 * 86_400)]) == 1)
        // A series no change names any more (its changes pruned) is deleted by the daily sweep; written again, it
        // is a new series whose first change is stored.
        try quiet.write([value(light, "matter.LevelControl", "currentLevel", .int(5), at: t0 + 20 * 86_400)])
        try quiet.prune(now: t0 + 40 * 86_400, maxAge: .seconds(86_400), maxBytes: 1 << 30)
        #expect(try quiet.removeEmptySeries() == 2 && quiet.removeEmptySeries() == 0)
        #expect(try quiet.write([value(light, "matter.OnOff", "onOff", .bool(true), at: t0 + 40 * 86_400)]) == 1)
        let back = try quiet.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0 + 50 * 86_400, limit: 10))
        #expect(back.records.map(\.attribute) == ["onOff"], "\(back.records)")

        // By size: 60 000 changes (a few bytes each in their blocks), then a bound of 128 KiB.
        let sized = try HistoryStore(directory: path + "/sized")
        for batch in 0..<6 {
            try sized.write(
                (0..<10_000).map { index in
                    let n = batch * 10_000 + index
                    return value(light, "matter.LevelControl", "currentLevel", .int(Int64(n)), at: t0 + Double(n))
                })
        }
        #expect(try sized.usedBytes() > 1 << 17)
        var passes = 0
        var result = try sized.prune(now: t0, maxAge: nil, maxBytes: 1 << 17, chunk: 50, chunks: 2)
        #expect(result.isPartial, "a pass does at most its chunks: \(result)")
        while result.isPartial && passes < 20 {
            passes += 1
            result = try sized.prune(now: t0, maxAge: nil, maxBytes: 1 << 17, chunk: 50, chunks: 2)
        }
        #expect(try sized.usedBytes() <= 1 << 17)
        let kept = try sized.page(
            HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0 + 100_000, limit: 1))
        #expect(kept.records.first?.change == .value(.int(59_999)), "the newest stays")
        #expect(try sized.count() < 60_000 && sized.count() > 1_000)
    }

    @Test("a damaged file and a newer one say what to do")
    func refusedFiles() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 8_192).write(to: URL(fileURLWithPath: path + "/history.sqlite"))
        #expect {
            _ = try HistoryStore(directory: path)
        } throws: { error in
            guard let error = error as? StoreError, case .damaged(let file, _) = error else { return false }
            let text = "\(error)"
            return file.hasSuffix("history.sqlite") && text.hasPrefix("the history ")
                && !text.contains("TraitBridge registry")
                && text.contains("mv \(file) \(file).broken")
        }
        let newer = folder()
        defer { try? FileManager.default.removeItem(atPath: newer) }
        _ = try HistoryStore(directory: newer)
        let queue = try DatabaseQueue(path: newer + "/history.sqlite")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('h9: from the future')")
        }
        #expect {
            _ = try HistoryStore(directory: newer)
        } throws: { error in
            guard let error = error as? StoreError, case .newerSchema(_, let migrations) = error else { return false }
            return migrations == ["h9: from the future"] && "\(error)".hasPrefix("the history ")
        }
    }

    @Test(
        "reachability: drops from all reachable, time with no part and with a part unreachable; first state no drop"
    )
    func availability() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try HistoryStore(directory: path)
        let light = EngineFixtures.light
        let relay = EngineFixtures.relay
        func change(
            _ device: DeviceID, _ type: String, _ state: TraitConnectivityState, at seconds: Double, code: String = "x"
        ) -> HistoryRecord {
            let address = TraitAddress(deviceTypeKey: type, traitID: .matter("OnOff"))
            let connectivity = HistoryConnectivity(state: state, locality: .localPeer, reasonCode: code, reason: "x")
            return HistoryRecord(
                device: device, address: address, attribute: "", at: t0 + seconds, change: .connectivity(connectivity))
        }
        try store.write([
            // The light: offline before the range (no drop in it), online at 100, its local part away 200…500
            // while its cloud part stays, then both away 500…600, back at 600.
            change(light, "light", .offline, at: -50), change(light, "cloud-light", .online, at: -50),
            change(light, "light", .online, at: 100), change(light, "light", .offline, at: 200),
            change(light, "cloud-light", .offline, at: 500), change(light, "light", .online, at: 600),
            change(light, "cloud-light", .online, at: 600),
            // The relay: first heard unknown at 10 (not a drop), online at 20, offline 300…400 and 700 on.
            change(relay, "switch", .unknown, at: 10), change(relay, "switch", .online, at: 20),
            change(relay, "switch", .offline, at: 300), change(relay, "switch", .online, at: 400),
            change(relay, "switch", .offline, at: 700),
            // The bridge restarted at 900: nothing heard yet is no drop and no time away; back online at 950.
            change(relay, "switch", .unknown, at: 900, code: "neverHeard"), change(relay, "switch", .online, at: 950),
        ])
        // A room of both (and a device with no history), and a group of one nothing was heard of.
        let room = AvailabilitySet(
            kind: "room", id: "hall", name: "Hall", devices: [light, relay, EngineFixtures.climate])
        let silent = AvailabilitySet(kind: "group", id: "quiet", name: "Quiet", devices: [EngineFixtures.climate])
        let result = try store.availability(from: t0, to: t0 + 1_000, sets: [room, silent])
        let byDevice = Dictionary(uniqueKeysWithValues: result.devices.map { ($0.device, $0) })
        #expect(byDevice[light] == DeviceAvailability(device: light, offlineSeconds: 100, partlySeconds: 400, drops: 1))
        #expect(byDevice[relay] == DeviceAvailability(device: relay, offlineSeconds: 310, partlySeconds: 0, drops: 2))
        #expect(result.devices.count == 2)
        // The room as one device of three parts: never all away (the cloud part or the relay stayed), partly
        // 0…100, 200…600 and 700…900 (the restart's unknown is no time away), a drop at 200 and at 700.
        #expect(result.sets == [SetAvailability(set: room, offlineSeconds: 0, partlySeconds: 700, drops: 2)])
    }

    @Test("bridge/health says the history's totals: a drop at once, the counts of each batch at most once a minute")
    func health() throws {
        var state = try discovered()
        _ = state.tick(now: t0)
        var totals = HistoryRecorder.Totals()
        totals.stored = 10
        totals.bytes = 4_096
        let first = try #require(state.noteHistory(totals, now: t0).last("traitbridge/bridge/health"))
        #expect(first["history"]?["stored"]?.int64 == 10 && first["history"]?["bytes"]?.int64 == 4_096)
        totals.stored = 20
        #expect(!state.noteHistory(totals, now: t0 + 5).published("traitbridge/bridge/health"), "a batch: not yet")
        totals.dropped = 3
        let dropped = try #require(state.noteHistory(totals, now: t0 + 6).last("traitbridge/bridge/health"))
        #expect(dropped["history"]?["dropped"]?.int64 == 3 && dropped["history"]?["stored"]?.int64 == 20)
        totals.stored = 30
        #expect(!state.noteHistory(totals, now: t0 + 30).published("traitbridge/bridge/health"))
        let later = try #require(state.noteHistory(totals, now: t0 + 67).last("traitbridge/bridge/health"))
        #expect(later["history"]?["stored"]?.int64 == 30, "a minute after the last: said")
        #expect(!state.noteHistory(totals, now: t0 + 200).published("traitbridge/bridge/health"), "unchanged")
    }

    @Test("the recorder: beyond its capacity changes are dropped and counted; a read sees the changes before it")
    func recorder() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = HistoryRecorder(
            store: try HistoryStore(directory: path), logger: Logger(label: "test"), capacity: 100)
        let light = EngineFixtures.light
        recorder.enqueue(
            (0..<150).map { value(light, "matter.LevelControl", "currentLevel", .int(Int64($0)), at: t0 + Double($0)) })
        #expect(recorder.totals.dropped == 50, "\(recorder.totals)")
        let answered = DispatchSemaphore(value: 0)
        let seen = Mutex<Int>(-1)
        recorder.query(HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0 + 1_000, limit: 1_000))
        {
            result in
            seen.withLock { $0 = (try? result.get().records.count) ?? -2 }
            answered.signal()
        }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == 100, "the read waited for the writes enqueued before it")
        #if os(Linux)
            // The writer is named (as `top -H` and `perf` show it) and runs below the relaying.
            let writer = Self.threads().first { $0.name == "tb-history" }
            #expect(writer != nil, "threads: \(Self.threads().map(\.name))")
            #expect(writer.map { $0.policy == 5 || $0.nice == 10 } == true, "\(String(describing: writer))")
        #endif
        recorder.stop()
        #expect(recorder.totals.stored == 100 && recorder.totals.bytes >= 0)
        let late = Mutex<String?>(nil)
        recorder.query(HistoryFilter(device: light, trait: nil, attribute: nil, from: t0, to: t0, limit: 1)) { result in
            late.withLock { $0 = String(describing: result) }
        }
        #expect(
            late.withLock { $0 }?.contains("stopping") == true, "after stop: \(late.withLock { $0 } ?? "no answer")")
    }

    /// This process's threads as `/proc/self/task` gives them: name, scheduling policy, nice value.
    static func threads() -> [(name: String, policy: Int, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard
                let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the name's ")": state is field 3; nice field 19, policy field 41.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, let nice = Int(fields[16]), let policy = Int(fields[38]) else { return nil }
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), policy, nice)
        }
    }
}
