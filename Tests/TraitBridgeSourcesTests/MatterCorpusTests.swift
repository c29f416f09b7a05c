import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// Every node of ../shared/corpus/matter through the Matter source alone (no server, no engine):
/// the devices, device types, primary type and a value its descriptor says, and what is refused.
///
/// The catalog carries every cluster of Matter 1.4.2, so what these nodes serve becomes traits (carbon
/// monoxide concentration, boolean state configuration, mode select included); a standard cluster
/// the catalog lacks (1.5's camera clusters) is reported (`vendorDefinitions`);
/// a manufacturer's own cluster (Inovelli's 0x122FFC31) is kept as a vendor trait; the node's plumbing (commissioning, diagnostics,
/// OTA, labels, groups) is not presented and not reported; Root Node, OTA Requestor, Aggregator
/// and Bridged Node are structure, not device types; a bridge node with nothing of its own is
/// the source bridge of its bridged devices, not a device.
@Suite("Matter corpus", .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
struct MatterCorpusTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var file: String
        /// device id → "key type" per device type, the primary first.
        var devices: [String: [String]]
        /// device id → its name.
        var names: [String: String]
        /// `<device>/<key>/<trait>.<attribute>` → value.
        var values: [String: AttributeValue]
        /// Each must appear in one reported problem.
        var problems: [String] = []
        /// Bridged devices whose Reachable is false.
        var unreachable: Set<String> = []
        var testDescription: String { file }
    }

    static let rows: [Row] = [
        .init(
            file: "aqara_thermostat_w500.json",
            devices: [
                "matter-100": ["ep1 matter.Thermostat", "ep0 matter.ElectricalSensor", "ep2 matter.HumiditySensor"]
            ],
            names: ["matter-100": "Floor Heating Thermostat"],
            values: ["matter-100/ep1/Thermostat.localTemperature": .int(2118)]),
        .init(
            file: "atios_knx_bridge.json",
            devices: ["matter-62-29": ["ep29 matter.ElectricalSensor"]],
            names: ["matter-62-29": "Electricity Monitor (AC)"],
            values: ["matter-62-29/ep29/ElectricalPowerMeasurement.activePower": .int(0)]),
        .init(
            file: "fritz_bridge.json",
            devices: ["matter-1-42": ["ep40 matter.OnOffPlugInUnit", "ep41 matter.TemperatureSensor"]],
            names: ["matter-1-42": "my_device"],
            values: ["matter-1-42/ep40/OnOff.onOff": .bool(false)], unreachable: ["matter-1-42"]),
        .init(
            file: "heiman_co_sensor.json",
            devices: ["matter-6": ["ep1-2 matter.SmokeCoAlarm", "ep1 matter.PowerSource"]],
            names: ["matter-6": "Smart CO sensor"],
            values: [
                "matter-6/ep1-2/SmokeCoAlarm.coState": .int(0), "matter-6/ep1/PowerSource.batVoltage": .int(3000),
                "matter-6/ep1-2/CarbonMonoxideConcentrationMeasurement.maxMeasuredValue": .int(1000),
            ]),
        .init(
            file: "heiman_smoke_detector.json",
            devices: ["matter-11": ["ep1 matter.SmokeCoAlarm"]], names: ["matter-11": "Smoke sensor"],
            values: ["matter-11/ep1/SmokeCoAlarm.smokeState": .int(0)]),
        .init(
            file: "ikea_air_quality_monitor.json",
            devices: ["matter-37": ["ep1 matter.AirQualitySensor"]],
            names: ["matter-37": "ALPSTUGA air quality monitor"],
            values: [
                "matter-37/ep1/AirQuality.airQuality": .int(1),
                "matter-37/ep1/CarbonDioxideConcentrationMeasurement.measuredValue": .double(394),
            ]),
        .init(
            file: "ikea_klippbok_water_leak.json",
            devices: ["matter-320": ["ep1 matter.WaterLeakDetector", "ep0 matter.PowerSource"]],
            names: ["matter-320": "KLIPPBOK water leak sensor"],
            values: [
                "matter-320/ep1/BooleanState.stateValue": .bool(false),
                "matter-320/ep1/BooleanStateConfiguration.alarmsEnabled": .int(3),
            ]),
        .init(
            file: "inovelli_vtm31.json",
            devices: [
                "matter-197": [
                    "ep1 matter.DimmableLight", "ep2 matter.DimmerSwitch", "ep3 matter.GenericSwitch",
                    "ep4 matter.GenericSwitch", "ep5 matter.GenericSwitch", "ep6 matter.ExtendedColorLight",
                ]
            ],
            names: ["matter-197": "Inovelli"],
            values: [
                "matter-197/ep1/LevelControl.currentLevel": .int(1), "matter-197/ep6/OnOff.onOff": .bool(false),
                // Inovelli's own cluster, kept as a vendor trait with the values the node reports.
                "matter-197/ep1/ClusterFC31.attribute122F0001": .int(20),
                "matter-197/ep1/ClusterFC31.attribute122F000B": .bool(false),
                // Mode Select on each endpoint: a trait of the endpoint's type.
                "matter-197/ep1/ModeSelect.currentMode": .int(4),
                "matter-197/ep6/ModeSelect.description": .string("LED Color"),
            ]),
    ]

    static func node(_ file: String) throws -> MatterNode {
        var problems: [String] = []
        let node = MatterNode.parse(try SourceFixtures.corpusJSON("matter/nodes/" + file), problems: &problems)
        #expect(problems.isEmpty, "\(problems)")
        return try #require(node)
    }

    @Test("every corpus node becomes the devices its descriptor says", arguments: rows)
    func corpusNode(_ row: Row) throws {
        let source = MatterSource(catalog: try SourceFixtures.catalog())
        let node = try Self.node(row.file)
        let mapping = source.map(node)
        #expect(Set(mapping.devices.map(\.device.id.rawValue)) == Set(row.devices.keys))
        let updates = source.updates(node, targets: mapping.targets)
        for (device, reachability) in mapping.devices {
            let types = device.deviceTypes.sorted { a, _ in a.isPrimaryType }.map { "\($0.key) \($0.typeID)" }
            #expect(types == row.devices[device.id.rawValue], "\(device.id)")
            #expect(device.name == row.names[device.id.rawValue])
            #expect(device.isMatterDevice)
            #expect(device.deviceTypes.allSatisfy { $0.traits.allSatisfy { $0.source == device.sources.first } })
            let reachable = reachability.map { source.isReachable(node, endpoint: $0) } ?? true
            #expect(reachable == !row.unreachable.contains(device.id.rawValue))
            for update in updates[device.id] ?? [] {
                let key =
                    "\(device.id)/\(update.address.deviceTypeKey)/\(update.address.traitID.name).\(update.attribute)"
                if let expected = row.values[key] { #expect(update.value == expected, "\(key)") }
            }
            let reported = Set(
                (updates[device.id] ?? []).map {
                    "\(device.id)/\($0.address.deviceTypeKey)/\($0.address.traitID.name).\($0.attribute)"
                })
            for key in row.values.keys where key.hasPrefix(device.id.rawValue + "/") {
                #expect(reported.contains(key), "\(key) was not read")
            }
        }
        for problem in row.problems {
            #expect(mapping.problems.contains { $0.contains(problem) }, "no problem mentions \(problem)")
        }
        // The node's plumbing is not reported: only what a user could miss.
        #expect(!mapping.problems.contains { $0.contains("0x0030") || $0.contains("0x003E") })
    }

    @Test(
        "a manufacturer cluster becomes a read-only vendor trait; a device type the catalog lacks is kept as a vendor type"
    )
    func vendorDefinitions() throws {
        let source = MatterSource(catalog: try SourceFixtures.catalog())
        let inovelli = source.map(try Self.node("inovelli_vtm31.json"))
        let trait = try #require(inovelli.traitDefinitions.first)
        #expect(trait.id.description == "vendor.matter-122f.ClusterFC31")
        #expect(trait.homeAPIsID == "home.matter.122f.clusters.fc31")
        #expect(trait.attributes.count == 38 && trait.attributes.allSatisfy { !$0.metadata.isWritable })
        #expect(trait.attribute(named: "attribute122F000B")?.metadata.format == .bool)
        let device = try #require(inovelli.devices.first?.device)
        #expect(device.deviceType(key: "ep1")?.trait(trait.id) != nil)
        // A node whose light endpoint says a device type no catalog has (0x7777) and serves a
        // cluster id the catalog lacks (0x0557) beside two it has (1.5's Zone Management, 0x0550, and
        // Camera AV Stream Management, 0x0551, from scripts/matter-1.5-cameras.json).
        var problems: [String] = []
        let text =
            #"{"node_id":5,"available":true,"attributes":{"0/29/0":[{"0":22,"1":1}],"0/29/1":[29,40],"#
            + #""1/29/0":[{"0":30583,"1":1}],"1/29/1":[6,29,1360,1361,1367],"1/6/0":true,"#
            + #""1/1361/22":2,"1/1361/26":127,"1/1361/34":180}}"#
        let node = try #require(MatterNode.parse(try JSONDocument.parse(Array(text.utf8)).root, problems: &problems))
        let mapping = source.map(node)
        #expect(mapping.deviceTypeDefinitions.map(\.id.description) == ["vendor.matter.DeviceType7777"])
        let kept = try #require(mapping.devices.first?.device.deviceType(key: "ep1"))
        #expect(kept.typeID.description == "vendor.matter.DeviceType7777" && kept.trait(.matter("OnOff")) != nil)
        #expect(kept.trait(.matter("CameraAvStreamManagement")) != nil, "a 1.5 camera cluster is a trait")
        #expect(kept.trait(.matter("ZoneManagement")) != nil, "so is Zone Management")
        // Its attributes are read by id like any node's: night vision auto, speaker volume, rotation.
        let updates = source.updates(node, targets: mapping.targets).values.flatMap { $0 }
        let settings = Dictionary(
            updates.filter { $0.address.traitID == .matter("CameraAvStreamManagement") }
                .map { ($0.attribute, $0.value) }, uniquingKeysWith: { $1 })
        #expect(settings["nightVision"] == .int(2) && settings["speakerVolumeLevel"] == .int(127), "\(settings)")
        #expect(settings["imageRotation"] == .int(180), "\(settings)")
        #expect(
            mapping.problems.contains { $0.contains("0x7777") && $0.contains("kept as vendor.matter.DeviceType7777") })
        #expect(
            mapping.problems.contains {
                $0.contains("clusters not in the catalog") && $0.contains("0x0557") && !$0.contains("0x0550")
            },
            "\(mapping.problems)")
    }

    @Test("a Matter 1.5 closure node is a Closure with Closure Control, its main state read by id")
    func closure() throws {
        let source = MatterSource(catalog: try SourceFixtures.catalog())
        var problems: [String] = []
        let text =
            #"{"node_id":6,"available":true,"attributes":{"0/29/0":[{"0":22,"1":1}],"0/29/1":[29,40],"#
            + #""1/29/0":[{"0":560,"1":1}],"1/29/1":[3,29,260],"1/260/1":1,"1/260/0":12}}"#
        let node = try #require(MatterNode.parse(try JSONDocument.parse(Array(text.utf8)).root, problems: &problems))
        let mapping = source.map(node)
        let closure = try #require(mapping.devices.first?.device.deviceType(key: "ep1"))
        #expect(closure.typeID == .matter("Closure") && closure.trait(.matter("ClosureControl")) != nil)
        #expect(mapping.deviceTypeDefinitions.isEmpty && mapping.traitDefinitions.isEmpty, "all from the catalog")
        let values = source.updates(node, targets: mapping.targets).values.flatMap { $0 }
        #expect(values.contains { $0.attribute == "mainState" && $0.value == .int(1) }, "Moving: \(values)")
        #expect(values.contains { $0.attribute == "countdownTime" && $0.value == .int(12) }, "\(values)")
    }

    @Test("a redacted or empty UniqueID or serial is never an identity")
    func placeholders() throws {
        let source = MatterSource(catalog: try SourceFixtures.catalog())
        for file in ["aqara_thermostat_w500.json", "fritz_bridge.json", "inovelli_vtm31.json"] {
            let mapping = source.map(try Self.node(file))
            for (device, _) in mapping.devices {
                #expect(device.identity.uniqueID == nil, "\(file)")
                #expect(device.identity.serialNumber == nil, "\(file)")
            }
        }
        #expect(MatterSource.usableID("**REDACTED**") == nil)
        #expect(MatterSource.usableID("****************") == nil)
        #expect(MatterSource.usableID(" redacted ") == nil)
        #expect(MatterSource.usableID("") == nil)
        #expect(MatterSource.usableID("6C2B42B9D78134FE") == "6C2B42B9D78134FE")
        let heiman = source.map(try Self.node("heiman_co_sensor.json"))
        #expect(heiman.devices.first?.device.identity.uniqueID == "6C2B42B9D78134FE")
        #expect(heiman.devices.first?.device.identity.vendorID == 4619)
    }
}
