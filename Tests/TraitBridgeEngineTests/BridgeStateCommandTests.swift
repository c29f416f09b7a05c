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

    @Test("no echo within the timeout: assumed (time is driven, not waited for)")
    func assumed() throws {
        var state = try ready(timeout: .milliseconds(20))
        let sent = Date()
        _ = state.receive(setTopic, #"{"id":"c2","trait":"matter.OnOff","command":"off"}"#, at: sent)
        #expect(!state.tick(now: sent.addingTimeInterval(0.019)).published(resultTopic), "not before the deadline")
        let result = try #require(state.tick(now: sent.addingTimeInterval(0.021)).last(resultTopic))
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
            (#"{"trait":"matter.Identify","command":"identify","arguments":{"identifyTime":5}}"#, "notSupported",
             "matter.Identify.identify has no command rule in the catalog (commandRules in mappings/catalog/)"),
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
        #expect(ambiguous.last(topic + "/result")?["message"]?.string?.contains("name one with \"deviceType\" (CLI: --device-type)") == true)
        let named = state.receive(topic, #"{"deviceType":"switch_l2","trait":"matter.OnOff","command":"on"}"#)
        #expect(named.last("zigbee2mqtt/Relay/set")?.value == ["state_l2": "ON"])
    }

    @Test("a device and its cloud twin: a command without a device type takes the path that is online, the local one first")
    func bestPath() throws {
        var state = try EngineFixtures.state(withCloud: true)
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":10,"color_temp":300}"#)
        let sync = #"{"requestId":"s","payload":{"agentUserId":"u","devices":[{"id":"cloud-hall","type":"action.devices.types.LIGHT","traits":["action.devices.traits.OnOff"],"name":{"name":"Hall light"},"willReportState":true,"matterUniqueId":"0x00158d0001000001"}]}}"#
        _ = state.receive("traitbridge/bridge/request/sync-import/s1", sync)
        _ = state.receive("traitbridge/cloud/response", #"{"requestId":"q","payload":{"devices":{"cloud-hall":{"online":true,"status":"SUCCESS","on":false}}}}"#)
        let keys = state.graph.devices[EngineFixtures.light]?.deviceTypes.filter { $0.trait(TraitID(parsing: "matter.OnOff")!) != nil }.map(\.key)
        #expect(keys?.count == 2, "the light and its cloud twin both hold matter.OnOff: \(keys ?? [])")

        let local = state.receive(setTopic, #"{"trait":"matter.OnOff","command":"on"}"#)
        #expect(local.last("zigbee2mqtt/Hall light/set")?.value == ["state": "ON"], "both online: the local path (localPeer before remote)")
        #expect(!local.published("traitbridge/cloud/execute"))

        _ = state.receive("zigbee2mqtt/Hall light/availability", "offline")
        let remote = state.receive(setTopic, #"{"trait":"matter.OnOff","command":"off"}"#)
        #expect(!remote.published("zigbee2mqtt/Hall light/set"), "the local path is offline")
        let execute = try #require(remote.last("traitbridge/cloud/execute"), "the cloud path takes it")
        #expect(execute[path: "inputs[0].payload.commands[0].devices[0].id"]?.string == "cloud-hall")
    }

    @Test("a command to an unknown device id is deviceNotFound")
    func unknownDevice() throws {
        var state = try ready()
        let effects = state.receive("traitbridge/devices/z2m-nope/set", #"{"trait":"matter.OnOff","command":"on"}"#)
        #expect(effects.last("traitbridge/devices/z2m-nope/set/result")?["code"]?.string == "deviceNotFound")
    }
}
