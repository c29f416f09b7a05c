import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// A zigbee2mqtt button through the engine: each press a notification on the device's event topic
/// (never one a retained or kept message carried), the last one in its state, and Home Assistant's
/// `event` entity listing the button's own actions.
@Suite("Button presses (engine)")
struct ButtonActionTests {
    static let button = try! DeviceID("z2m-0x00158d000224154d")
    static let eventTopic = "traitbridge/devices/z2m-0x00158d000224154d/event"

    /// A zigbee2mqtt list of one button whose `action` lists `values`.
    static func list(values: [String]) -> [UInt8] {
        let listed = values.map { "\"\($0)\"" }.joined(separator: ",")
        return Array(
            """
            [{"ieee_address":"0x00158d000224154d","friendly_name":"Desk button","type":"EndDevice",
              "power_source":"Battery","definition":{"model":"WXKG01LM","vendor":"Aqara","exposes":[
              {"type":"enum","name":"action","property":"action","access":1,"values":[\(listed)]},
              {"type":"numeric","name":"battery","property":"battery","access":1,"unit":"%"}]}}]
            """.utf8)
    }

    static func connected(values: [String] = ["single", "double", "hold"]) throws -> (BridgeState, BridgeEffects) {
        var state = try EngineFixtures.state(homeAssistantExport: try HomeAssistantDiscoveryOutTests.export())
        let t0 = HomeAssistantDiscoveryOutTests.t0
        var effects = state.brokerConnected(now: t0)
        effects.publications += state.receive("zigbee2mqtt/bridge/state", "online", at: t0).publications
        effects.publications +=
            state.handleMessage(
                topic: "zigbee2mqtt/bridge/devices", payload: list(values: values), now: t0
            ).publications
        effects.publications += state.tick(now: t0.addingTimeInterval(1.1)).publications
        return (state, effects)
    }

    static func lastAction(_ state: BridgeState) -> AttributeValue? {
        let traits = state.graph.devices[button]?.deviceTypes.flatMap { $0.traits } ?? []
        return traits.first { $0.traitID.description == "vendor.traitbridge.Action" }?.attributes["lastAction"]
    }

    @Test("a press is published on the device's event topic and kept as its last action")
    func press() throws {
        var (state, _) = try Self.connected()
        let effects = state.handleMessage(
            topic: "zigbee2mqtt/Desk button", payload: Array(#"{"action":"double","battery":98}"#.utf8), now: Date())
        let event = try #require(effects.last(Self.eventTopic))
        #expect(event["trait"]?.string == "vendor.traitbridge.Action")
        #expect(event["notification"]?["kind"]?.string == "action")
        #expect(event["notification"]?["action"]?.string == "double")
        #expect(effects.publications.last { $0.topic == Self.eventTopic }?.isRetained == false)
        #expect(Self.lastAction(state) == .string("double"))
        let again = state.handleMessage(
            topic: "zigbee2mqtt/Desk button", payload: Array(#"{"action":"double","battery":98}"#.utf8), now: Date())
        #expect(again.published(Self.eventTopic), "the same press twice is two presses")
    }

    @Test("a retained message's action, or one kept until the device was listed, is no press")
    func retainedIsHistory() throws {
        var (state, _) = try Self.connected()
        let retained = state.handleMessage(
            topic: "zigbee2mqtt/Desk button", payload: Array(#"{"action":"hold"}"#.utf8), now: Date(),
            isRetained: true)
        #expect(!retained.published(Self.eventTopic))
        #expect(Self.lastAction(state) == .string("hold"), "still the last action it made")

        var early = try EngineFixtures.state()
        _ = early.brokerConnected(now: Date())
        let kept = early.receive("zigbee2mqtt/Desk button", #"{"action":"single"}"#)
        #expect(!kept.published(Self.eventTopic))
        let listed = early.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: Self.list(values: ["single"]), now: Date())
        #expect(!listed.published(Self.eventTopic), "replayed once the device is known: not news")
        #expect(Self.lastAction(early) == .string("single"))
    }

    @Test("Home Assistant gets an event entity whose types are the button's actions; none without a list")
    func homeAssistantEvent() throws {
        let (_, effects) = try Self.connected()
        let config = try #require(effects.last(HomeAssistantDiscoveryOutTests.topic(Self.button)))
        let entity = try #require(config["components"]?["genericSwitch_action"])
        #expect(entity["platform"]?.string == "event")
        #expect(entity["event_types"]?.elements.compactMap(\.string) == ["single", "double", "hold"])
        #expect(entity["state_topic"]?.string == Self.eventTopic)
        #expect(entity["value_template"]?.string?.contains("'vendor.traitbridge.Action'") == true)
        #expect(config["components"]?["powerSource_battery"] != nil, "its battery beside it")

        let (_, unlisted) = try Self.connected(values: [])
        let bare = try #require(unlisted.last(HomeAssistantDiscoveryOutTests.topic(Self.button)))
        #expect(bare["components"]?["genericSwitch_action"] == nil, "no event types: no event entity")
    }
}
