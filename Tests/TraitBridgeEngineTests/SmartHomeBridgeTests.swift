import Foundation
import Logging
import Testing
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel

/// Google's intents answered by the bridge itself (the HTTP layer only translates): what happens
/// when it is not running, and which devices its effects name for Report State.
@Suite("smart-home intents in the bridge")
struct SmartHomeBridgeTests {
    @Test("an EXECUTE while the bridge is not running is answered at once (transientError), never left waiting")
    func executeWhenStopped() async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let client = MQTTClientConfiguration(broker: try BrokerURL("mqtt://127.0.0.1:1"))
        let bridge = Bridge(
            state: try EngineFixtures.state(commandTimeout: .seconds(2), withCloud: true), client: client, store: nil,
            logger: logger)
        let body = Array(
            #"{"requestId":"e9","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"x"}],"execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}}]}]}}]}"#
                .utf8)
        let request = try SmartHomeRequest.parse(body, source: "test")
        let answer = try JSONDocument.parse(
            await bridge.smartHome(request, body: body, agentUserID: "u", source: "test")
        ).root
        #expect(answer["requestId"]?.string == "e9")
        #expect(answer["payload"]?["errorCode"]?.string == "transientError")
    }

    @Test("a value change names the device for Report State; a rename names it for Request Sync")
    func changes() throws {
        var state = try EngineFixtures.state(commandTimeout: .seconds(2), withCloud: true)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = state.brokerConnected(now: now)
        _ = state.handleMessage(
            topic: "zigbee2mqtt/bridge/state", payload: Array(#"{"state":"online"}"#.utf8), now: now)
        let described = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: now)
        #expect(!described.changedDescriptions.isEmpty, "new devices: Google must SYNC again")
        let light = EngineFixtures.light
        let value = state.handleMessage(
            topic: "zigbee2mqtt/Hall light", payload: Array(#"{"state":"ON","brightness":10}"#.utf8), now: now)
        #expect(value.changedStates == [light])
        #expect(value.changedDescriptions.isEmpty)
        let same = state.handleMessage(
            topic: "zigbee2mqtt/Hall light", payload: Array(#"{"state":"ON","brightness":10}"#.utf8), now: now)
        #expect(same.changedStates.isEmpty, "nothing new, nothing to report")
        let states = state.smartHomeReportStates([light])
        #expect(states[light.rawValue]?["on"] == .bool(true))
        #expect(states[light.rawValue]?["online"] != nil && states[light.rawValue]?["status"] == nil)
    }
}
