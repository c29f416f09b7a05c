import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Every file of ../shared/corpus/homeassistant-discovery replayed through the bridge state in its
/// recorded order: the devices it maps to, or the precise reason each config is refused.
/// zigbee2mqtt is off here, so the entities zigbee2mqtt publishes are read as any other (with it
/// on they are skipped: see HomeAssistantBridgeStateTests).
@Suite("Home Assistant discovery corpus", .enabled(if: EngineFixtures.corpus != nil, "../shared/corpus is not present"))
struct HomeAssistantCorpusTests {
    struct Expected: Sendable {
        var id: String
        var name: String
        var types: [String: String]
        var primary: String
        /// `<type key>/<trait>.<attribute>` → value after the whole file.
        var values: [String: AttributeValue] = [:]
        var connectivity: ConnectivityState = .unknown
        var room: String?
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var file: String
        /// Config topics for messages recorded without one (a config read from a program's source).
        var topics: [String?] = []
        var devices: [Expected]
        /// Words each refused config's warning must contain, in order.
        var refusals: [String] = []
        /// Words of the notices (a template left out).
        var notes: [String] = []
        var testDescription: String { file }
    }

    static let rows: [Row] = [
        // `~` at both ends of topics, an availability list: the latest word (not_available) wins.
        .init(file: "ha-discovery-abbrev-base-topic-availability-list.json", devices: [
            .init(id: "ha-5706df", name: "DiscoveryExpansionTest1 Device", types: ["bla": "matter.OnOffPlugInUnit"], primary: "bla",
                  values: ["bla/matter.OnOff.onOff": .bool(true)], connectivity: .offline, room: "default area"),
        ]),
        .init(file: "ha-discovery-binary-availability-encoding.json", devices: [
            .init(id: "ha-5706df", name: "DiscoveryExpansionTest1 Device", types: ["bla": "matter.OnOffPlugInUnit"], primary: "bla", room: "default area"),
        ], notes: ["unpack('b')", "availability on some/base/topic/avail_item1 is not read"]),
        .init(file: "ha-discovery-edge-removal-and-invalid.json", devices: [], refusals: [
            "binary_sensor with no device_class", "not JSON", "'rörkrökare' is not a valid node or object id", "component 'timer' is not supported",
            "binary_sensor with no device_class", "binary_sensor with no device_class", "binary_sensor with no device_class",
            "binary_sensor with no device_class", "binary_sensor with no device_class",
        ]),
        .init(file: "ha-discovery-malformed-availability-string.json", devices: [], refusals: ["availability: expected a list of {\"topic\": …, \"payload_available\": …, \"payload_not_available\": …}, found \"incorrect\""]),
        // Added, then removed by its empty retained config.
        .init(file: "ha-docs-binary-sensor-motion.json", devices: []),
        // The second config removes the humidity component ({"p": "sensor"} alone), the third leaves it out.
        .init(file: "ha-docs-device-discovery-cmps.json", devices: [
            .init(id: "ha-ea334450945afc", name: "Kitchen", types: ["some_unique_component_id1": "matter.TemperatureSensor"], primary: "some_unique_component_id1"),
        ]),
        .init(file: "ha-docs-discovery-migration.json", devices: [], refusals: [
            "component 'device_automation' is not supported", "sensor without device_class",
            "component 'device_automation' is not supported", "sensor without device_class",
        ]),
        // The second config moves the light to a device and drops brightness.
        .init(file: "ha-docs-light-json-schema-abbrev.json", devices: [
            .init(id: "ha-ea334450945afc", name: "Kitchen", types: ["kitchen": "matter.OnOffLight"], primary: "kitchen", connectivity: .online),
        ]),
        .init(file: "ha-docs-sensor-temp-humidity-shared-state.json", devices: [
            .init(id: "ha-bedroom01ae", name: "Bedroom", types: ["sensorBedroomT": "matter.TemperatureSensor", "sensorBedroomH": "matter.HumiditySensor"],
                  primary: "sensorBedroomT",
                  values: ["sensorBedroomT/matter.TemperatureMeasurement.measuredValue": .int(2320), "sensorBedroomH/matter.RelativeHumidityMeasurement.measuredValue": .int(4370)],
                  connectivity: .online),
        ]),
        // Configured again on the same topic without a device: the entity now stands alone.
        .init(file: "ha-docs-switch-irrigation.json", devices: [
            .init(id: "ha-switch-irrigation", name: "garden", types: ["irrigation": "matter.OnOffPlugInUnit"], primary: "irrigation"),
        ]),
        .init(file: "nuki-smartlock3-native-lock-and-door-sensor.json",
              topics: ["homeassistant/lock/2FFF94F4/lock/config", "homeassistant/binary_sensor/2FFF94F4/door_sensor/config"], devices: [
            .init(id: "ha--2fff94f4-", name: "VD", types: ["lock": "matter.DoorLock", "door_sensor": "matter.ContactSensor"], primary: "lock"),
        ], notes: ["value_template '{% if value in"]),
        .init(file: "nukihub-lock-pretty-opt-string.json", topics: ["homeassistant/lock/nuki_3a7d95ec/lock/config"], devices: [
            .init(id: "ha-nuki_3a7d95ec", name: "Puerta casa", types: ["lock": "matter.DoorLock"], primary: "lock"),
        ]),
        .init(file: "tasmota-legacy-light-default-schema-ct.json", devices: [
            .init(id: "ha-light-led1", name: "Led1", types: ["led1": "matter.ColorTemperatureLight"], primary: "led1"),
        ]),
        .init(file: "tasmota-setoption19-switches-and-empty-removals.json", devices: [
            .init(id: "ha-319044", name: "Tasmota2", types: ["319044_RL_2": "matter.OnOffPlugInUnit", "319044_RL_3": "matter.OnOffPlugInUnit"], primary: "319044_RL_2"),
        ]),
        .init(file: "z2m-climate-ts0601-thermostat.json", devices: [
            .init(id: "ha-zigbee2mqtt_0x0017882104a44559", name: "TS0601_thermostat", types: ["climate": "matter.Thermostat"], primary: "climate"),
        ]),
        .init(file: "z2m-cover-endpoint-left.json", devices: [
            .init(id: "ha-zigbee2mqtt_0xa4c138018cf95021", name: "0xa4c138018cf95021", types: ["cover_left": "matter.WindowCovering"], primary: "cover_left"),
        ]),
        .init(file: "z2m-cover-position.json", devices: [
            .init(id: "ha-zigbee2mqtt_0x0017880104e45551", name: "smart vent", types: ["cover": "matter.WindowCovering"], primary: "cover"),
        ]),
        .init(file: "z2m-event-button-action.json", devices: [], refusals: ["component 'event' is not supported"]),
        .init(file: "z2m-fan.json", devices: [
            .init(id: "ha-zigbee2mqtt_0x0017880104e45548", name: "fan", types: ["fan": "matter.Fan"], primary: "fan"),
        ], notes: ["percentage_value_template", "percentage_command_template"]),
        .init(file: "z2m-light-json-schema-brightness.json", devices: [
            .init(id: "ha-zigbee2mqtt_0x0017880104e45553", name: "bulb_enddevice", types: ["light": "matter.DimmableLight"], primary: "light"),
        ]),
        .init(file: "z2m-light-json-schema-group-color.json", devices: [
            .init(id: "ha-zigbee2mqtt_1221051039810110150109113116116_9", name: "HA Discovery Group", types: ["light": "matter.ExtendedColorLight"], primary: "light"),
        ]),
        .init(file: "z2m-sensor-temperature.json", devices: [
            .init(id: "ha-zigbee2mqtt_0x0017880104e45522", name: "weather_sensor", types: ["temperature": "matter.TemperatureSensor"], primary: "temperature"),
        ]),
        .init(file: "z2m-switch-group.json", devices: [
            .init(id: "ha-zigbee2mqtt_1221051039810110150109113116116_9", name: "HA Discovery Group", types: ["switch": "matter.OnOffPlugInUnit"], primary: "switch"),
        ]),
    ]

