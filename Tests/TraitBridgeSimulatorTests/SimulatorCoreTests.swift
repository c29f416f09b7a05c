import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeSimulator
import TraitBridgeTesting

/// The simulated devices answer as the real ones do, without a broker.
@Suite("Simulator: protocol answers")
struct SimulatorCoreTests {
    static let scenarioText = """
        {
          "zigbee2mqtt": { "devicesFile": "devices.json" },
          "devices": [
            { "name": "Lamp", "protocol": "zigbee2mqtt", "state": { "state": "OFF", "brightness": 10 } },
            { "name": "Plug", "protocol": "tasmota", "id": "A4CF12000001", "topic": "plug", "relays": [1, 1], "state": { "POWER1": "OFF", "POWER2": "ON" },
              "sensors": { "ENERGY": { "Power": 10 } } },
            { "name": "Blinds", "protocol": "shelly-gen1", "id": "shellyswitch25-485519032A7E", "model": "SHSW-25", "state": { "roller/0/pos": 100, "relay/1": "off" } },
            { "name": "Switch", "protocol": "shelly-gen2", "id": "shellyplus1pm-4417939a5610", "topic": "garage/switch", "state": { "switch:0": { "id": 0, "output": false } } },
            { "name": "Sensor", "protocol": "shelly-gen2", "id": "shellyplusht-08b61fce63c4", "state": { "temperature:0": { "id": 0, "tC": 19.9 } } }
          ],
          "drift": [ { "device": "Sensor", "key": "temperature:0.tC", "step": 0.5, "min": 19, "max": 20.5 } ],
          "faults": [ { "afterSeconds": 1, "fault": "flap", "device": "Lamp", "times": 2, "intervalSeconds": 0.5 }, { "afterSeconds": 0.2, "fault": "dropBridge" } ]
        }
        """

    static let devicesFile: JSONValue = [
        ["friendly_name": "Coordinator"], ["friendly_name": "Lamp", "ieee_address": "0x1"],
    ]

    func core() throws -> SimulatorCore {
        let scenario = try Scenario.decode(file: "home.json", bytes: Array(Self.scenarioText.utf8)) { _ in
            Self.devicesFile
        }
        return SimulatorCore(scenario: scenario)
    }

