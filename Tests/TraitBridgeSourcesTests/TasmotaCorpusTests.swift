import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// Every file of ../shared/corpus/tasmota replayed through the source, with the outcome we expect.
///
/// Most files are recordings of devices whose discovery config is not in the file; the row gives
/// the config that device would announce (its topic, FullTopic, relays, light subtype) and the
/// first SENSOR payload of the file serves as its sensors sample, as Tasmota sends one. A device
/// without native discovery is not picked up by the bridge (describe it in mappings/generic).
@Suite("Tasmota corpus", .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
struct TasmotaCorpusTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var file: String
        /// `nil`: the file carries its own discovery config.
        var topic: String?
        var fullTopic = "%prefix%/%topic%/"
        var relays: [Int] = [1]
        var subtype = 0
        /// `<type key>/<trait>.<attribute>` → value, after every message.
        var final: [String: AttributeValue]
        /// Messages on the device's topics that the source refuses (each a problem of its own).
        var problems = 0
        var online: Bool?
        var testDescription: String { file }
    }

    static let rows: [Row] = [
        .init(file: "boot-sequence-2relay-wemos2.json", topic: "wemos2", relays: [1, 1],
              final: ["relay1/matter.OnOff.onOff": .bool(false), "relay2/matter.OnOff.onOff": .bool(true)], online: true),
        .init(file: "deepsleep-sequence-json-on-power-topic.json", topic: "demo-sensor", final: ["relay/matter.OnOff.onOff": .bool(false)], online: true),
        // STATE without POWER, an ANALOG reading with no binding, and an LWT on another device's topic.
        .init(file: "deepsleep-wake-info3-state-offline.json", topic: "tasmota", final: [:]),
        .init(file: "discovery-config-generic-13.3.json", final: [:]),
        .init(file: "discovery-config-ha-test-nondefault-fulltopic.json", final: [:], online: false),
        .init(file: "result-non-json-opentherm.json", topic: "boiler", final: [:], problems: 2),
        .init(file: "result-power-numeric-strings-rule.json", topic: "wemos-4", relays: [1, 1],
              final: ["relay1/matter.OnOff.onOff": .bool(false), "relay2/matter.OnOff.onOff": .bool(false)]),
        // tele/…/RESULT (a serial rule's input) is not a state topic; stat RESULT and POWER are.
        .init(file: "result-serial-rule-power.json", topic: "mqttTopic", final: ["relay/matter.OnOff.onOff": .bool(false)]),
        .init(file: "tele-sensor-ds18b20.json", topic: "ds1820", relays: [],
              final: ["ds18b20-temperature/matter.TemperatureMeasurement.measuredValue": .int(2090)]),
        .init(file: "tele-sensor-energy-sonoff-pow.json", topic: "pow1",
              final: ["relay/matter.ElectricalPowerMeasurement.activePower": .int(2_635_000), "relay/matter.ElectricalPowerMeasurement.voltage": .int(227_000),
                      "relay/matter.ElectricalPowerMeasurement.activeCurrent": .int(11_661)]),
        // CarbonDioxide has no device type TraitBridge can build from Tasmota alone (Matter puts it on an Air Quality Sensor).
        .init(file: "tele-sensor-scd40-co2.json", topic: "tasmota", relays: [],
              final: ["scd40-temperature/matter.TemperatureMeasurement.measuredValue": .int(2380), "scd40-humidity/matter.RelativeHumidityMeasurement.measuredValue": .int(6110)]),
        .init(file: "tele-state-2018-no-uptimesec.json", topic: "sound1", final: ["relay/matter.OnOff.onOff": .bool(false)]),
        .init(file: "tele-state-single-relay.json", topic: "tasmota", final: ["relay/matter.OnOff.onOff": .bool(false)]),
        .init(file: "teleinfo-energy-custom-fulltopic.json", topic: "denky_D6C0C0", fullTopic: "emoncms/ch2i/factory/%topic%/%prefix%/",
              final: ["relay/matter.ElectricalPowerMeasurement.activePower": .int(170_000), "relay/matter.ElectricalPowerMeasurement.activeCurrent": .int(1000),
                      "esp32-temperature/matter.TemperatureMeasurement.measuredValue": .int(3670)]),
        .init(file: "tuyamcu-dimmer-state-power-result.json", topic: "GD-30W", relays: [2, 1, 1, 1, 1], subtype: 1,
              final: ["light/matter.OnOff.onOff": .bool(true), "light/matter.LevelControl.currentLevel": .int(254), "relay2/matter.OnOff.onOff": .bool(false),
                      "relay3/matter.OnOff.onOff": .bool(true), "relay4/matter.OnOff.onOff": .bool(false), "relay5/matter.OnOff.onOff": .bool(true)]),
        // Tasmota's own Zigbee bridge (ZbReceived) is not mapped: run zigbee2mqtt for Zigbee devices.
        .init(file: "zigbee-bridge-zbreceived-ikea.json", topic: "%topic%", relays: [], final: [:]),
    ]

    @Test("each file replays to the expected values", arguments: rows)
    func replay(_ row: Row) throws {
        let source = try TasmotaSourceTests.source()
        let messages = try SourceFixtures.corpusMessages("tasmota/" + row.file)
        var device: TasmotaDevice
        var rest = messages
        if let topic = row.topic {
            device = try TasmotaSourceTests.device(TasmotaSourceTests.config(topic: topic, fullTopic: row.fullTopic, relays: row.relays, subtype: row.subtype))
            if let sample = messages.first(where: { $0.topic == device.topic(.telemetry, "SENSOR") }) {
                let wrapped = #"{"sn":"# + String(decoding: sample.payload, as: UTF8.self) + "}"
                _ = source.addSensors(try JSONDocument.parse(wrapped).root, to: &device)
            }
        } else {
            device = try source.device(fromConfig: try JSONDocument.parse(messages[0].payload).root).get()
            rest = Array(messages.dropFirst())
        }
        var values: [String: AttributeValue] = [:]
        var problems = 0
        var online: Bool?
        for message in rest {
            guard let kind = device.messageKinds[message.topic], !message.payload.isEmpty else { continue }
            if kind == .lastWill {
                online = source.availability(message.payload, of: device)
                continue
            }
            let result = source.updates(kind, payload: message.payload, of: device)
            for update in result.updates { values["\(update.address).\(update.attribute)"] = update.value }
            problems += result.problems.count
        }
        #expect(values == row.final)
        #expect(problems == row.problems)
        #expect(online == row.online)
    }

    @Test("every file of the folder has a row")
    func completeness() throws {
        let corpus = try #require(SourceFixtures.corpus)
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus + "/tasmota") {
            #expect(Self.rows.contains { $0.file == name }, "no expected outcome for tasmota/\(name)")
        }
    }
}
