import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeTesting

@Suite("Bridge state: discovery, state messages, MQTT contract")
struct BridgeStateDiscoveryTests {
    func discovered() throws -> BridgeState {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        _ = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        return state
    }

    @Test("bridge/devices adds devices with types, traits, a retained description and a retained state")
    func discovery() throws {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        let effects = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        #expect(state.graph.devices.count == 3, "the coordinator is not a device")
        let light = try #require(state.graph.devices[EngineFixtures.light])
        #expect(light.name == "Hall light")
        #expect(light.primaryType?.typeID == .matter("ColorTemperatureLight"))
        #expect(light.identity.uniqueID == "0x00158d0001000001")
        let relay = try #require(state.graph.devices[EngineFixtures.relay])
        #expect(relay.deviceTypes.map(\.key) == ["switch_l1", "switch_l2"])
        let description = try #require(effects.last("traitbridge/devices/z2m-0x00158d0001000001"))
        #expect(description["name"]?.string == "Hall light")
        #expect(description[path: "types.light.traits[\"matter.LevelControl\"].attributes.currentLevel.max"]?.double == 254)
        // The device's own range, not the cluster's 0…65279: this bulb does 250…454 mireds.
        #expect(description[path: "types.light.traits[\"matter.ColorControl\"].attributes.colorTemperatureMireds.min"]?.double == 250)
        #expect(description[path: "types.light.traits[\"matter.ColorControl\"].attributes.colorTemperatureMireds.max"]?.double == 454)
        #expect(description[path: "types.light.traits[\"matter.OnOff\"].commands"]?.elements.compactMap(\.string) == ["on", "off", "toggle"])
        #expect(effects.publications.first { $0.topic == "traitbridge/devices/z2m-0x00158d0001000001" }?.isRetained == true)
        let stateJSON = try #require(effects.last("traitbridge/devices/z2m-0x00158d0001000001/state"))
        #expect(stateJSON["connectivityState"]?.string == "unknown", "nothing heard from the device yet")
        #expect(stateJSON[path: "types.light.traits[\"matter.OnOff\"].reasonCode"]?.string == "neverHeard")
        #expect(effects.storeChanges.count == 3)
    }

    @Test("a state message updates values through the conversions and is published once")
    func stateMessage() throws {
        var state = try discovered()
        let effects = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":0,"color_temp":370,"linkquality":90}"#)
        let json = try #require(effects.last("traitbridge/devices/z2m-0x00158d0001000001/state"))
        #expect(json["id"]?.string == "z2m-0x00158d0001000001")
        #expect(json["name"]?.string == "Hall light")
        #expect(json["connectivityState"]?.string == "online")
        #expect(json["dataSourceLocality"]?.string == "localPeer")
        #expect(json[path: "types.light.traits[\"matter.OnOff\"].attributes.onOff"]?.bool == true)
        #expect(json[path: "types.light.traits[\"matter.LevelControl\"].attributes.currentLevel"]?.int64 == 1, "brightness 0 is the lowest level, 1")
        #expect(json[path: "types.light.traits[\"matter.ColorControl\"].attributes.colorTemperatureMireds"]?.int64 == 370)
        #expect(json[path: "types.light.traits[\"matter.OnOff\"].reason"]?.string == "message on zigbee2mqtt/Hall light")
        // The same message again changes nothing: nothing is published.
        let again = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":0,"color_temp":370,"linkquality":91}"#)
        #expect(!again.published("traitbridge/devices/z2m-0x00158d0001000001/state"))
    }

