import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeModel
import TraitBridgeTesting

@testable import TraitBridgeMatterBridge

/// The bridge's node at 1 000 devices (half lights, half composed climate sensors: 2 000 endpoints
/// and the aggregator): every attribute of every endpoint reads back through the node's data model
/// — the values a controller's wildcard read is built from — with each device's name, its UniqueID
/// and the PartsLists naming every endpoint. (The same node read over the wire by the CHIP SDK's
/// controller: `scripts/bench-matter-latency.py --devices 1000 --scope all`, BENCHMARKS.md.)
@Suite("Matter bridge: 1 000 devices read back")
struct MatterBridgeScaleTests {
    static func device(_ index: Int) -> Device {
        let id = "scale-\(index)"
        let name = "Device \(index)"
        if index.isMultiple(of: 2) {
            return BridgedDevicePlannerTests.device(
                id, name: name,
                [
                    (
                        "main", "matter.DimmableLight",
                        [
                            BridgedDevicePlannerTests.trait("matter.OnOff", ["onOff": .bool(index % 4 == 0)]),
                            BridgedDevicePlannerTests.trait(
                                "matter.LevelControl", ["currentLevel": .int(Int64(index % 254))]),
                        ]
                    )
                ])
        }
        return BridgedDevicePlannerTests.device(
            id, name: name,
            [
                (
                    "temperature", "matter.TemperatureSensor",
                    [
                        BridgedDevicePlannerTests.trait(
                            "matter.TemperatureMeasurement", ["measuredValue": .int(Int64(index))])
                    ]
                ),
                (
                    "humidity", "matter.HumiditySensor",
                    [BridgedDevicePlannerTests.trait("matter.RelativeHumidityMeasurement", ["measuredValue": .int(50)])]
                ),
            ])
    }

    @Test("every attribute of every endpoint of 1 000 devices reads back; names, UniqueIDs and PartsLists whole")
    func everyEndpoint() throws {
        var devices: [DeviceID: Device?] = [:]
        for index in 0..<1_000 { devices[try DeviceID("scale-\(index)")] = Self.device(index) }
        var layout = MatterBridgeLayout(planner: BridgedDevicePlannerTests.planner, assignments: [], bridge: 1)
        var generator = SeededGenerator(seed: 11)
        let change = layout.update(devices, using: &generator)
        #expect(change.assigned.count == 2_000 && change.exhausted.isEmpty, "500 lights, 500 × (top + 2 parts)")
        let model = NodeDataModel(root: RootEndpoint(), endpoints: layout.endpoints, using: &generator)
        let everything = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: false)

        var failures: [String] = []
        var names: [String: String] = [:]
        var uniqueIDs = Set<String>()
        var read = 0
        for endpoint in model.layout.endpoints where endpoint.id != RootEndpoint.endpoint {
            for cluster in endpoint.clusters {
                for attribute in cluster.attributes {
                    let path = ConcreteAttributePath(endpoint: endpoint.id, cluster: cluster.id, attribute: attribute)
                    read += 1
                    switch model.read(path, fabric: everything) {
                    case .failure(let status): failures.append("\(endpoint.id)/\(cluster.id)/\(attribute): \(status)")
                    case .success(.string(let text)) where cluster.id == 0x39 && attribute == 0x05:
                        names["\(endpoint.id)"] = text
                    case .success(.string(let text)) where cluster.id == 0x39 && attribute == 0x12:
                        uniqueIDs.insert(text)
                    case .success: break
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) attributes unreadable, first: \(failures.prefix(5))")
        #expect(read > 20_000, "every attribute of 2 001 endpoints: \(read)")
        #expect(names.count == 1_000 && Set(names.values).count == 1_000, "one NodeLabel per device, its name")
        #expect(uniqueIDs.count == 1_000, "one UniqueID per device (none on parts)")
        let descriptor = ConcreteAttributePath(endpoint: 1, cluster: 0x1D, attribute: 0x03)
        guard case .success(.array(let parts)) = model.read(descriptor, fabric: everything) else {
            Issue.record("the aggregator's PartsList does not read")
            return
        }
        #expect(parts.count == 2_000, "the aggregator names every bridged endpoint, parts included")
        let rootParts = ConcreteAttributePath(endpoint: 0, cluster: 0x1D, attribute: 0x03)
        guard case .success(.array(let all)) = model.read(rootParts, fabric: everything) else {
            Issue.record("the root's PartsList does not read")
            return
        }
        #expect(all.count == 2_001, "the root names the aggregator and every bridged endpoint")
    }
}
