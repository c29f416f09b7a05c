import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeMQTT
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeTesting

/// A device described by its topics (mappings/generic) end to end through a real mosquitto.
@Suite("Generic topics through a real broker", .serialized)
struct GenericBridgeTests {
    @Test("plain payload in, a command out on its command topic from the template, confirmed by the echo; its LWT offline → why")
    func endToEnd() throws {
        let broker = try MosquittoBroker()
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let bridge = Bridge(state: try GenericSourceTests().state(), client: MQTTClientConfiguration(broker: try BrokerURL(broker.url)), store: nil, logger: logger)
        try bridge.start()
        defer { bridge.stop() }
        let device = try TestMQTTClient(broker, subscribe: ["home/plug1/cmnd/#"])
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/generic-plug1/#"])
        try device.publish("home/plug1/LWT", "Online", retain: true)
        try device.publish("home/plug1/POWER", "ON", retain: true)
        #expect(app.waitFor("traitbridge/devices/generic-plug1/state") { $0.payloadText.contains(#""onOff":true"#) && $0.payloadText.contains(#""connectivityState":"online""#) } != nil)
        try app.publish("traitbridge/devices/generic-plug1/set", #"{"id":"g1","trait":"matter.OnOff","command":"off"}"#)
        let sent = try #require(device.waitFor("home/plug1/cmnd/POWER"))
        #expect(sent.payloadText == "OFF")
        try device.publish("home/plug1/POWER", "OFF", retain: true)
        let result = try #require(app.waitFor("traitbridge/devices/generic-plug1/set/result"))
        #expect(result.payloadText.contains(#""status":"confirmed""#), "\(result.payloadText)")
        try device.publish("home/plug1/LWT", "Offline", retain: true)
        #expect(app.waitFor("traitbridge/devices/generic-plug1/state") { $0.payloadText.contains("availability topic home/plug1/LWT said offline") } != nil)
    }
}