    @Test("the table covers every file of the corpus folder")
    func everyFileHasARow() throws {
        let folder = try #require(EngineFixtures.corpus) + "/homeassistant-discovery"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
        #expect(Set(files) == Set(Self.rows.map(\.file)))
    }

    @Test("each file replays to the expected devices or refusals", arguments: rows)
    func replay(_ row: Row) throws {
        var state = try EngineFixtures.state(withHomeAssistant: true, withZigbee2MQTT: false)
        _ = state.brokerConnected(now: Date())
        var warnings: [String] = []
        var notices: [String] = []
        for (topic, payload) in try Self.messages(row) {
            let effects = state.handleMessage(topic: topic, payload: payload, now: Date())
            warnings += effects.logs.filter { $0.level == .warning }.map(\.message)
            notices += effects.logs.filter { $0.level == .notice }.map(\.message)
        }
        #expect(warnings.count == row.refusals.count, "\(warnings)")
        for (warning, words) in zip(warnings, row.refusals) { #expect(warning.contains(words), "\(warning)") }
        for words in row.notes { #expect(notices.contains { $0.contains(words) }, "\(notices)") }
        #expect(Set(state.graph.devices.keys.map(\.rawValue)) == Set(row.devices.map(\.id)))
        for expected in row.devices {
            let device = try #require(state.graph.devices[try DeviceID(expected.id)], "\(expected.id)")
            #expect(device.name == expected.name)
            #expect(Dictionary(uniqueKeysWithValues: device.deviceTypes.map { ($0.key, $0.typeID.description) }) == expected.types, "\(expected.id)")
            #expect(device.primaryType?.key == expected.primary, "\(expected.id)")
            for (path, value) in expected.values {
                let parts = path.split(separator: "/", maxSplits: 1)
                let traitAndAttribute = parts[1].split(separator: ".")
                let trait = try #require(TraitID(parsing: traitAndAttribute.dropLast().joined(separator: ".")))
                #expect(device.trait(at: TraitAddress(deviceTypeKey: String(parts[0]), traitID: trait))?.attributes[String(traitAndAttribute.last!)] == value, "\(path)")
            }
            #expect(device.sourceConnectivity.connectivityState == expected.connectivity, "\(expected.id)")
            if let room = expected.room { #expect(state.graph.room(of: device.id)?.name == room) }
        }
    }

    static func messages(_ row: Row) throws -> [(String, [UInt8])] {
        let root = try JSONDocument.parse(try EngineFixtures.corpusBytes("homeassistant-discovery/" + row.file), maxDepth: 128).root
        let list = root.kind == .array ? root.elements : [root]
        return try list.enumerated().map { index, message in
            let topic = try #require(message["topic"]?.string ?? (row.topics.indices.contains(index) ? row.topics[index] : nil), "message \(index) has no topic")
            return (topic, Array((message["payload"]?.string ?? "").utf8))
        }
    }
}
