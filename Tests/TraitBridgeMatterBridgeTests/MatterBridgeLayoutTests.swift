import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterDevice
import TraitBridgeModel
import TraitBridgeStore
import TraitBridgeTesting

@testable import TraitBridgeMatterBridge

/// The bridge's endpoints over time: numbered from 2 in order, the aggregator's PartsList following
/// them, numbers and UniqueIDs kept across a rename, a device leaving and returning, and a restart
/// from the registry's assignments; only what changed is given again.
@Suite("Matter bridge: endpoint layout")
struct MatterBridgeLayoutTests {
    static let planner = BridgedDevicePlannerTests.planner

    static func light(_ id: String, name: String? = nil, isOn: Bool = true) -> Device {
        BridgedDevicePlannerTests.device(
            id, name: name,
            [("main", "matter.OnOffLight", [BridgedDevicePlannerTests.trait("matter.OnOff", ["onOff": .bool(isOn)])])])
    }

    static func uniqueID(_ endpoint: BridgedEndpoint) -> TLVValueText? {
        if case TLVValue.string(let text)? = endpoint.slots[0x0039]?.values[0x12] { return text }
        return nil
    }
    typealias TLVValueText = String

    @Test("numbered from 2 in order of id; the aggregator lists them; a change gives only that endpoint")
    func numbering() {
        var layout = MatterBridgeLayout(planner: Self.planner, assignments: [])
        var generator = SeededGenerator(seed: 3)
        let first = layout.update(["b": Self.light("b"), "a": Self.light("a")], using: &generator)
        #expect(first.assigned.map(\.key) == ["a", "b"] && first.assigned.map(\.endpoint) == [2, 3])
        #expect(first.changed.map(\.id).sorted() == [1, 2, 3] && first.removed.isEmpty)
        #expect(layout.aggregator.parts == [2, 3])
        #expect(layout.targets[2] == MatterBridgeLayout.Target(device: "a", deviceTypeKey: "main"))
        let ids = first.assigned.map(\.uniqueID)
        #expect(Set(ids).count == 2 && ids.allSatisfy { $0.count == 32 })

        let same = layout.update(["a": Self.light("a")], using: &generator)
        #expect(same.isEmpty && same.assigned.isEmpty, "nothing changed, nothing given")
        let switched = layout.update(["a": Self.light("a", isOn: false)], using: &generator)
        #expect(switched.changed.map(\.id) == [2] && switched.assigned.isEmpty)
    }

    @Test("a rename keeps the number and UniqueID; leaving and returning gets them back; a restart too")
    func stable() throws {
        var layout = MatterBridgeLayout(planner: Self.planner, assignments: [])
        var generator = SeededGenerator(seed: 4)
        let first = layout.update(["a": Self.light("a"), "b": Self.light("b")], using: &generator)
        let endpoint = try #require(first.changed.first { $0.id == 2 })

        let renamed = layout.update(["a": Self.light("a", name: "Porch")], using: &generator)
        let after = try #require(renamed.changed.only)
        #expect(after.id == 2 && Self.uniqueID(after) == Self.uniqueID(endpoint))
        #expect(after.slots[0x0039]?.values[0x05] == .string("Porch"))

        let leaving: [DeviceID: Device?] = ["a": nil]
        let gone = layout.update(leaving, using: &generator)
        #expect(gone.removed == [2] && layout.aggregator.parts == [3] && gone.changed.map(\.id) == [1])
        #expect(layout.deviceIDs == ["b"])
        #expect(layout.targets[2] == nil)
        let added = layout.update(["c": Self.light("c")], using: &generator)
        #expect(added.assigned.map(\.endpoint) == [4], "a number is never given twice")
        let back = layout.update(["a": Self.light("a")], using: &generator)
        #expect(back.assigned.isEmpty && back.changed.map(\.id).sorted() == [1, 2])

        var restarted = MatterBridgeLayout(planner: Self.planner, assignments: first.assigned + added.assigned)
        let again = restarted.update(
            ["a": Self.light("a"), "b": Self.light("b"), "c": Self.light("c")], using: &generator)
        #expect(again.assigned.isEmpty && restarted.aggregator.parts == [2, 3, 4])
        #expect(again.changed.first { $0.id == 2 }.flatMap(Self.uniqueID) == Self.uniqueID(endpoint))
    }

    @Test("a composed device: the top's PartsList names its children; the aggregator lists all of them")
    func composed() {
        var layout = MatterBridgeLayout(planner: Self.planner, assignments: [])
        var generator = SeededGenerator(seed: 5)
        let climate = BridgedDevicePlannerTests.device(
            "climate",
            [
                (
                    "t", "matter.TemperatureSensor",
                    [BridgedDevicePlannerTests.trait("matter.TemperatureMeasurement", ["measuredValue": .int(2000)])]
                ),
                (
                    "h", "matter.HumiditySensor",
                    [
                        BridgedDevicePlannerTests.trait(
                            "matter.RelativeHumidityMeasurement", ["measuredValue": .int(5000)])
                    ]
                ),
            ])
        let change = layout.update(["climate": climate], using: &generator)
        #expect(change.assigned.map(\.key) == ["climate", "climate/t", "climate/h"])
        let top = change.changed.first { $0.id == 2 }
        #expect(top?.parts == [3, 4] && top?.slots[0x0039] != nil)
        #expect(layout.aggregator.parts == [2, 3, 4])
        #expect(layout.targets[3] == MatterBridgeLayout.Target(device: "climate", deviceTypeKey: "t"))
        #expect(layout.targets[2] == nil, "the top serves no device type of its own")
        #expect(layout.owners[2] == "climate" && layout.owners[4] == "climate", "each endpoint's device")
    }

    @Test("a refused request gives the device's endpoints again though nothing changed")
    func resend() {
        var layout = MatterBridgeLayout(planner: Self.planner, assignments: [])
        var generator = SeededGenerator(seed: 6)
        _ = layout.update(["a": Self.light("a")], using: &generator)
        layout.resend("a")
        #expect(layout.update(["a": Self.light("a")], using: &generator).changed.map(\.id) == [2])
        #expect(layout.update(["a": Self.light("a")], using: &generator).isEmpty)
    }
}

/// Device ids written as the tests' literals (valid ids: a trap here is a broken test).
extension DeviceID: ExpressibleByStringLiteral {
    init(stringLiteral value: String) { try! self.init(value) }
}
