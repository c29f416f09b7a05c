import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Shelly rules that the corpus does not show on its own: deltas merged, waiting messages,
/// malformed payloads alone, and the command messages of both generations.
@Suite("Bridge state: Shelly")
struct ShellyBridgeStateTests {
    func ready() throws -> BridgeState {
        var state = try EngineFixtures.state(commandTimeout: .seconds(3), withShelly: true)
        _ = state.brokerConnected(now: Date())
        return state
    }

    static let plus = "shellyplus1pm-4417939a5610"
    static let plusID = try! DeviceID("shelly-shellyplus1pm-4417939a5610")  // literal
    static func notify(_ params: String, method: String = "NotifyStatus") -> String {
        #"{"src":"\#(plus)","dst":"\#(plus)/events","method":"\#(method)","params":{"ts":1708326851.41,\#(params)}}"#
    }

    func value(_ state: BridgeState, _ id: DeviceID, _ key: String, _ trait: String, _ attribute: String) -> AttributeValue? {
        state.graph.devices[id]?.trait(at: TraitAddress(deviceTypeKey: key, traitID: .matter(trait)))?.attributes[attribute]
    }

    @Test("a NotifyStatus with only apower keeps the output and voltage the previous one gave")
    func deltasMerge() throws {
        var state = try ready()
        _ = state.receive("\(Self.plus)/events/rpc", Self.notify(#""switch:0":{"id":0,"output":true,"source":"MQTT","voltage":224.18}"#))
        _ = state.receive("\(Self.plus)/events/rpc", Self.notify(#""switch:0":{"id":0,"apower":918.63}"#))
        #expect(value(state, Self.plusID, "switch0", "OnOff", "onOff") == .bool(true))
        #expect(value(state, Self.plusID, "switch0-power", "ElectricalPowerMeasurement", "voltage") == .int(224_180))
        #expect(value(state, Self.plusID, "switch0-power", "ElectricalPowerMeasurement", "activePower") == .int(918_630))
    }

    @Test("online=false before anything else waits for the device, then makes it offline with the topic as reason")
    func onlineBeforeDevice() throws {
        var state = try ready()
        let early = state.receive("shellies/shelly1/online", "false")
        #expect(early.publications.isEmpty)
        #expect(state.graph.devices.isEmpty)
        _ = state.receive("shellies/shelly1/relay/0", "on")
        let device = try #require(state.graph.devices[try DeviceID("shelly-shelly1")])
        #expect(device.sourceConnectivity.connectivityState == .offline)
        let reason = device.deviceType(key: "relay0")?.trait(.matter("OnOff"))?.connectivity.reason?.description ?? ""
        #expect(reason.contains("shellies/shelly1/online"), "\(reason)")
        _ = state.receive("shellies/shelly1/online", "true")
        #expect(state.graph.devices[try DeviceID("shelly-shelly1")]?.sourceConnectivity.connectivityState == .online)
    }

    @Test("a malformed payload is refused alone: the device and its other values stay", arguments: [
        ("shellies/shelly1/relay/0", "maybe"),
        ("shellies/shelly1/online", "yes"),
        ("\(plus)/events/rpc", "{not json"),
        ("\(plus)/events/rpc", #"{"method":"NotifyStatus","params":{}}"#),
        ("\(plus)/status/switch:0", "[1,2]"),
    ])
    func malformedAlone(_ topic: String, _ payload: String) throws {
        var state = try ready()
        _ = state.receive("shellies/shelly1/relay/0", "on")
        _ = state.receive("\(Self.plus)/events/rpc", Self.notify(#""switch:0":{"id":0,"output":true}"#))
        let before = state.graph
        let effects = state.receive(topic, payload)
        #expect(effects.logs.contains { $0.metadata["tb.mqtt.topic"] == topic }, "a log line names the topic")
        #expect(state.graph == before)
        _ = state.receive("shellies/shelly1/relay/0", "off")
        #expect(value(state, try DeviceID("shelly-shelly1"), "relay0", "OnOff", "onOff") == .bool(false), "the next good message is taken")
    }

    @Test("Gen1: on → relay/0/command on, position → roller/0/command/pos, brightness → light/0/set JSON; the echo confirms")
    func gen1Commands() throws {
        var state = try ready()
        _ = state.receive("shellies/shelly1/relay/0", "off")
        _ = state.receive("shellies/shelly25/roller/0/pos", "91")
        _ = state.receive("shellies/dimmer/light/0/status", #"{"ison":false,"brightness":20}"#)
        let on = state.receive("traitbridge/devices/shelly-shelly1/set", #"{"id":"s1","trait":"matter.OnOff","command":"on"}"#)
        #expect(on.publications.first { $0.topic == "shellies/shelly1/relay/0/command" }.map { String(decoding: $0.payload, as: UTF8.self) } == "on")
        let confirmed = state.receive("shellies/shelly1/relay/0", "on")
        #expect(confirmed.last("traitbridge/devices/shelly-shelly1/set/result")?["status"]?.string == "confirmed")
        let cover = state.receive("traitbridge/devices/shelly-shelly25/set", #"{"trait":"matter.WindowCovering","command":"goToLiftPercentage","arguments":{"liftPercent100thsValue":2500}}"#)
        #expect(cover.publications.first { $0.topic == "shellies/shelly25/roller/0/command/pos" }.map { String(decoding: $0.payload, as: UTF8.self) } == "75")
        let level = state.receive("traitbridge/devices/shelly-dimmer/set", #"{"trait":"matter.LevelControl","attribute":"currentLevel","value":127}"#)
        #expect(level.last("shellies/dimmer/light/0/set")?.value == ["brightness": 50])
    }

    @Test("Gen2: on and brightness together are one Light.Set call on <prefix>/rpc; Switch.Set for a switch")
    func gen2Commands() throws {
        var state = try ready()
        _ = state.receive("shelly-dim/events/rpc", #"{"src":"shellypluswdus-aabbccddeeff","method":"NotifyFullStatus","params":{"light:0":{"id":0,"output":false,"brightness":10}}}"#)
        _ = state.receive("\(Self.plus)/events/rpc", Self.notify(#""switch:0":{"id":0,"output":false}"#))
        let light = state.receive("traitbridge/devices/shelly-shellypluswdus-aabbccddeeff/set",
                                  #"{"writes":[{"trait":"matter.OnOff","command":"on"},{"trait":"matter.LevelControl","attribute":"currentLevel","value":254}]}"#)
        let calls = light.publications.filter { $0.topic == "shelly-dim/rpc" }
        #expect(calls.count == 1)
        let call = try #require(calls.first.flatMap { try? JSONDocument.parse($0.payload).root })
        #expect(call["method"]?.string == "Light.Set")
        #expect(call["src"]?.string == "traitbridge/shelly")
        #expect(call["params"]?.value == ["id": 0, "on": true, "brightness": 100])
        let switchCall = state.receive("traitbridge/devices/\(Self.plusID)/set", #"{"trait":"matter.OnOff","command":"on"}"#).last("\(Self.plus)/rpc")
        #expect(switchCall?["method"]?.string == "Switch.Set")
        #expect(switchCall?["params"]?.value == ["id": 0, "on": true])
        #expect(switchCall?["id"]?.int64 != call["id"]?.int64, "each call has its own id")
    }

    @Test("the bridge subscribes to Gen1's root and to Gen2's topics at depth one and two")
    func subscriptions() throws {
        let state = try ready()
        for filter in ["shellies/#", "+/events/rpc", "+/+/events/rpc", "+/online", "+/+/online", "+/status/+", "+/+/status/+"] {
            #expect(state.subscriptions.contains(filter), "\(filter)")
        }
    }

    @Test("a table with a trait the device type cannot hold is refused with file:line:col and the JSON path")
    func tableProblems() throws {
        let catalog = try CatalogLoader.load(mappingsDirectory: EngineFixtures.mappingsDirectory())
        let text = """
            {"gen1": [
              {"topic": "relay/<n>", "key": "relay<n>", "deviceType": "matter.TemperatureSensor", "trait": "matter.OnOff", "attribute": "onOff", "transform": []}
            ], "gen2": [
              {"component": "switch", "field": "output", "key": "s", "deviceType": "matter.OnOffPlugInUnit", "trait": "matter.OnOff", "attribute": "onOff", "method": "Switch.Set"}
            ]}
            """
        #expect {
            try ShellyTable.decode(file: "shelly.json", bytes: Array(text.utf8), catalog: catalog)
        } throws: { error in
            let message = "\(error)"
            return message.contains("shelly.json:2:") && message.contains("gen1[0].trait: device type matter.TemperatureSensor has no trait matter.OnOff")
                && message.contains("shelly.json:4:") && message.contains("gen2[0]: 'method' and 'param' go together")
        }
    }
}
