import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

@testable import TraitBridgeSources

@Suite("zigbee2mqtt source from recorded payloads")
struct Zigbee2MQTTSourceTests {
    @Test(
        "availability: plain and JSON forms; anything else (and the empty rename leftover) is nil",
        arguments: [
            ("online", true), ("offline", false), (#"{"state":"online"}"#, true), (#"{"state":"offline"}"#, false),
            ("", nil), ("ON", nil), (#"{"state":"maybe"}"#, nil), ("{", nil),
        ] as [(String, Bool?)]
    )
    func availability(payload: String, expected: Bool?) {
        #expect(Zigbee2MQTTSource.availability(Array(payload.utf8)) == expected)
    }

    @Test(
        "the 35-device network maps to the expected device types",
        .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func network() throws {
        let source = try SourceFixtures.zigbee2mqtt()
        let discovery = source.discover(
            try SourceFixtures.corpusJSON("zigbee2mqtt/matterbridge-bridge-devices-35.payload.json"))
        let (devices, problems) = (discovery.devices, discovery.problems)
        #expect(problems.isEmpty)
        #expect(devices.count == 34, "35 entries less the coordinator")
        let byName = Dictionary(uniqueKeysWithValues: devices.map { ($0.friendlyName, $0) })
        let expected: [(String, DeviceTypeID, [String])] = [
            (
                "Climate sensor", .matter("TemperatureSensor"),
                ["powerSource", "temperatureSensor", "humiditySensor", "pressureSensor"]
            ),
            ("Contact sensor", .matter("ContactSensor"), ["powerSource", "contactSensor"]),
            ("Leak sensor", .matter("WaterLeakDetector"), ["powerSource", "waterLeakDetector"]),
            // Its two buttons' presses (`single_l1`, `single_l2`): a secondary Generic Switch.
            ("Aqara Dual relay module T2", .matter("OnOffPlugInUnit"), ["switch_l1", "switch_l2", "genericSwitch"]),
            ("Scenes button", .matter("GenericSwitch"), ["genericSwitch", "powerSource"]),
            ("Window shutter", .matter("WindowCovering"), ["cover"]),
            ("Moes thermo", .matter("Thermostat"), ["climate"]),
            ("Gledopto RGBCTT light I", .matter("ExtendedColorLight"), ["light"]),
            ("Eglo CTT light", .matter("ColorTemperatureLight"), ["light"]),
            ("Gledopto GL-SD-001", .matter("DimmableLight"), ["light"]),
            ("Moes dimmer double", .matter("DimmableLight"), ["light_l1", "light_l2"]),
            ("Presence sensor", .matter("OccupancySensor"), ["occupancySensor", "lightSensor"]),
        ]
        for (name, primary, keys) in expected {
            let device = try #require(byName[name], "\(name)")
            #expect(device.device.primaryType?.typeID == primary, "\(name)")
            #expect(device.device.deviceTypes.map(\.key).sorted() == keys.sorted(), "\(name)")
        }
        #expect(byName["Moes thermo"]?.bindings["child_lock"] == nil, "a thermostat's child lock is not a door lock")
        #expect(byName["Climate sensor"]?.isBatteryPowered == true)
        #expect(byName["Aqara switch T1"]?.isBatteryPowered == false)
    }

    @Test(
        "the entry projection keeps all that discovery reads: the 35-device network maps the same through it",
        .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func projectionKeepsWhatDiscoveryReads() throws {
        let source = try SourceFixtures.zigbee2mqtt()
        let path = try #require(SourceFixtures.corpus) + "/zigbee2mqtt/matterbridge-bridge-devices-35.payload.json"
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var plain = Zigbee2MQTTSource.Discovery()
        var projected = Zigbee2MQTTSource.Discovery(exposesAsText: true)
        _ = try JSONDocument.forEachElement(ofArray: bytes, maxDepth: 128) { index, entry in
            source.discover(entry, at: index, into: &plain)
        }
        var keptBytes = 0
        _ = try JSONDocument.forEachElement(
            ofArray: bytes, maxDepth: 128, projection: Zigbee2MQTTSource.entryProjection
        ) { index, entry in
            keptBytes += entry.value.serializedBytes().count
            source.discover(entry, at: index, into: &projected)
        }
        #expect(plain.devices.count == 34)
        #expect(projected.devices.map(\.device) == plain.devices.map(\.device))
        #expect(projected.devices.map(\.friendlyName) == plain.devices.map(\.friendlyName))
        #expect(projected.devices.map(\.isBatteryPowered) == plain.devices.map(\.isBatteryPowered))
        #expect(projected.devices.map { $0.bindings.keys.sorted() } == plain.devices.map { $0.bindings.keys.sorted() })
        #expect(projected.problems == plain.problems && projected.kept == plain.kept)
        #expect(keptBytes < bytes.count / 2, "the projection is meant to build less than half of each entry")
    }

    @Test(
        "every state message of the capture converts without a problem",
        .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func capture() throws {
        let source = try SourceFixtures.zigbee2mqtt()
        let devices = source.discover(
            try SourceFixtures.corpusJSON("zigbee2mqtt/matterbridge-bridge-devices-35.payload.json")
        ).devices
        let byTopic = Dictionary(uniqueKeysWithValues: devices.map { ("zigbee2mqtt/" + $0.friendlyName, $0) })
        let catalog = try SourceFixtures.catalog()
        var applied = 0
        for message in try SourceFixtures.corpusMessages("zigbee2mqtt/matterbridge-session-702-messages.json") {
            guard let device = byTopic[message.topic], let document = try? JSONDocument.parse(message.payload) else {
                continue
            }
            let (updates, problems) = source.updates(from: document.root, of: device)
            #expect(problems.isEmpty, "\(message.topic): \(problems)")
            var model = device.device
            for update in updates {
                #expect(throws: Never.self) {
                    try model.report(
                        update.value, attribute: update.attribute, at: update.address, catalog: catalog, time: .now)
                }
            }
            applied += updates.count
        }
        #expect(applied > 300)
    }

    @Test(
        "illuminance in lux only: a raw reading without a unit beside illuminance_lux is not read as lux",
        .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func illuminanceUnit() throws {
        let source = try SourceFixtures.zigbee2mqtt()
        let devices = source.discover(
            try SourceFixtures.corpusJSON("zigbee2mqtt/matterbridge-bridge-devices-35.payload.json")
        ).devices
        let byName = Dictionary(uniqueKeysWithValues: devices.map { ($0.friendlyName, $0) })
        // The Aqara GZCGQ11LM (zigbee2mqtt 1.x): "illuminance" raw, no unit; "illuminance_lux" in lx.
        let aqara = try #require(byName["Light sensor"])
        #expect(aqara.bindings["illuminance"] == nil)
        let payload = try JSONDocument.parse(Array(#"{"illuminance":24594,"illuminance_lux":288}"#.utf8))
        let values = source.updates(from: payload.root, of: aqara).updates.map(\.value)
        #expect(values == [.int(24595)], "10000 × log10(288) + 1, whatever order the keys are read in")
        // A sensor whose "illuminance" is in lx binds it.
        let presence = try #require(byName["Presence sensor"])
        let lux = try JSONDocument.parse(Array(#"{"illuminance":288}"#.utf8))
        #expect(source.updates(from: lux.root, of: presence).updates.map(\.value) == [.int(24595)])
    }

    @Test("cover: zigbee2mqtt 100 = open ↔ Matter 0 = open, both ways at the edges")
    func coverInversion() throws {
        let pipeline = ValuePipeline([.invertPercentTo100ths])
        let metadata = AttributeMetadata(format: .uint16, unit: .percent100ths, minimum: 0, maximum: 10000)
        #expect(pipeline.forward(.int(100), fittingTo: metadata) == .int(0))
        #expect(pipeline.forward(.int(0), fittingTo: metadata) == .int(10000))
        #expect(pipeline.forward(.int(25), fittingTo: metadata) == .int(7500))
        #expect(pipeline.inverse(.int(0), integral: true) == .int(100))
        #expect(pipeline.inverse(.int(10000), integral: true) == .int(0))
        #expect(pipeline.inverse(.int(7500), integral: true) == .int(25))
    }

    @Test(
        "transforms round-trip at the ends of their ranges",
        arguments: [
            (ValueTransform.levelFrom254, 0.0, 1.0), (.levelFrom254, 254, 254), (.levelFrom254, 1, 1),
            (.scale(100), -40, -4000), (.scale(100), 125, 12500), (.scale(2), 0, 0), (.scale(2), 100, 200),
            (.kelvinToMireds, 6500, 153.84615384615384), (.kelvinToMireds, 2000, 500),
            (.fahrenheitToCelsius, 32, 0), (.fahrenheitToCelsius, 212, 100),
            (.luxToMatter, 1, 1), (.luxToMatter, 10000, 40001),
        ]
    )
    func transforms(transform: ValueTransform, source: Double, model: Double) throws {
        let forward = try #require(transform.forward(.double(source))?.numericValue)
        #expect(abs(forward - model) < 1e-9)
        let back = try #require(transform.inverse(.double(model))?.numericValue)
        #expect(abs(back - max(source, transform == .levelFrom254 ? 1 : source)) < 1e-6)
    }

    @Test("fitting clamps to the metadata and rounds for integer formats")
    func fitting() {
        let level = AttributeMetadata(format: .uint8, minimum: 1, maximum: 254)
        #expect(ValuePipeline.fit(.double(300), to: level) == .int(254))
        #expect(ValuePipeline.fit(.double(0.4), to: level) == .int(1))
        #expect(ValuePipeline.fit(.double(127.5), to: level) == .int(128))
        #expect(ValuePipeline.fit(.string("x"), to: level) == .string("x"))
    }
}

@Suite("zigbee2mqtt commands")
struct Zigbee2MQTTCommandTests {
    @Test("a feature without access bit 2 refuses writes, naming the key; a write to an unfed attribute says so")
    func readOnly() throws {
        let source = try SourceFixtures.zigbee2mqtt()
        let payload =
            #"[{"ieee_address":"0x01","friendly_name":"Sensor light","definition":{"exposes":[{"type":"light","#
            + #""features":[{"type":"binary","name":"state","property":"state","access":1,"#
            + #""value_on":"ON","value_off":"OFF"}]}]}}]"#
        let device = try #require(source.discover(try JSONDocument.parse(payload).root).devices.first)
        let onOff = TraitAddress(deviceTypeKey: "light", traitID: .matter("OnOff"))
        #expect(
            throws: SourceCommandError.notSupported(
                "zigbee2mqtt does not accept writes of state for this device (access bit 2 not set)")
        ) {
            try source.commandPayload(
                for: [AttributeUpdate(address: onOff, attribute: "onOff", value: .bool(true))], on: device)
        }
        let level = TraitAddress(deviceTypeKey: "light", traitID: .matter("LevelControl"))
        #expect(
            throws: SourceCommandError.notSupported(
                "light/matter.LevelControl.currentLevel is not fed by zigbee2mqtt for this device")
        ) {
            try source.commandPayload(
                for: [AttributeUpdate(address: level, attribute: "currentLevel", value: .int(5))], on: device)
        }
    }

    @Test("devices of one model: their exposes read once, mapped as each alone; bad exposes: its device's problem")
    func exposesReadOncePerModel() throws {
        let source = try SourceFixtures.zigbee2mqtt()
        let bulb =
            #"{"type":"light","features":[{"type":"binary","name":"state","property":"state","access":7,"#
            + #""value_on":"ON","value_off":"OFF","description":"On/off state of this light"},"#
            + #"{"type":"numeric","name":"brightness","property":"brightness","access":7,"#
            + #""value_min":0,"value_max":254}]}"#
        func entry(_ number: Int, exposes: String) -> String {
            #"{"ieee_address":"0x00000000000000\#(number)","friendly_name":"Bulb \#(number)","type":"Router","#
                + #""definition":{"vendor":"V","model":"M","exposes":\#(exposes)}}"#
        }
        let list =
            "[" + (10..<15).map { entry($0, exposes: "[\(bulb)]") }.joined(separator: ",") + ","
            + entry(20, exposes: #"{"not":"a list"}"#) + "]"
        var projected = Zigbee2MQTTSource.Discovery(exposesAsText: true)
        _ = try JSONDocument.forEachElement(
            ofArray: Array(list.utf8), maxDepth: 128, projection: Zigbee2MQTTSource.entryProjection
        ) { index, entry in source.discover(entry, at: index, into: &projected) }
        let whole = source.discover(try JSONDocument.parse(Array(list.utf8)).root)
        #expect(projected.devices.count == 5)
        #expect(projected.devices.map(\.device) == whole.devices.map(\.device))
        let bound = [[String]](repeating: ["brightness", "state"], count: 5)
        #expect(projected.devices.map { $0.bindings.keys.sorted() } == bound)
        #expect(projected.mappedExposes.count == 2, "one text per model, the bad one included")
        #expect(projected.problems == whole.problems)
        let problem = "definition.exposes is object, expected a list; the device is kept as it was"
        #expect(projected.problems.map(\.message) == [problem])
        #expect(projected.kept == whole.kept && projected.kept.count == 6)
    }
}
