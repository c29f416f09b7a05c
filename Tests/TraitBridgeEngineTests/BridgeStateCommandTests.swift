import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

@Suite("Bridge state: unified commands")
struct BridgeStateCommandTests {
    func ready(timeout: Duration = .seconds(3)) throws -> BridgeState {
        var state = try EngineFixtures.state(commandTimeout: timeout)
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":10,"color_temp":300}"#)
        return state
    }

    let setTopic = "traitbridge/devices/z2m-0x00158d0001000001/set"
    let resultTopic = "traitbridge/devices/z2m-0x00158d0001000001/set/result"

    @Test("OnOff.on becomes {\"state\":\"ON\"} on the device's set topic and is confirmed by the echo")
    func onConfirmed() throws {
        var state = try ready()
        let sent = state.receive(setTopic, #"{"id":"c1","trait":"matter.OnOff","command":"on"}"#)
        let payload = try #require(sent.last("zigbee2mqtt/Hall light/set"))
        #expect(payload.value == ["state": "ON"])
        #expect(!sent.published(resultTopic), "no result before the echo")
        let echo = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":10,"color_temp":300}"#)
        let result = try #require(echo.last(resultTopic))
        #expect(result["id"]?.string == "c1")
        #expect(result["status"]?.string == "confirmed")
        #expect(result[path: "values[\"light/matter.OnOff.onOff\"]"]?.bool == true)
    }

    @Test("no echo within the timeout: assumed")
    func assumed() throws {
        var state = try ready(timeout: .milliseconds(20))
        _ = state.receive(setTopic, #"{"id":"c2","trait":"matter.OnOff","command":"off"}"#)
        Thread.sleep(forTimeInterval: 0.05)
        let result = try #require(state.tick(now: Date()).last(resultTopic))
        #expect(result["status"]?.string == "assumed")
        #expect(result["id"]?.string == "c2")
    }

    @Test(
        "level ↔ brightness and mireds ↔ color_temp convert back at the edges and clamp to the device's range",
        arguments: [
            (#"{"trait":"matter.LevelControl","command":"moveToLevel","arguments":{"level":254}}"#, "brightness", 254.0),
            (#"{"trait":"matter.LevelControl","command":"moveToLevel","arguments":{"level":1}}"#, "brightness", 1.0),
            (#"{"trait":"matter.LevelControl","attribute":"currentLevel","value":128}"#, "brightness", 128.0),
            (#"{"trait":"matter.ColorControl","command":"moveToColorTemperature","arguments":{"colorTemperatureMireds":153}}"#, "color_temp", 250.0),
            (#"{"trait":"matter.ColorControl","command":"moveToColorTemperature","arguments":{"colorTemperatureMireds":600}}"#, "color_temp", 454.0),
            (#"{"trait":"matter.ColorControl","command":"moveToColorTemperature","arguments":{"colorTemperatureMireds":370}}"#, "color_temp", 370.0),
        ]
    )
    func conversionsOut(command: String, key: String, expected: Double) throws {
        var state = try ready()
        let sent = state.receive(setTopic, command)
        let payload = try #require(sent.last("zigbee2mqtt/Hall light/set"), "\(sent.logs)")
        #expect(payload[key]?.double == expected)
        #expect(payload[key]?.isInteger == true, "zigbee2mqtt gets integers")
    }

    @Test("several writes in one command become one message to the device")
    func batched() throws {
        var state = try ready()
        let sent = state.receive(setTopic, #"{"writes":[{"trait":"matter.OnOff","attribute":"onOff","value":true},{"trait":"matter.LevelControl","attribute":"currentLevel","value":200}]}"#)
        let messages = sent.publications.filter { $0.topic == "zigbee2mqtt/Hall light/set" }
        #expect(messages.count == 1)
        #expect(sent.last("zigbee2mqtt/Hall light/set")?.value == ["state": "ON", "brightness": 200])
    }

    @Test("toggle flips the known state")
    func toggle() throws {
        var state = try ready()
        #expect(state.receive(setTopic, #"{"trait":"matter.OnOff","command":"toggle"}"#).last("zigbee2mqtt/Hall light/set")?.value == ["state": "ON"])
    }

    @Test(
        "refusals carry the contract's codes and say what is allowed",
        arguments: [
            (#"{"trait":"matter.LevelControl","command":"moveToLevel","arguments":{"level":255}}"#, "valueOutOfRange", "255 is above the maximum 254"),
            (#"{"trait":"matter.LevelControl","attribute":"currentLevel","value":0}"#, "valueOutOfRange", "0 is below the minimum 1; allowed 1…254 level 1..254"),
            (#"{"trait":"matter.DoorLock","command":"lockDoor"}"#, "notSupported", "no trait matter.DoorLock"),
            (#"{"trait":"matter.OnOff","command":"dance"}"#, "notSupported", "has no command 'dance'"),
            (#"{"trait":"matter.Identify","command":"identify","arguments":{"identifyTime":5}}"#, "notSupported", "not supported through zigbee2mqtt"),
            (#"{"command":"on"}"#, "protocolError", "missing \"trait\""),
            ("not json", "protocolError", "not JSON"),
            (#"{"trait":"matter.OnOff","attribute":"onOff","value":"yes"}"#, "invalidValue", "expected a boolean"),
        ]
    )
    func refusals(command: String, code: String, message: String) throws {
        var state = try ready()
        let effects = state.receive(setTopic, command)
        let result = try #require(effects.last(resultTopic))
        #expect(result["status"]?.string == "error")
        #expect(result["code"]?.string == code)
        #expect(result["message"]?.string?.contains(message) == true, "\(result["message"]?.string ?? "")")
        #expect(!effects.published("zigbee2mqtt/Hall light/set"))
    }

    @Test("a command to an offline trait is refused with deviceOffline and nothing is sent")
    func offline() throws {
        var state = try ready()
        _ = state.receive("zigbee2mqtt/Hall light/availability", "offline")
        let effects = state.receive(setTopic, #"{"trait":"matter.OnOff","command":"on"}"#)
        #expect(effects.last(resultTopic)?["code"]?.string == "deviceOffline")
        #expect(effects.last(resultTopic)?["message"]?.string?.contains("said offline") == true)
        #expect(!effects.published("zigbee2mqtt/Hall light/set"))
    }

    @Test("two device types with the same trait: the device type must be named")
    func ambiguous() throws {
        var state = try ready()
        let topic = "traitbridge/devices/z2m-0x00158d0001000003/set"
        let ambiguous = state.receive(topic, #"{"trait":"matter.OnOff","command":"on"}"#)
        #expect(ambiguous.last(topic + "/result")?["code"]?.string == "notSupported")
        #expect(ambiguous.last(topic + "/result")?["message"]?.string?.contains("name the device type") == true)
        let named = state.receive(topic, #"{"deviceType":"switch_l2","trait":"matter.OnOff","command":"on"}"#)
        #expect(named.last("zigbee2mqtt/Relay/set")?.value == ["state_l2": "ON"])
    }

    @Test("a command to an unknown device id is deviceNotFound")
    func unknownDevice() throws {
        var state = try ready()
        let effects = state.receive("traitbridge/devices/z2m-nope/set", #"{"trait":"matter.OnOff","command":"on"}"#)
        #expect(effects.last("traitbridge/devices/z2m-nope/set/result")?["code"]?.string == "deviceNotFound")
    }
}
