import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeTesting

/// Home Assistant discovery end to end through a real mosquitto: a retained config and state, a
/// command out on the entity's topic and confirmed; and one physical plug seen by Tasmota's own
/// discovery and by a Home Assistant config: one device, partiallyOnline when one side goes.
@Suite("Home Assistant discovery through a real broker", .serialized)
struct HomeAssistantBridgeTests {
    func start(_ broker: MosquittoBroker) throws -> Bridge {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let bridge = Bridge(
            state: try EngineFixtures.state(commandTimeout: .seconds(2), withTasmota: true, withHomeAssistant: true),
            client: MQTTClientConfiguration(broker: try BrokerURL(broker.url), backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))),
            store: nil, logger: logger)
        try bridge.start()
        return bridge
    }

    @Test("retained config and state → device with its value; a command → the entity's command topic, confirmed by its state; empty config → removed")
    func entityEndToEnd() throws {
        let broker = try MosquittoBroker()
        let device = try TestMQTTClient(broker, subscribe: ["kitchen/light/set"])
        // Retained before the bridge starts, as a real installation has them.
        try device.publish("homeassistant/light/kitchen/light/config", #"{"~":"kitchen/light","name":null,"uniq_id":"kl1","cmd_t":"~/set","stat_t":"~","schema":"json","sup_clrm":["brightness"],"avty_t":"~/status","dev":{"ids":["kitchen-light"],"name":"Kitchen light","sa":"Kitchen"}}"#, retain: true)
        try device.publish("kitchen/light", #"{"state":"OFF","brightness":128}"#, retain: true)
        try device.publish("kitchen/light/status", "online", retain: true)
        let bridge = try start(broker)
        defer { bridge.stop() }
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        let id = "ha-kitchen-light"
        let state = try #require(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""connectivityState":"online""#) && $0.payloadText.contains(#""onOff":false"#) })
        #expect(state.payloadText.contains(#""currentLevel":127"#), "\(state.payloadText)")
        #expect(app.waitFor("traitbridge/devices/\(id)") { $0.payloadText.contains(#""room":"Kitchen""#) } != nil, "suggested_area becomes the room")

        try app.publish("traitbridge/devices/\(id)/set", #"{"id":"h1","trait":"matter.OnOff","command":"on"}"#)
        let sent = try #require(device.waitFor("kitchen/light/set"))
        #expect(sent.payloadText == #"{"state":"ON"}"#)
        try device.publish("kitchen/light", #"{"state":"ON","brightness":128}"#, retain: true)
        let result = try #require(app.waitFor("traitbridge/devices/\(id)/set/result"))
        #expect(result.payloadText.contains(#""status":"confirmed""#), "\(result.payloadText)")

        try device.publish("kitchen/light/status", "offline", retain: true)
        let offline = try #require(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""connectivityState":"offline""#) })
        #expect(offline.payloadText.contains("kitchen/light/status"))

        try device.publish("homeassistant/light/kitchen/light/config", "", retain: true)
        #expect(app.waitFor("traitbridge/devices/\(id)") { $0.payload.isEmpty } != nil, "retained description cleared")
        #expect(eventually { bridge.snapshot.graph.devices[try! DeviceID(id)] == nil })
    }

    @Test("one plug, two MQTT sources (Tasmota relay, Home Assistant power meter with its MAC): one device, partiallyOnline when the meter's side goes offline")
    func mergedAcrossSources() throws {
        let broker = try MosquittoBroker()
        let bridge = try start(broker)
        defer { bridge.stop() }
        let devices = try TestMQTTClient(broker)
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        try devices.publish("tasmota/discovery/A4CF12345678/config", #"{"dn":"Garage plug","fn":["Plug",null],"mac":"A4CF12345678","md":"Generic","ofln":"Offline","onln":"Online","sw":"13.3.0","t":"plug","ft":"%prefix%/%topic%/","tp":["cmnd","stat","tele"],"rl":[1,0],"lt_st":0}"#, retain: true)
        try devices.publish("tele/plug/LWT", "Online", retain: true)
        try devices.publish("homeassistant/sensor/meter/plug_power/config", #"{"dev_cla":"power","unit_of_meas":"W","stat_t":"meter/plug","val_tpl":"{{ value_json.power }}","avty_t":"meter/status","uniq_id":"plug_power","dev":{"ids":["meter-plug"],"cns":[["mac","a4:cf:12:34:56:78"]]}}"#, retain: true)
        try devices.publish("meter/status", "online", retain: true)
        try devices.publish("meter/plug", #"{"power":40.2}"#, retain: true)
        let id = "tasmota-a4cf12345678"
        let both = try #require(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""activePower":40200"#) && $0.payloadText.contains(#""connectivityState":"online""#) })
        #expect(both.payloadText.contains("plug_power"))
        #expect(bridge.snapshot.graph.devices[try DeviceID("ha-meter-plug")] == nil, "no second device for the meter")

        try devices.publish("meter/status", "offline", retain: true)
        let partial = app.waitFor("traitbridge/devices/\(id)/state") {
            $0.payloadText.contains(#""connectivityState":"partiallyOnline""#) && $0.payloadText.contains("availability topic meter/status said offline")
        }
        #expect(partial?.payloadText.contains("availability topic tele/plug/LWT said online") == true, "the relay's side stays online")
        try devices.publish("meter/status", "online", retain: true)
        let deviceID = try DeviceID(id)
        #expect(eventually { bridge.snapshot.graph.devices[deviceID]?.sourceConnectivity.connectivityState == .online })
    }
}
