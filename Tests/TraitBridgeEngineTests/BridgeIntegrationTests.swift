import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeStore
import TraitBridgeTesting

/// The bridge end to end: a real mosquitto on 127.0.0.1, the Bridge runtime, a test client that
/// plays zigbee2mqtt.
@Suite("Bridge through a real broker", .serialized)
struct BridgeIntegrationTests {
    func makeBridge(_ broker: MosquittoBroker, dataDirectory: String? = nil, commandTimeout: Duration = .seconds(3)) throws -> Bridge {
        let state = try EngineFixtures.state(commandTimeout: commandTimeout)
        let store = try dataDirectory.map { try DeviceStore(directory: $0) }
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let client = MQTTClientConfiguration(
            broker: try BrokerURL(broker.url),
            backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300)))
        return Bridge(state: state, client: client, store: store, logger: logger)
    }

    func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-data-\(UUID().uuidString)").path
    }

    @Test("a light command becomes the right /set payload and comes back confirmed")
    func commandRoundTrip() throws {
        let broker = try MosquittoBroker()
        let bridge = try makeBridge(broker)
        try bridge.start()
        defer { bridge.stop() }
        let z2m = try TestMQTTClient(broker, subscribe: ["zigbee2mqtt/+/set"])
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/#"])
        try z2m.publish("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, retain: true)
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":10}"#)
        #expect(app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") { $0.payloadText.contains("\"onOff\":false") } != nil)

        try app.publish("traitbridge/devices/z2m-0x00158d0001000001/set", #"{"id":"r1","trait":"matter.OnOff","command":"on"}"#)
        let sent = try #require(z2m.waitFor("zigbee2mqtt/Hall light/set"))
        #expect(sent.payloadText == #"{"state":"ON"}"#)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":10}"#)
        let result = try #require(app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/set/result"))
        #expect(result.payloadText.contains(#""status":"confirmed""#))
        #expect(result.payloadText.contains(#""id":"r1""#))
    }

    @Test("a device fed by zigbee2mqtt and a generic source: its zigbee2mqtt availability going offline leaves it partiallyOnline")
    func partiallyOnlineThroughTheBroker() throws {
        let broker = try MosquittoBroker()
        var (catalog, tables) = try EngineFixtures.mappings.get()
        tables[GenericFamily().name] = try GenericDevicesLoader.load(
            mappingsDirectory: GenericSourceTests.fixtures + "/generic-mappings", catalog: catalog)
        let state = BridgeState(
            configuration: BridgeConfiguration(
                brokerDescription: broker.url, sources: [.zigbee2mqtt(locality: .localPeer), .generic]),
            catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let bridge = Bridge(state: state, client: MQTTClientConfiguration(broker: try BrokerURL(broker.url)), store: nil, logger: logger)
        try bridge.start()
        defer { bridge.stop() }
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+/state"])
        let devices = try TestMQTTClient(broker)
        try devices.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload, retain: true)
        try devices.publish("zigbee2mqtt/Hall light/availability", "online", retain: true)
        try devices.publish("home/hall-relay/state", #"{"relay":{"on":true},"temperature":21}"#)
        #expect(app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") { $0.payloadText.hasPrefix(#"{"id":"z2m-0x00158d0001000001","name":"Hall light","connectivityState":"online","dataSourceLocality":"mixed""#) } != nil)
        try devices.publish("zigbee2mqtt/Hall light/availability", "offline", retain: true)
        let state2 = app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") {
            $0.payloadText.contains(#""connectivityState":"partiallyOnline""#) && $0.payloadText.contains("said offline")
        }
        let json = try JSONDocument.parse(try #require(state2).payload).root
        #expect(json["dataSourceLocality"]?.string == "mixed")
        #expect(json[path: "types.light.traits[\"matter.OnOff\"].reason"]?.string == "availability topic zigbee2mqtt/Hall light/availability said offline")
        #expect(json[path: "types.relay.traits[\"matter.OnOff\"].connectivityState"]?.string == "online")
        #expect(json[path: "types.relay.traits[\"matter.OnOff\"].dataSourceLocality"]?.string == "direct")
    }

    @Test("killing the broker and starting it on the same port: reconnect, resubscribe, retained state republished, no duplicates")
    func brokerRestart() throws {
        let broker = try MosquittoBroker()
        let bridge = try makeBridge(broker)
        try bridge.start()
        defer { bridge.stop() }
        do {
            let z2m = try TestMQTTClient(broker)
            try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload, retain: true)
            try z2m.publish("zigbee2mqtt/Hall light/availability", "online", retain: true)
            #expect(eventually { bridge.snapshot.graph.devices[EngineFixtures.light]?.sourceConnectivity.connectivityState == .online })
        }
        broker.kill9()
        #expect(eventually { bridge.snapshot.graph.devices[EngineFixtures.light]?.sourceConnectivity.connectivityState == .unknown })
        #expect(bridge.snapshot.graph.devices[EngineFixtures.light]?.deviceTypes.first?.traits.first?.connectivity.reason?.code == "brokerDisconnected")
        try broker.restart()  // empty: retained messages are gone
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/#"])
        #expect(app.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil, "online again")
        let late = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        #expect(late.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" && $0.isRetained } != nil, "and retained")
        #expect(eventually { app.topics(prefix: "traitbridge/devices/", suffix: "/state").count == 3 }, "every device republished")
        // zigbee2mqtt comes back too and republishes; the bridge resubscribed, so it hears it.
        let z2m = try TestMQTTClient(broker)
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light/availability", "online", retain: true)
        #expect(eventually { bridge.snapshot.graph.devices[EngineFixtures.light]?.sourceConnectivity.connectivityState == .online })
        #expect(bridge.snapshot.graph.devices.count == 3)
    }

    @Test("a restart keeps ids, names and rooms; known devices are published at once as unknown")
    func restartKeepsRegistry() throws {
        let broker = try MosquittoBroker()
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        do {
            let bridge = try makeBridge(broker, dataDirectory: data)
            try bridge.start()
            let z2m = try TestMQTTClient(broker)
            try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload)  // not retained
            #expect(eventually { bridge.snapshot.graph.devices.count == 3 })
            bridge.stop()
        }
        // A user put the light in the kitchen (through the registry, as the CLI will).
        let store = try DeviceStore(directory: data)
        var record = try #require(try store.all().first { $0.id == EngineFixtures.light }).record
        record.roomName = "Kitchen"
        try store.upsert(record, seen: Date())

        let bridge = try makeBridge(broker, dataDirectory: data)
        #expect(bridge.snapshot.graph.devices.count == 3, "restored before any broker traffic")
        #expect(bridge.snapshot.graph.room(of: EngineFixtures.light)?.name == "Kitchen")
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+/state"])
        try bridge.start()
        defer { bridge.stop() }
        let state = try #require(app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state"))
        let json = try JSONDocument.parse(state.payload).root
        #expect(json["name"]?.string == "Hall light")
        #expect(json["connectivityState"]?.string == "unknown")
        #expect(json[path: "types.light.traits[\"matter.OnOff\"].reasonCode"]?.string == "neverHeard")
    }

    @Test("the 35-device network and the 702-message capture replayed through the broker", .enabled(if: EngineFixtures.corpus != nil, "../shared/corpus is not present"))
    func corpusReplay() throws {
        let broker = try MosquittoBroker()
        let bridge = try makeBridge(broker)
        try bridge.start()
        defer { bridge.stop() }
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#"])
        let z2m = try TestMQTTClient(broker)
        let devices = try JSONDocument.parse(try EngineFixtures.corpusBytes("zigbee2mqtt/matterbridge-bridge-devices-35.payload.json"), maxDepth: 128).root
        try z2m.publish("zigbee2mqtt/bridge/state", "online", retain: true)
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: devices.value.serializedBytes(), retain: true)
        let capture = try JSONDocument.parse(try EngineFixtures.corpusBytes("zigbee2mqtt/matterbridge-session-702-messages.json"), maxDepth: 128).root
        var lastClimate: String?
        for message in capture.elements {
            guard let topic = message["topic"]?.string, let payload = message["payload"]?.string else { continue }
            try z2m.publish(topic, payload, retain: message["retained"]?.bool ?? false)
            if topic == "zigbee2mqtt/Climate sensor" { lastClimate = payload }
        }
        #expect(eventually { bridge.snapshot.graph.devices.count == 34 })
        #expect(eventually { app.topics(prefix: "traitbridge/devices/", suffix: "/state").count == 34 })
        let climate = try JSONDocument.parse(try #require(lastClimate)).root
        let expected = Int64(((try #require(climate["temperature"]?.double)) * 100).rounded())
        let published = app.waitFor("traitbridge/devices/z2m-0x00158d000945f2b1/state") { message in
            (try? JSONDocument.parse(message.payload).root[path: "types.temperatureSensor.traits[\"matter.TemperatureMeasurement\"].attributes.measuredValue"]?.int64) == expected
        }
        #expect(published != nil, "Climate sensor measuredValue \(expected)")
        let light = try #require(bridge.snapshot.graph.devices[try DeviceID("z2m-0xa4c138071003495f")])
        #expect(light.primaryType?.typeID == .matter("ExtendedColorLight"))
        #expect(light.sourceConnectivity.connectivityState == .online)
    }
}
