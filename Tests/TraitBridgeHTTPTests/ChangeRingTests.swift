import Testing
import TraitBridgeJSON
import TraitBridgeModel

@testable import TraitBridgeHTTP

/// The change feed's ring as logic: kinds, bounds, resuming, and a client that fell behind.
@Suite("change ring")
struct ChangeRingTests {
    func id(_ n: Int) throws -> DeviceID { try DeviceID("device-\(n)") }

    @Test("added, updated, removed; a device never seen and gone makes no event")
    func kinds() throws {
        var ring = ChangeRing(capacity: 16, known: [try id(1)])
        ring.record(try id(1), summary: ["id": "device-1"])
        ring.record(try id(2), summary: ["id": "device-2"])
        ring.record(try id(2), summary: nil)
        ring.record(try id(3), summary: nil)
        #expect(ring.events.map(\.kind) == [.updated, .added, .removed])
        #expect(ring.events.map(\.sequence) == [1, 2, 3] && ring.newest == 3)
    }

    @Test("bounded: past its capacity the oldest go; a cursor behind them has lost changes (nil: dropped)")
    func fallingBehind() throws {
        var ring = ChangeRing(capacity: 16)
        for n in 0..<40 { ring.record(try id(n), summary: ["id": .string("device-\(n)")]) }
        #expect(ring.events.count == 16 && ring.events.first?.sequence == 25)
        #expect(ring.events(after: 30)?.map(\.sequence) == Array(31...40))
        #expect(ring.events(after: 24)?.count == 16, "just in time: every event after 24 is kept")
        #expect(ring.events(after: 23) == nil, "event 24 is gone: the client is told and dropped")
        #expect(ring.start(after: 30) == (30, false))
        #expect(ring.start(after: 3) == (40, true), "too old to resume: the whole list first")
        #expect(ring.start(after: nil) == (40, true))
        #expect(ring.start(after: 41) == (40, true), "an id from another run of the bridge")
        // A later run numbers from its start time: an id of this run is older than all of it.
        var later = ChangeRing(capacity: 16, first: 1_000_000)
        later.record(try id(1), summary: ["id": "device-1"])
        #expect(later.start(after: 30) == (1_000_000, true))
    }
}