    @Test("sensor conversions: °C → 0.01 °C, % → 0.01 %, battery % → half-percent")
    func sensorConversions() throws {
        var state = try discovered()
        let effects = state.receive("zigbee2mqtt/Climate", #"{"temperature":-12.34,"humidity":100,"battery":100}"#)
        let json = try #require(effects.last("traitbridge/devices/z2m-0x00158d0001000002/state"))
        #expect(json[path: "types.temperatureSensor.traits[\"matter.TemperatureMeasurement\"].attributes.measuredValue"]?.int64 == -1234)
        #expect(json[path: "types.humiditySensor.traits[\"matter.RelativeHumidityMeasurement\"].attributes.measuredValue"]?.int64 == 10000)
        #expect(json[path: "types.powerSource.traits[\"matter.PowerSource\"].attributes.batPercentRemaining"]?.int64 == 200)
        #expect(json[path: "types.temperatureSensor.isPrimaryType"]?.bool == true)
    }

    @Test("a message before its device is known is kept and applied at discovery")
    func messageBeforeDiscovery() throws {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: Date())
        _ = state.receive("zigbee2mqtt/Hall light/availability", #"{"state":"offline"}"#)
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":120}"#)
        let effects = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let json = try #require(effects.last("traitbridge/devices/z2m-0x00158d0001000001/state"))
        #expect(json[path: "types.light.traits[\"matter.LevelControl\"].attributes.currentLevel"]?.int64 == 120)
        #expect(json["connectivityState"]?.string == "offline", "availability (kept too) says offline")
    }

    @Test("an unchanged bridge/devices is a no-op; a missing device is removed and its retained topics cleared")
    func updateAndRemove() throws {
        var state = try discovered()
        let unchanged = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        #expect(unchanged.publications.isEmpty)
        #expect(unchanged.storeChanges.isEmpty)
        let root = try JSONDocument.parse(EngineFixtures.devicesPayload).root
        let withoutRelay = JSONValue.array(root.elements.filter { $0["friendly_name"]?.isString("Relay") != true }.map(\.value))
        let removal = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: withoutRelay.serializedBytes(), now: Date())
        #expect(state.graph.devices[EngineFixtures.relay] == nil)
        let cleared = removal.publications.filter { $0.topic.hasPrefix("traitbridge/devices/z2m-0x00158d0001000003") }
        #expect(Set(cleared.map(\.topic)) == ["traitbridge/devices/z2m-0x00158d0001000003", "traitbridge/devices/z2m-0x00158d0001000003/state"])
        #expect(cleared.allSatisfy { $0.payload.isEmpty && $0.isRetained })
        #expect(removal.storeChanges == [.remove(EngineFixtures.relay)])
        // A message for the removed device is no longer routed.
        #expect(state.receive("zigbee2mqtt/Relay", #"{"state_l1":"ON"}"#).publications.isEmpty)
    }

    @Test("malformed payloads are rejected one by one with the topic; nothing else changes")
    func malformed() throws {
        var state = try discovered()
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#)
        let before = state.graph
        for payload in ["{", "[1,2]", "\"ON\"", #"{"state":"MAYBE"}"#, #"{"brightness":"bright"}"#, #"{"brightness":1e400}"#,
                        String(repeating: "[", count: 5000), #"{"state":null}"#] {
            let effects = state.receive("zigbee2mqtt/Hall light", payload)
            #expect(!effects.published("traitbridge/devices/z2m-0x00158d0001000001/state"), "\(payload.prefix(20))")
        }
        let rejected = state.receive("zigbee2mqtt/Hall light", #"{"state":"MAYBE","brightness":200}"#)
        #expect(rejected.logs.contains { $0.message.contains("cannot convert \"MAYBE\"") && $0.metadata["tb.mqtt.topic"] == "zigbee2mqtt/Hall light" })
        #expect(state.graph.devices[EngineFixtures.light]?.trait(at: TraitAddress(deviceTypeKey: "light", traitID: .matter("LevelControl")))?.attributes["currentLevel"] == .int(200),
                "the good key of a partly bad message still applies")
        #expect(state.graph.devices[EngineFixtures.light]?.deviceTypes.map(\.traits.count) == before.devices[EngineFixtures.light]?.deviceTypes.map(\.traits.count))
        #expect(state.graph.devices.count == 3)
    }

    @Test("random bytes on every routed topic never crash and never publish garbage", arguments: 0..<3)
    func fuzz(seed: Int) throws {
        var state = try discovered()
        var generator = SeededGenerator(seed: UInt64(seed))
        let topics = ["zigbee2mqtt/Hall light", "zigbee2mqtt/Hall light/availability", "zigbee2mqtt/bridge/state", "zigbee2mqtt/bridge/devices", "traitbridge/devices/z2m-0x00158d0001000001/set"]
        for _ in 0..<500 {
            let topic = topics[Int(generator.next() % UInt64(topics.count))]
            let bytes = (0..<Int(generator.next() % 80)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let effects = state.handleMessage(topic: topic, payload: bytes, now: Date())
            for outgoing in effects.publications where !outgoing.payload.isEmpty && outgoing.topic.hasPrefix("traitbridge/") {
                #expect((try? JSONDocument.parse(outgoing.payload)) != nil || outgoing.topic.hasSuffix("bridge/state"))
            }
        }
        #expect(state.graph.devices.count == 3)
    }
}
