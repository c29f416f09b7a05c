import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeTesting

/// A Tasmota device end to end through a real mosquitto: discovery, LWT, state, a command and its
/// confirmation, removal.
@Suite("Tasmota through a real broker", .serialized)
struct TasmotaBridgeTests {
    static let config = #"{"ip":"192.168.2.191","dn":"Garage plugs","fn":["Left","Right",null,null],"hn":"wemos2","mac":"A4CF12345678","md":"Generic","ofln":"Offline","onln":"Online","state":["OFF","ON","TOGGLE","HOLD"],"sw":"13.3.0","t":"wemos2","ft":"%prefix%/%topic%/","tp":["cmnd","stat","tele"],"rl":[1,1,0,0],"swc":[-1,-1,-1,-1],"btn":[0,0,0,0],"so":{"4":0},"lk":0,"lt_st":0,"ver":1}"#

    @Test("discovery → device, LWT → online, RESULT → values, a command → cmnd/…/POWER2 and confirmed, LWT offline → why, empty config → removed")
    func endToEnd() throws {
        let broker = try MosquittoBroker()
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let bridge = Bridge(
            state: try EngineFixtures.state(commandTimeout: .seconds(2), withTasmota: true),
            client: MQTTClientConfiguration(broker: try BrokerURL(broker.url), backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))),
            store: nil, logger: logger)
        try bridge.start()
        defer { bridge.stop() }
        let device = try TestMQTTClient(broker, subscribe: ["cmnd/wemos2/#"])
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        let id = "tasmota-a4cf12345678"
        let deviceID = try DeviceID(id)
        try device.publish("tasmota/discovery/A4CF12345678/config", Self.config, retain: true)
        try device.publish("tele/wemos2/LWT", "Online", retain: true)
        #expect(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""connectivityState":"online""#) } != nil)
        try device.publish("stat/wemos2/RESULT", #"{"POWER1":"OFF"}"#)
        try device.publish("stat/wemos2/POWER2", "OFF")
        #expect(eventually {
            let plug = bridge.snapshot.graph.devices[deviceID]
            return plug?.trait(at: TraitAddress(deviceTypeKey: "relay2", traitID: .matter("OnOff")))?.attributes["onOff"] == .bool(false)
                && plug?.trait(at: TraitAddress(deviceTypeKey: "relay1", traitID: .matter("OnOff")))?.attributes["onOff"] == .bool(false)
        })

        try app.publish("traitbridge/devices/\(id)/set", #"{"id":"t1","deviceType":"relay2","trait":"matter.OnOff","command":"on"}"#)
        let sent = try #require(device.waitFor("cmnd/wemos2/POWER2"))
        #expect(sent.payloadText == "ON")
        try device.publish("stat/wemos2/RESULT", #"{"POWER2":"ON"}"#)  // what Tasmota answers
        let result = try #require(app.waitFor("traitbridge/devices/\(id)/set/result"))
        #expect(result.payloadText.contains(#""status":"confirmed""#), "\(result.payloadText)")

        try device.publish("tele/wemos2/LWT", "Offline", retain: true)
        let offline = try #require(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""connectivityState":"offline""#) })
        #expect(offline.payloadText.contains("availability topic tele/wemos2/LWT said offline"))

        try device.publish("tasmota/discovery/A4CF12345678/config", "", retain: true)
        #expect(app.waitFor("traitbridge/devices/\(id)") { $0.payload.isEmpty } != nil, "retained description cleared")
        #expect(eventually { bridge.snapshot.graph.devices[deviceID] == nil })
    }
}
