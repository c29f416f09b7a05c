import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeTesting

/// A Shelly of each generation end to end through a real mosquitto: values in, a command out as
/// the device expects it, the device's answer confirming it, `online` false → offline and why.
@Suite("Shelly through a real broker", .serialized)
struct ShellyBridgeTests {
    func startBridge(_ broker: MosquittoBroker) throws -> Bridge {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let bridge = Bridge(
            state: try EngineFixtures.state(commandTimeout: .seconds(2), withShelly: true),
            client: MQTTClientConfiguration(broker: try BrokerURL(broker.url), backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))),
            store: nil, logger: logger)
        try bridge.start()
        return bridge
    }

    @Test("Gen2 on a custom prefix: NotifyStatus → values, Switch.Set on <prefix>/rpc, NotifyStatus confirms, online false → offline")
    func gen2() throws {
        let broker = try MosquittoBroker()
        let bridge = try startBridge(broker)
        defer { bridge.stop() }
        let device = try TestMQTTClient(broker, subscribe: ["shellies/plus1pm/rpc"])
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        let id = "shelly-shellyplus1pm-4417939341dc"
        try device.publish("shellies/plus1pm/online", "true", retain: true)
        try device.publish("shellies/plus1pm/events/rpc", #"{"src":"shellyplus1pm-4417939341dc","dst":"shellies/plus1pm/events","method":"NotifyStatus","params":{"ts":1661517385.44,"switch:0":{"id":0,"output":false,"voltage":232.7}}}"#)
        let online = try #require(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""connectivityState":"online""#) })
        #expect(online.payloadText.contains(#""onOff":false"#))

        try app.publish("traitbridge/devices/\(id)/set", #"{"id":"g2","deviceType":"switch0","trait":"matter.OnOff","command":"on"}"#)
        let call = try #require(device.waitFor("shellies/plus1pm/rpc"))
        let request = try JSONDocument.parse(call.payload).root
        #expect(request["method"]?.string == "Switch.Set")
        #expect(request["params"]?.value == ["id": 0, "on": true])
        try device.publish("shellies/plus1pm/events/rpc", #"{"src":"shellyplus1pm-4417939341dc","dst":"shellies/plus1pm/events","method":"NotifyStatus","params":{"ts":1661517432.85,"switch:0":{"id":0,"output":true,"source":"MQTT"}}}"#)
        let result = try #require(app.waitFor("traitbridge/devices/\(id)/set/result"))
        #expect(result.payloadText.contains(#""status":"confirmed""#), "\(result.payloadText)")

        try device.publish("shellies/plus1pm/online", "false", retain: true)
        let offline = try #require(app.waitFor("traitbridge/devices/\(id)/state") { $0.payloadText.contains(#""connectivityState":"offline""#) })
        #expect(offline.payloadText.contains("shellies/plus1pm/online"))
    }

    @Test("Gen1: announce and relay/0 → device with its MAC; on → relay/0/command; relay/0 on confirms")
    func gen1() throws {
        let broker = try MosquittoBroker()
        let bridge = try startBridge(broker)
        defer { bridge.stop() }
        let device = try TestMQTTClient(broker, subscribe: ["shellies/shelly1/relay/0/command"])
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        let id = "shelly-shelly1"
        try device.publish("shellies/shelly1/online", "true", retain: true)
        try device.publish("shellies/announce", #"{"id":"shelly1","model":"SHSW-1","mac":"8CAAB54B98DF","ip":"127.0.0.1","new_fw":false,"fw_ver":"20220809-123240/v1.12-g99f7e0b"}"#)
        try device.publish("shellies/shelly1/relay/0", "off", retain: true)
        let description = try #require(app.waitFor("traitbridge/devices/\(id)") { $0.payloadText.contains("8CAAB54B98DF") })
        #expect(description.payloadText.contains("SHSW-1"))
        try app.publish("traitbridge/devices/\(id)/set", #"{"id":"g1","trait":"matter.OnOff","command":"on"}"#)
        let command = try #require(device.waitFor("shellies/shelly1/relay/0/command"))
        #expect(command.payloadText == "on")
        try device.publish("shellies/shelly1/relay/0", "on", retain: true)
        let result = try #require(app.waitFor("traitbridge/devices/\(id)/set/result"))
        #expect(result.payloadText.contains(#""status":"confirmed""#), "\(result.payloadText)")
        #expect(eventually {
            bridge.snapshot.graph.devices[try! DeviceID(id)]?.trait(at: TraitAddress(deviceTypeKey: "relay0", traitID: .matter("OnOff")))?.attributes["onOff"] == .bool(true)
        })
    }
}
