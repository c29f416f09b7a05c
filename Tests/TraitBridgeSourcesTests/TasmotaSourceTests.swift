import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

@Suite("Tasmota source from recorded payloads")
struct TasmotaSourceTests {
    static func source() throws -> TasmotaSource {
        let catalog = try SourceFixtures.catalog()
        return TasmotaSource(table: try TasmotaTable.load(mappingsDirectory: SourceFixtures.repository + "/mappings", catalog: catalog), catalog: catalog)
    }

    static func config(topic: String = "wemos2", fullTopic: String = "%prefix%/%topic%/", relays: [Int] = [1, 1, 0, 0], subtype: Int = 0) -> String {
        #"{"ip":"192.168.2.191","dn":"Wemos","fn":["Left","Right",null,null],"hn":"wemos2","mac":"A4CF12345678","md":"Generic","ofln":"Offline","onln":"Online","#
            + #""state":["OFF","ON","TOGGLE","HOLD"],"sw":"13.3.0","t":"\#(topic)","ft":"\#(fullTopic)","tp":["cmnd","stat","tele"],"#
            + #""rl":\#(relays),"swc":[-1,-1,-1,-1],"btn":[0,0,0,0],"so":{"4":0},"lk":1,"lt_st":\#(subtype),"ver":1}"#
    }

    static func device(_ config: String) throws -> TasmotaDevice {
        try source().device(fromConfig: try JSONDocument.parse(config).root).get()
    }

    func updates(_ device: TasmotaDevice, _ kind: TasmotaSource.MessageKind, _ payload: String) throws -> [String: AttributeValue] {
        let (updates, problems) = try Self.source().updates(kind, payload: Array(payload.utf8), of: device)
        #expect(problems.isEmpty, "\(problems)")
        return Dictionary(updates.map { ("\($0.address).\($0.attribute)", $0.value) }, uniquingKeysWith: { _, new in new })
    }

    @Test("a two-relay config: two plug-in units, POWER1/POWER2 from RESULT and from plain stat topics (boot sequence of the corpus)")
    func twoRelays() throws {
        let device = try Self.device(Self.config())
        #expect(device.device.id.rawValue == "tasmota-a4cf12345678")
        #expect(device.device.deviceTypes.map(\.key) == ["relay1", "relay2"])
        #expect(device.device.deviceTypes.map(\.typeID) == [.matter("OnOffPlugInUnit"), .matter("OnOffPlugInUnit")])
        #expect(device.topic(.telemetry, "LWT") == "tele/wemos2/LWT")
        #expect(try updates(device, .state, #"{"POWER1":"OFF"}"#) == ["relay1/matter.OnOff.onOff": .bool(false)])
        #expect(try updates(device, .power(2), "ON") == ["relay2/matter.OnOff.onOff": .bool(true)])
        #expect(try updates(device, .state, #"{"POWER1":"1","POWER2":"0"}"#) == ["relay1/matter.OnOff.onOff": .bool(true), "relay2/matter.OnOff.onOff": .bool(false)])
        #expect(try updates(device, .power(1), #"{"POWER":"ON"}"#) == ["relay1/matter.OnOff.onOff": .bool(true)], "JSON on the POWER topic (deep-sleep devices)")
    }

