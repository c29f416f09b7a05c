import Testing
import TraitBridgeModel

/// Splitting accessories over bridges: each stays where it was first put while there is room, new
/// ones fill the first bridge with room, the bound on bridges is kept and counted.
@Suite("Bridges: splitting devices over bridges of a capacity")
struct BridgeAssignmentTests {
    static func keys(_ range: ClosedRange<Int>) -> [String] { range.map { "d\($0)" } }

    @Test("150 devices make two bridges: 149 on the first, one on the second")
    func overflow() {
        var assignment = BridgeAssignment(capacity: 149, bridgeLimit: 16, kept: [])
        let split = assignment.assign(Self.keys(1...150))
        #expect(split.bridges.map(\.count) == [149, 1])
        #expect(split.leftOut == 0)
        #expect(Set(split.bridges.flatMap { $0 }) == Set(Self.keys(1...150)))
    }

    @Test("a device stays on its bridge when others come and go; a new one fills the room a removed one left")
    func sticky() {
        var assignment = BridgeAssignment(capacity: 3, bridgeLimit: 4, kept: [])
        let first = assignment.assign(Self.keys(1...5))
        #expect(first.bridges == [Set(["d1", "d2", "d3"]), Set(["d4", "d5"])])
        // d2 goes away, a0 (sorted before every other) comes: d4 and d5 stay on bridge 2.
        let second = assignment.assign(["a0"] + ["d1", "d3", "d4", "d5"])
        #expect(second.bridges == [Set(["a0", "d1", "d3"]), Set(["d4", "d5"])])
        // d2 comes back: bridge 1 is full now, so it goes where there is room.
        let third = assignment.assign(["a0", "d1", "d2", "d3", "d4", "d5"])
        #expect(third.bridges == [Set(["a0", "d1", "d3"]), Set(["d2", "d4", "d5"])])
        // The same offer again: nothing moves.
        #expect(assignment.assign(["a0", "d1", "d2", "d3", "d4", "d5"]) == third)
    }

    @Test("what the bridges kept before a restart decides, the first bridge that kept a key wins")
    func keptAcrossRestarts() {
        var assignment = BridgeAssignment(capacity: 2, bridgeLimit: 3, kept: [["d9"], [], ["d1", "d9"]])
        let split = assignment.assign(Self.keys(1...4) + ["d9"])
        #expect(split.bridges[0].contains("d9") && split.bridges[2].contains("d1"))
        #expect(split.bridges.map(\.count) == [2, 2, 1])
    }

    @Test("after a restart, what each bridge offered last decides, not which bridge first gave an id")
    func restartAfterAMove() {
        // Before: d2 went away, a0 took its room on bridge 1, d2 came back to bridge 2. Bridge 1 still
        // holds d2's old id; what each offered last says where d2 is now.
        var assignment = BridgeAssignment(
            capacity: 3, bridgeLimit: 4, offered: [["a0", "d1", "d3"], ["d2", "d4", "d5"]],
            kept: [["d1", "d2", "d3", "a0"], ["d4", "d5", "d2"]])
        let split = assignment.assign(["a0", "d1", "d2", "d3", "d4", "d5"])
        #expect(split.bridges == [Set(["a0", "d1", "d3"]), Set(["d2", "d4", "d5"])], "nothing moved")
        // Devices arriving one by one after the restart keep their bridges too.
        var arriving = BridgeAssignment(
            capacity: 3, bridgeLimit: 4, offered: [["a0", "d1", "d3"], ["d2", "d4", "d5"]],
            kept: [["d1", "d2", "d3", "a0"], ["d4", "d5", "d2"]])
        _ = arriving.assign(["d2"])
        #expect(arriving.assign(["d2", "d1", "a0", "d3"]).bridges == [Set(["a0", "d1", "d3"]), Set(["d2"])])
    }

    @Test("past the last bridge, accessories are left out and counted; a smaller capacity moves the excess")
    func bounded() {
        var assignment = BridgeAssignment(capacity: 2, bridgeLimit: 2, kept: [])
        let split = assignment.assign(Self.keys(1...7))
        #expect(split.bridges.map(\.count) == [2, 2])
        #expect(split.leftOut == 3)
        var smaller = BridgeAssignment(capacity: 1, bridgeLimit: 4, kept: [["d1", "d2"]])
        let moved = smaller.assign(["d1", "d2"])
        #expect(moved.bridges == [Set(["d1"]), Set(["d2"])])
        var nothing = BridgeAssignment(capacity: 149, bridgeLimit: 16, kept: [])
        #expect(nothing.assign([]) == .init(bridges: [[]], leftOut: 0), "one (empty) bridge")
        #expect(nothing.assign(["d1", "d1"]).bridges == [["d1"]], "a key offered twice counts once")
    }
}
