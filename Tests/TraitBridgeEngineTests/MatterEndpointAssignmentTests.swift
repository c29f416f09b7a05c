import Testing
import TraitBridgeStore
import TraitBridgeTesting

/// The Matter bridge's endpoint allocation, a pure function: known keys keep theirs, new ones follow the
/// highest ever given in the order asked, past 65534 the lowest never given, then none; UniqueIDs are
/// 32 lowercase hex digits, never one already kept or given.
@Suite("Matter endpoint allocation")
struct MatterEndpointAssignmentTests {
    typealias Assignment = MatterEndpointAssignment

    static func isHex32(_ text: String) -> Bool {
        text.count == 32 && text.allSatisfy { "0123456789abcdef".contains($0) }
    }

    static func assign(
        _ keys: [String], _ existing: [Assignment], seed: UInt64 = 1
    ) -> (all: [String: Assignment], new: [Assignment], exhausted: [String]) {
        var generator = SeededGenerator(seed: seed)
        return DeviceStore.assignMatterEndpoints(for: keys, existing: existing, using: &generator)
    }

    /// Kept assignments with made-up UniqueIDs: `n` in hex, padded.
    static func kept(_ pairs: [(String, UInt16)]) -> [Assignment] {
        pairs.map { key, endpoint in
            let hex = String(endpoint, radix: 16)
            return Assignment(
                key: key, endpoint: endpoint, uniqueID: String(repeating: "0", count: 32 - hex.count) + hex)
        }
    }

    @Test func `the first keys get 2, 3, 4 in the order given; a key given twice is assigned once`() {
        let result = Self.assign(["zigbee2mqtt:z", "shelly:m", "zigbee2mqtt:z", "hass:a/light"], [])
        #expect(result.new.map(\.key) == ["zigbee2mqtt:z", "shelly:m", "hass:a/light"])
        #expect(result.new.map(\.endpoint) == [2, 3, 4])
        #expect(result.all.count == 3 && result.exhausted.isEmpty)
        #expect(result.all["hass:a/light"] == result.new[2])
    }

    @Test func `known keys keep their number and UniqueID; new ones follow the highest ever given`() {
        // "gone" left (its row stays); 3…6 were never given or were deleted by hand.
        let existing = Self.kept([("a", 2), ("gone", 9), ("b", 7)])
        let result = Self.assign(["b", "x", "a", "y"], existing)
        #expect(result.all["a"] == existing[0] && result.all["b"] == existing[2], "kept whole, UniqueID too")
        #expect(result.new.map(\.key) == ["x", "y"] && result.new.map(\.endpoint) == [10, 11])
        #expect(result.all["gone"] == nil, "all: the keys asked for")
        #expect(result.all.count == 4)

        // The same keys again with what was saved: nothing new, the same assignments.
        let again = Self.assign(["y", "x", "b", "a"], existing + result.new, seed: 99)
        #expect(again.new.isEmpty && again.all == result.all)
        // "gone" comes back: its own number.
        #expect(Self.assign(["gone"], existing + result.new).all["gone"] == existing[1])
    }

    @Test func `past 65534 the lowest numbers never given are used, then the key is exhausted`() {
        // 2…65533 given except 3 and 10.
        let existing = Self.kept((2...65533).filter { $0 != 3 && $0 != 10 }.map { ("d\($0)", UInt16($0)) })
        let result = Self.assign(["p", "q", "d500", "r", "s", "t", "s"], existing)
        #expect(result.new.map(\.key) == ["p", "q", "r"])
        #expect(result.new.map(\.endpoint) == [65534, 3, 10])
        #expect(result.exhausted == ["s", "t"])
        #expect(result.all["d500"]?.endpoint == 500 && result.all["s"] == nil)
        let uniqueIDs = Set(existing.map(\.uniqueID) + result.new.map(\.uniqueID))
        #expect(uniqueIDs.count == existing.count + 3)

        // Only 65534 given (the rest deleted by hand): the lowest, in order.
        let top = Self.assign(["b", "c"], Self.kept([("a", 65534)]))
        #expect(top.new.map(\.endpoint) == [2, 3] && top.exhausted.isEmpty)
        // All given: every new key exhausted, the known ones kept.
        let full = Self.kept((2...65534).map { ("d\($0)", UInt16($0)) })
        let none = Self.assign(["n", "d2"], full)
        #expect(none.new.isEmpty && none.exhausted == ["n"] && none.all["d2"]?.endpoint == 2)
    }

    @Test func `UniqueIDs are 32 lowercase hex digits, distinct, and never one already kept`() {
        let keys = (0..<2000).map { "device-\($0)" }
        let result = Self.assign(keys, Self.kept([("a", 2)]))
        #expect(result.new.allSatisfy { Self.isHex32($0.uniqueID) })
        #expect(Set(result.new.map(\.uniqueID)).count == 2000)
        #expect(result.new.map(\.endpoint) == Array(3...2002))
        #expect(
            Self.assign(keys, [], seed: 2).new.map(\.uniqueID) != Self.assign(keys, [], seed: 3).new.map(\.uniqueID))

        // A generator that repeats: a UniqueID already kept, or given now, is drawn again.
        var repeating = Replaying(values: [0, 2, 0, 2, 5, 6, 5, 6, 7, 8])
        let existing = Self.kept([("a", 2)])  // UniqueID 000…0002: the words 0 and 2
        let drawn = DeviceStore.assignMatterEndpoints(for: ["x", "y"], existing: existing, using: &repeating)
        #expect(drawn.new.map(\.uniqueID) == ["\(Self.word(5))\(Self.word(6))", "\(Self.word(7))\(Self.word(8))"])
    }

    static func word(_ value: UInt64) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Gives `values`, then counts up from 1000.
    struct Replaying: RandomNumberGenerator {
        var values: [UInt64]
        var counter = 1000 as UInt64

        mutating func next() -> UInt64 {
            if !values.isEmpty { return values.removeFirst() }
            counter += 1
            return counter
        }
    }
}