    @Test("a custom FullTopic puts the prefix after the topic; LWT uses the device's own words (HA's test config)", .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func customFullTopic() throws {
        let messages = try SourceFixtures.corpusMessages("tasmota/discovery-config-ha-test-nondefault-fulltopic.json")
        let device = try Self.source().device(fromConfig: try JSONDocument.parse(messages[0].payload).root).get()
        #expect(device.topic(.telemetry, "LWT") == messages[1].topic)
        #expect(try Self.source().availability(messages[1].payload, of: device) == true)
        #expect(try Self.source().availability(messages[2].payload, of: device) == false)
        #expect(device.device.deviceTypes.isEmpty, "rl is all 0: no relay")
        #expect(messages[3].payload.isEmpty, "removal by an empty config")
    }

    @Test("a FullTopic without %prefix% makes tele and stat topics the same: the device is still read, nothing traps (a fuzz find)")
    func fullTopicWithoutPrefix() throws {
        let device = try Self.device(Self.config(fullTopic: "eprefix%/%topic%/"))
        let kinds = device.messageKinds
        #expect(kinds["eprefix%/wemos2/LWT"] == .lastWill, "\(kinds)")
        #expect(kinds["eprefix%/wemos2/STATE"] == .state)
        #expect(kinds["eprefix%/wemos2/POWER1"] == .power(1))
        let sameTwice = try Self.device(Self.config(fullTopic: "%topic%/").replacingOccurrences(of: #""tp":["cmnd","stat","tele"]"#, with: #""tp":["x","x","x"]"#))
        #expect(sameTwice.messageKinds["wemos2/LWT"] == .lastWill)
    }

    @Test("a CT light: STATE gives on/off, Dimmer 0…100 → level 1…254, CT mireds; commands go back to cmnd/<t>/…")
    func ctLight() throws {
        let device = try Self.device(Self.config(topic: "bulb", relays: [2, 0, 0, 0], subtype: 2))
        #expect(device.device.deviceTypes.map(\.typeID) == [.matter("ColorTemperatureLight")])
        #expect(try updates(device, .state, #"{"POWER":"ON","Dimmer":50,"CT":300,"Fade":"OFF"}"#) == [
            "light/matter.OnOff.onOff": .bool(true), "light/matter.LevelControl.currentLevel": .int(127), "light/matter.ColorControl.colorTemperatureMireds": .int(300),
        ])
        let writes = [
            AttributeUpdate(address: TraitAddress(deviceTypeKey: "light", traitID: .matter("OnOff")), attribute: "onOff", value: .bool(true)),
            AttributeUpdate(address: TraitAddress(deviceTypeKey: "light", traitID: .matter("LevelControl")), attribute: "currentLevel", value: .int(254)),
            AttributeUpdate(address: TraitAddress(deviceTypeKey: "light", traitID: .matter("ColorControl")), attribute: "colorTemperatureMireds", value: .int(250)),
        ]
        let commands = try Self.source().commands(for: writes, on: device)
        #expect(commands.map { "\($0.topic) \($0.payload)" } == ["cmnd/bulb/POWER1 ON", "cmnd/bulb/Dimmer 100", "cmnd/bulb/CT 250"])
    }

    @Test("sensors from the discovery sample; °F converted; ENERGY on the plug (Sonoff POW of the corpus)", .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func sensorsAndEnergy() throws {
        let source = try Self.source()
        var device = try Self.device(Self.config(topic: "pow1", relays: [1, 0, 0, 0]))
        let sample = #"{"sn":{"Time":"2024-01-01T00:00:00","AM2301":{"Temperature":70.0,"Humidity":40.5},"ENERGY":{"Power":0,"Voltage":0,"Current":0},"TempUnit":"F"},"ver":1}"#
        #expect(source.addSensors(try JSONDocument.parse(sample).root, to: &device).isEmpty)
        #expect(device.device.deviceTypes.map(\.key) == ["relay", "am2301-temperature", "am2301-humidity"])
        #expect(try updates(device, .sensor, #"{"AM2301":{"Temperature":70.0,"Humidity":40.5},"TempUnit":"F"}"#) == [
            "am2301-temperature/matter.TemperatureMeasurement.measuredValue": .int(2111), "am2301-humidity/matter.RelativeHumidityMeasurement.measuredValue": .int(4050),
        ])
        let pow = try SourceFixtures.corpusMessages("tasmota/tele-sensor-energy-sonoff-pow.json")[0]
        let energy = try updates(device, .sensor, String(decoding: pow.payload, as: UTF8.self))
        #expect(energy["relay/matter.ElectricalPowerMeasurement.activePower"] == .int(2_635_000))
        #expect(energy["relay/matter.ElectricalPowerMeasurement.voltage"] == .int(227_000))
        #expect(energy["relay/matter.ElectricalPowerMeasurement.activeCurrent"] == .int(11_661))
    }

    @Test("a RESULT that is not JSON (an OpenTherm rule) is a problem alone; an unknown POWER word too", .enabled(if: SourceFixtures.corpus != nil, "../shared/corpus is not present"))
    func badPayloads() throws {
        let device = try Self.device(Self.config())
        let message = try SourceFixtures.corpusMessages("tasmota/result-non-json-opentherm.json")[0]
        let result = try Self.source().updates(.state, payload: message.payload, of: device)
        #expect(result.updates.isEmpty)
        #expect(result.problems.first?.message.hasPrefix("not a JSON object") == true)
        let power = try Self.source().updates(.power(1), payload: Array("MAYBE".utf8), of: device)
        #expect(power.updates.isEmpty && power.problems.map(\.description) == ["POWER: \"MAYBE\" is not ON, OFF, 1 or 0"])
    }

    @Test("configs missing what a device needs are refused with the key")
    func badConfigs() throws {
        let source = try Self.source()
        for (text, key) in [(#"{"t":"x"}"#, "mac"), (#"{"mac":"A4CF12345678"}"#, "t"), (#"{"mac":"A4CF12345678","t":"x","ft":"%prefix%/%topic%/"}"#, "tp"), ("[1]", "$")] {
            let result = source.device(fromConfig: try JSONDocument.parse(text).root)
            guard case .failure(let problem) = result else { Issue.record("\(text) should be refused"); continue }
            #expect(problem.location == key)
        }
        let shutter = try Self.device(Self.config(relays: [3, 1, 0, 0]))
        #expect(shutter.problems.map(\.description) == ["rl[0]: relay 1 drives a shutter: not supported yet, left out"])
        #expect(shutter.device.deviceTypes.map(\.key) == ["relay"])
    }
}
