import Testing
import TraitBridgeModel
import TraitBridgeStore
import TraitBridgeTesting

@testable import TraitBridgeMatterBridge

/// Devices over several Matter bridges: the first fills to `devicesPerBridge`, the next takes the rest;
/// a device stays where it was (a restart included: the registry's last split wins over the first
/// bridge that numbered it); a value changing moves nothing and costs no split; past the last bridge
/// devices are left out and counted; each bridge numbers its own endpoints.
@Suite("Matter bridge: devices split over bridges")
struct MatterBridgeSplitTests {
    static func ids(_ names: String...) -> [DeviceID: Bool] {
        Dictionary(uniqueKeysWithValues: names.map { (DeviceID(stringLiteral: $0), true) })
    }

    @Test("two per bridge: five devices make three bridges; only membership changes move anything")
    func fills() {
        var split = MatterBridgeSplit(capacity: 2, serving: [:], kept: [])
        let first = split.offer(Self.ids("e", "d", "c", "b", "a"))
        #expect(split.bridgeOf == ["a": 1, "b": 1, "c": 2, "d": 2, "e": 3])
        #expect(first.count == 5 && first["a"]?.from == nil && first["e"]?.to == 3)
        #expect(split.bridges == [1, 2, 3] && split.leftOut == 0)
        #expect(split.offer(["a": true, "c": true]).isEmpty, "offered again: nothing moves")
        // b goes: its room on bridge 1 is the next new device's; nothing else moves.
        let gone = split.offer(["b": false])
        #expect(gone.count == 1 && gone["b"]?.from == 1 && gone["b"]?.to == nil)
        let added = split.offer(["f": true])
        #expect(added.count == 1 && added["f"]?.to == 1 && split.bridgeOf["e"] == 3)
    }

    @Test("a restart puts every device back on the bridge that served it, not the first that numbered it")
    func restart() {
        // Two per bridge: a and b on bridge 1; b went, c took its room; b came back to bridge 2.
        let kept = [
            MatterEndpointAssignment(key: "a", endpoint: 2, uniqueID: String(repeating: "1", count: 32), bridge: 1),
            MatterEndpointAssignment(key: "b", endpoint: 3, uniqueID: String(repeating: "2", count: 32), bridge: 1),
            MatterEndpointAssignment(key: "c", endpoint: 4, uniqueID: String(repeating: "3", count: 32), bridge: 1),
            MatterEndpointAssignment(key: "b", endpoint: 2, uniqueID: String(repeating: "4", count: 32), bridge: 2),
            MatterEndpointAssignment(
                key: "z/part", endpoint: 3, uniqueID: String(repeating: "5", count: 32), bridge: 2),
        ]
        var split = MatterBridgeSplit(capacity: 2, serving: ["a": 1, "c": 1, "b": 2], kept: kept)
        _ = split.offer(Self.ids("a", "b", "c", "z"))
        #expect(split.bridgeOf == ["a": 1, "b": 2, "c": 1, "z": 2], "z's part was numbered by bridge 2")
        // Without the last split, b would go back to bridge 1 (the first that numbered it) and push c out.
        var forgetful = MatterBridgeSplit(capacity: 2, serving: [:], kept: kept)
        _ = forgetful.offer(Self.ids("a", "b", "c"))
        #expect(forgetful.bridgeOf["b"] == 1 && forgetful.bridgeOf["c"] == 2)
    }

    @Test("past 16 bridges devices are left out and counted; out-of-range bridge numbers are ignored")
    func bounded() {
        var split = MatterBridgeSplit(capacity: 1, serving: ["x": 99, "y": 0], kept: [])
        let many = Dictionary(uniqueKeysWithValues: (1...20).map { (DeviceID(stringLiteral: "d\($0)"), true) })
        _ = split.offer(many)
        #expect(split.bridges == Array(1...16) && split.leftOut == 4)
        #expect(split.bridgeOf.count == 16)
    }

    @Test("each bridge numbers its own endpoints from 2; a layout serves only its bridge's assignments")
    func numbersPerBridge() {
        let planner = BridgedDevicePlannerTests.planner
        let kept = [
            MatterEndpointAssignment(key: "a", endpoint: 2, uniqueID: String(repeating: "1", count: 32), bridge: 1),
            MatterEndpointAssignment(key: "b", endpoint: 2, uniqueID: String(repeating: "2", count: 32), bridge: 2),
        ]
        var second = MatterBridgeLayout(planner: planner, assignments: kept, bridge: 2)
        var generator = SeededGenerator(seed: 5)
        let change = second.update(
            ["b": MatterBridgeLayoutTests.light("b"), "c": MatterBridgeLayoutTests.light("c")], using: &generator)
        #expect(change.assigned.map(\.endpoint) == [3] && change.assigned.map(\.bridge) == [2])
        #expect(second.endpoints(of: "b") == [2] && second.serves("c") && !second.serves("a"))
    }
}