    func json(_ message: SimulatorCore.Message?) throws -> JSON {
        try JSONDocument.parse(try #require(message).payload).root
    }

    @Test(
        "start: zigbee2mqtt bridge and devices, Tasmota discovery and LWT, Shelly announce, online, Gen2 full status"
    )
    func start() throws {
        var core = try core()
        let messages = core.startMessages()
        let topics = Set(messages.map(\.topic))
        for topic in [
            "zigbee2mqtt/bridge/state", "zigbee2mqtt/bridge/devices", "zigbee2mqtt/Lamp/availability",
            "zigbee2mqtt/Lamp",
            "tasmota/discovery/A4CF12000001/config", "tasmota/discovery/A4CF12000001/sensors", "tele/plug/LWT",
            "tele/plug/STATE",
            "shellies/announce", "shellies/shellyswitch25-485519032A7E/online",
            "shellies/shellyswitch25-485519032A7E/roller/0/pos",
            "garage/switch/online", "garage/switch/events/rpc", "shellyplusht-08b61fce63c4/events/rpc",
        ] {
            #expect(topics.contains(topic), "\(topic)")
        }
        let config = try json(messages.first { $0.topic == "tasmota/discovery/A4CF12000001/config" })
        #expect(config["rl"]?.elements.compactMap(\.int64) == [1, 1])
        #expect(config["t"]?.string == "plug")
        #expect(messages.first { $0.topic == "shellies/shellyswitch25-485519032A7E/roller/0/pos" }?.text == "100")
        let announce = try json(messages.first { $0.topic == "shellies/announce" })
        #expect(announce["mac"]?.string == "485519032A7E")
        let full = try json(messages.first { $0.topic == "garage/switch/events/rpc" })
        #expect(full["method"]?.string == "NotifyFullStatus")
        #expect(full["src"]?.string == "shellyplus1pm-4417939a5610")
        #expect(full[path: "params[\"switch:0\"].output"]?.bool == false)
        #expect(messages.filter(\.retain).contains { $0.topic == "tele/plug/LWT" && $0.text == "Online" })
    }

    @Test("commands are echoed as the device's new state, each in its protocol")
    func commands() throws {
        var core = try core()
        _ = core.startMessages()
        let lamp = core.handle(
            topic: "zigbee2mqtt/Lamp/set", payload: Array(#"{"state":"TOGGLE","brightness":200}"#.utf8))
        #expect(try json(lamp.first)["state"]?.string == "ON")
        #expect(try json(lamp.first)["brightness"]?.int64 == 200)
        let power = core.handle(topic: "cmnd/plug/POWER1", payload: Array("ON".utf8))
        #expect(power.map(\.topic) == ["stat/plug/RESULT", "stat/plug/POWER1"])
        #expect(try json(power.first)["POWER1"]?.string == "ON")
        let state = core.handle(topic: "cmnd/plug/STATE", payload: [])
        #expect(try json(state.first)["POWER2"]?.string == "ON")
        let roller = core.handle(
            topic: "shellies/shellyswitch25-485519032A7E/roller/0/command/pos", payload: Array("40".utf8))
        #expect(roller.first?.topic == "shellies/shellyswitch25-485519032A7E/roller/0/pos")
        #expect(roller.first?.text == "40")
        let relay = core.handle(
            topic: "shellies/shellyswitch25-485519032A7E/relay/1/command", payload: Array("on".utf8))
        #expect(relay.first?.text == "on")
        let call = core.handle(
            topic: "garage/switch/rpc",
            payload: Array(#"{"id":7,"src":"tb/shelly","method":"Switch.Set","params":{"id":0,"on":true}}"#.utf8))
        #expect(call.map(\.topic) == ["tb/shelly/rpc", "garage/switch/events/rpc"])
        #expect(try json(call.first)["id"]?.int64 == 7)
        #expect(try json(call.first)[path: "result.was_on"]?.bool == false)
        #expect(try json(call.last)[path: "params[\"switch:0\"].output"]?.bool == true)
        let unknown = core.handle(
            topic: "garage/switch/rpc",
            payload: Array(#"{"id":8,"src":"tb/shelly","method":"Cover.Open","params":{"id":0}}"#.utf8))
        #expect(try json(unknown.first)[path: "error.code"]?.int64 == 404)
    }

    @Test("a muted device does not answer; unmuted it does again")
    func mute() throws {
        var core = try core()
        _ = core.inject(.mute, device: "Plug")
        #expect(core.handle(topic: "cmnd/plug/POWER1", payload: Array("ON".utf8)).isEmpty)
        _ = core.inject(.unmute, device: "Plug")
        #expect(!core.handle(topic: "cmnd/plug/POWER1", payload: Array("ON".utf8)).isEmpty)
    }

    @Test("faults: a flap becomes offline/online steps in time order; each says it in the device's own words")
    func faults() throws {
        var core = try core()
        let steps = core.timeline
        #expect(steps.map(\.kind) == [.dropBridge, .offline, .online, .offline, .online])
        #expect(steps.map(\.afterSeconds) == [0.2, 1, 1.5, 2, 2.5])
        #expect(
            core.inject(.dropBridge, device: nil).first.map { $0.topic + " " + $0.text }
                == #"zigbee2mqtt/bridge/state {"state":"offline"}"#)
        #expect(
            core.inject(.offline, device: "Lamp").first.map { $0.topic + " " + $0.text }
                == #"zigbee2mqtt/Lamp/availability {"state":"offline"}"#)
        #expect(core.inject(.offline, device: "Plug").first.map { $0.topic + " " + $0.text } == "tele/plug/LWT Offline")
        #expect(
            core.inject(.offline, device: "Switch").first.map { $0.topic + " " + $0.text }
                == "garage/switch/online false")
    }

    @Test(
        "drift moves a value by its step, turns at the bounds, and reports only the change (a Gen2 NotifyStatus delta)")
    func drift() throws {
        var core = try core()
        var values: [Double] = []
        for _ in 0..<4 {
            let message = try #require(core.drift().first)
            let event = try json(message)
            #expect(event["method"]?.string == "NotifyStatus")
            values.append(try #require(event[path: "params[\"temperature:0\"].tC"]?.double))
        }
        #expect(
            values == [20.4, 19.9, 19.4, 19.9],
            "19.9 + 0.5, then 20.9 would pass 20.5: back down, then 18.9 would pass 19: up")
    }

    @Test(
        "a scenario mistake names file:line:col, the path and what is allowed",
        arguments: [
            (
                #"{"devices": [{"name": "A", "protocol": "zwave"}]}"#,
                "home.json:1:40: devices[0].protocol: unknown protocol 'zwave'; "
                    + "use zigbee2mqtt, tasmota, shelly-gen1, shelly-gen2"
            ),
            (
                #"{"devices": [{"name": "A", "protocol": "tasmota", "id": "XYZ", "topic": "a"}]}"#,
                "home.json:1:57: devices[0].id: a Tasmota id is its MAC: 12 hex digits"
            ),
            (
                #"{"devices": [{"name": "A", "protocol": "shelly-gen1", "id": "s1"}], "#
                    + #""faults": [{"afterSeconds": 1, "fault": "offline", "device": "B"}]}"#,
                "home.json:1:80: faults[0]: offline needs \"device\": the name of a device in \"devices\""
            ),
            (#"{"devices": []}"#, "home.json:1:1: $: expected \"devices\": a non-empty array"),
            (
                #"{"devices": [{"name": "A", "protocol": "shelly-gen1", "id": "s1", "colour": 1}]}"#,
                "home.json:1:77: devices[0].colour: unknown key 'colour'; allowed: entities, id, lightSubtype"
            ),
        ])
    func scenarioErrors(_ text: String, _ expected: String) throws {
        #expect {
            try Scenario.decode(file: "home.json", bytes: Array(text.utf8)) { _ in Self.devicesFile }
        } throws: { error in
            "\(error)".contains(expected)
        }
    }

    @Test(
        "a Home Assistant discovery device: a retained config with components, availability, state; commands merge"
    )
    func homeAssistant() throws {
        let text = """
            {"devices": [{ "name": "Porch", "protocol": "homeassistant", "id": "porch", "topic": "bla/porch", "state": { "state": "OFF", "motion": "OFF" },
              "entities": { "light": { "p": "light", "schema": "json", "cmd_t": "~/set", "stat_t": "~/state" },
                            "motion": { "p": "binary_sensor", "dev_cla": "motion", "stat_t": "~/state", "val_tpl": "{{ value_json.motion }}" } } }],
             "faults": [{ "afterSeconds": 1, "fault": "offline", "device": "Porch" }]}
            """
        var core = SimulatorCore(
            scenario: try Scenario.decode(file: "home.json", bytes: Array(text.utf8)) { _ in .null })
        let start = core.startMessages()
        let config = try json(start.first { $0.topic == "homeassistant/device/porch/config" })
        #expect(config["~"]?.string == "bla/porch")
        #expect(config[path: "cmps.motion.dev_cla"]?.string == "motion")
        #expect(config[path: "dev.ids"]?[0]?.string == "porch")
        #expect(
            start.contains { $0.topic == "bla/porch/availability" && $0.payload == Array("online".utf8) && $0.retain })
        #expect(core.subscriptions.contains("bla/porch/set"))
        let answer = core.handle(topic: "bla/porch/set", payload: Array(#"{"state":"ON","brightness":120}"#.utf8))
        let state = try json(answer.first { $0.topic == "bla/porch/state" })
        #expect(state["state"]?.string == "ON")
        #expect(state["brightness"]?.int64 == 120)
        #expect(state["motion"]?.string == "OFF")
        let fault = core.inject(.offline, device: "Porch")
        #expect(fault.contains { $0.topic == "bla/porch/availability" && $0.payload == Array("offline".utf8) })
        #expect(throws: ScenarioError.self) {
            try Scenario.decode(
                file: "home.json",
                bytes: Array(#"{"devices": [{"name": "X", "protocol": "homeassistant", "id": "x"}]}"#.utf8)
            ) { _ in .null }
        }
    }

    @Test(
        "examples/demo-home.json loads: thirteen devices of every protocol; a fault makes the Hall light partial"
    )
    func demoHome() throws {
        let scenario = try Scenario.load(path: TestPaths(filePath: #filePath).repository + "/examples/demo-home.json")
        #expect(scenario.devices.count == 13)
        #expect(Set(scenario.devices.map(\.deviceProtocol)) == Set(Scenario.DeviceProtocol.allCases))
        #expect(scenario.faults.contains { $0.kind == .offline && $0.device == "Hall light" })
    }
}
