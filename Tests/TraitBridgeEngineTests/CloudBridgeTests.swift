import Foundation
import Logging
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel
import TraitBridgeStore
import TraitBridgeTesting

/// Cloud-to-cloud in the running bridge, through a real mosquitto: a SYNC device merged with a
/// zigbee2mqtt light, QUERY connectivity, EXECUTE through the command path, the cloud relay.
@Suite("Cloud-to-cloud through a real broker", .serialized)
struct CloudBridgeTests {
    /// The cloud's view of the zigbee2mqtt Hall light (same IEEE as matterUniqueId) and a plug
    /// only the cloud knows.
    static let sync = """
        {"requestId": "s1", "payload": {"agentUserId": "u1", "devices": [
          {"id": "cloud-hall", "type": "action.devices.types.LIGHT",
           "traits": ["action.devices.traits.OnOff", "action.devices.traits.Brightness"],
           "name": {"name": "Hall light (cloud)"}, "willReportState": true, "roomHint": "Hall",
           "matterUniqueId": "0x00158d0001000001"},
          {"id": "cloud-plug", "type": "action.devices.types.OUTLET", "traits": ["action.devices.traits.OnOff"],
           "name": {"name": "Garden plug"}, "willReportState": true, "roomHint": "Garden", "customData": {"hub": "h7"}}
        ]}}
        """

    func makeBridge(_ broker: MosquittoBroker, data: String? = nil, aliases: [String: DeviceID] = [:]) throws -> Bridge {
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let client = MQTTClientConfiguration(
            broker: try BrokerURL(broker.url), backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300)))
        let state = try EngineFixtures.state(commandTimeout: .seconds(2), withCloud: true, cloudAliases: aliases)
        return Bridge(state: state, client: client, store: try data.map { try DeviceStore(directory: $0) }, logger: logger)
    }

    /// Sends a request the way the CLI does and returns the answer.
    func request(_ app: TestMQTTClient, _ operation: String, _ payload: String, id: String) throws -> JSON {
        try app.publish("traitbridge/bridge/request/\(operation)/\(id)", payload)
        let answer = try #require(app.waitFor("traitbridge/bridge/response/\(operation)/\(id)"))
        return try JSONDocument.parse(answer.payload, maxDepth: 128).root
    }

    @Test("a zigbee2mqtt light and the SYNC device with its matterUniqueId become one device; QUERY offline makes it partiallyOnline and mixed")
    func mergeAndPartiallyOnline() throws {
        let broker = try MosquittoBroker()
        let bridge = try makeBridge(broker)
        try bridge.start()
        defer { bridge.stop() }
        let z2m = try TestMQTTClient(broker)
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/#"])
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light/availability", "online", retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":254}"#)
        #expect(eventually { bridge.snapshot.graph.devices[EngineFixtures.light]?.sourceConnectivity.connectivityState == .online })

        let imported = try request(app, "sync-import", Self.sync, id: "i1")
        #expect(imported["status"]?.string == "ok")
        #expect(imported[path: "imported[0].device"]?.string == "z2m-0x00158d0001000001")
        #expect(imported[path: "imported[0].mergedInto"]?.string == "Hall light")
        #expect(imported[path: "imported[1].device"]?.string == "c2c-cloud-plug")

        let light = try #require(bridge.snapshot.graph.devices[EngineFixtures.light])
        #expect(light.deviceTypes.map(\.key) == ["light", "cloud-light"])
        #expect(light.sourceConnectivity == SourceConnectivity(connectivityState: .online, dataSourceLocality: .mixed) || light.sourceConnectivity.connectivityState == .partiallyOnline)
        #expect(bridge.snapshot.graph.devices[try DeviceID("c2c-cloud-hall")] == nil, "no second device for the same light")
        #expect(bridge.snapshot.graph.room(of: try DeviceID("c2c-cloud-plug"))?.name == "Garden")

        let query = """
            {"requestId": "q1", "payload": {"devices": {
              "cloud-hall": {"online": false, "status": "OFFLINE", "errorCode": "deviceOffline"},
              "cloud-plug": {"online": true, "status": "SUCCESS", "on": true}}}}
            """
        let applied = try request(app, "query-import", query, id: "q1")
        #expect(applied["updated"]?.elements.compactMap(\.string) == ["z2m-0x00158d0001000001", "c2c-cloud-plug"])
        let state = try #require(app.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") { $0.payloadText.contains("partiallyOnline") })
        let json = try JSONDocument.parse(state.payload).root
        #expect(json["connectivityState"]?.string == "partiallyOnline")
        #expect(json["dataSourceLocality"]?.string == "mixed")
        #expect(json[path: #"types.light.traits["matter.OnOff"].connectivityState"#]?.string == "online")
        #expect(json[path: #"types.light.traits["matter.OnOff"].dataSourceLocality"#]?.string == "localPeer")
        #expect(json[path: #"types["cloud-light"].traits["matter.OnOff"].connectivityState"#]?.string == "offline")
        #expect(json[path: #"types["cloud-light"].traits["matter.OnOff"].dataSourceLocality"#]?.string == "remote")
        #expect(json[path: #"types["cloud-light"].traits["matter.OnOff"].reason"#]?.string == "QUERY said online:false status OFFLINE errorCode deviceOffline")
        #expect(bridge.snapshot.graph.devices[try DeviceID("c2c-cloud-plug")]?.trait(at: TraitAddress(deviceTypeKey: "outlet", traitID: .matter("OnOff")))?.attributes["onOff"] == .bool(true))

        // Exports carry the merged device under its cloud id, with its identity, and the plug.
        let exported = try request(app, "sync-export", "", id: "e1")
        let ids = exported[path: "payload.devices"]?.elements.compactMap { $0["id"]?.string } ?? []
        #expect(ids.contains("cloud-hall") && ids.contains("cloud-plug") && !ids.contains("z2m-0x00158d0001000001"))
        let queried = try request(app, "query-export", "", id: "e2")
        #expect(queried[path: #"payload.devices["cloud-hall"].online"#]?.bool == true, "partiallyOnline is reachable")
        #expect(queried[path: #"payload.devices["cloud-plug"].on"#]?.bool == true)
    }

    @Test("EXECUTE runs through the command path: confirmed by the device, relayed to the cloud, not found")
    func execute() throws {
        let broker = try MosquittoBroker()
        let bridge = try makeBridge(broker)
        try bridge.start()
        defer { bridge.stop() }
        let z2m = try TestMQTTClient(broker, subscribe: ["zigbee2mqtt/+/set"])
        let relay = try TestMQTTClient(broker, subscribe: ["traitbridge/cloud/execute"])
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/response/#"])
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light/availability", "online", retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":254}"#)
        #expect(eventually { bridge.snapshot.graph.devices[EngineFixtures.light]?.sourceConnectivity.connectivityState == .online })
        _ = try request(app, "sync-import", Self.sync, id: "i2")

        // The pretend zigbee2mqtt echoes the light's new state; the pretend relay answers for the plug.
        let echo = Thread {
            if z2m.waitFor("zigbee2mqtt/Hall light/set") != nil { try? z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":254}"#) }
        }
        echo.start()
        let execute = """
            {"requestId": "x1", "inputs": [{"intent": "action.devices.EXECUTE", "payload": {"commands": [
              {"devices": [{"id": "cloud-hall"}, {"id": "cloud-plug"}, {"id": "nobody"}],
               "execution": [{"command": "action.devices.commands.OnOff", "params": {"on": true}}]},
              {"devices": [{"id": "z2m-0x00158d0001000002"}],
               "execution": [{"command": "action.devices.commands.BrightnessAbsolute", "params": {"brightness": 50}}]}]}}]}
            """
        try app.publish("traitbridge/bridge/request/execute/x1", execute)
        let relayed = try #require(relay.waitFor("traitbridge/cloud/execute"))
        #expect(relayed.payloadText == #"{"requestId":"tb-c2c-cloud-plug-OnOff","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"cloud-plug","customData":{"hub":"h7"}}],"execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}}]}]}}]}"#)
        try relay.publish("traitbridge/cloud/response", #"{"requestId":"tb","payload":{"commands":[{"ids":["cloud-plug"],"status":"SUCCESS","states":{"online":true,"on":true}}]}}"#)
        let answer = try #require(app.waitFor("traitbridge/bridge/response/execute/x1"))
        let json = try JSONDocument.parse(answer.payload, maxDepth: 128).root
        let groups = json[path: "payload.commands"]?.elements ?? []
        let byID = Dictionary(uniqueKeysWithValues: groups.flatMap { group in (group["ids"]?.elements.compactMap(\.string) ?? []).map { ($0, group) } })
        #expect(byID["cloud-hall"]?["status"]?.string == "SUCCESS", "\(answer.payloadText)")
        #expect(byID["cloud-hall"]?[path: "states.on"]?.bool == true, "the confirmed new state")
        #expect(byID["cloud-plug"]?["status"]?.string == "SUCCESS")
        #expect(byID["nobody"]?["status"]?.string == "ERROR")
        #expect(byID["nobody"]?["errorCode"]?.string == "deviceNotFound")
        #expect(byID["z2m-0x00158d0001000002"]?["errorCode"]?.string == "functionNotSupported", "a climate sensor has no brightness")
        #expect(json["requestId"]?.string == "x1")
        echo.cancel()
    }

    @Test("imported cloud devices survive a restart (kept as typed records) and merge again; the export is the same")
    func restart() throws {
        var exported: JSONValue?
        let broker = try MosquittoBroker()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tb-cloud-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        do {
            let bridge = try makeBridge(broker, data: data)
            try bridge.start()
            let z2m = try TestMQTTClient(broker)
            try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload)
            #expect(eventually { bridge.snapshot.graph.devices[EngineFixtures.light] != nil })
            let app = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/response/#"])
            _ = try request(app, "sync-import", Self.sync, id: "r1")
            exported = try request(app, "sync-export", "{}", id: "e1")["payload"]?["devices"]?.value
            bridge.stop()
        }
        let bridge = try makeBridge(broker, data: data)
        let restored = bridge.snapshot.graph
        #expect(restored.devices[try DeviceID("c2c-cloud-plug")]?.name == "Garden plug")
        #expect(restored.room(of: try DeviceID("c2c-cloud-plug"))?.name == "Garden")
        #expect(restored.devices[EngineFixtures.light]?.deviceTypes.map(\.key) == ["light", "cloud-light"], "merged again, once")
        #expect(restored.devices[try DeviceID("c2c-cloud-hall")] == nil)
        // Google is given back what it described: the export is the same as before the restart.
        try bridge.start()
        defer { bridge.stop() }
        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/response/#"])
        // Before zigbee2mqtt speaks again: a local device is exported as the registry described it.
        let early = try request(app, "sync-export", "{}", id: "e0")["payload"]?["devices"]?.value
        #expect(early == exported, "\(early?.serialized() ?? "")\n\(exported?.serialized() ?? "")")
        let z2m = try TestMQTTClient(broker)
        try z2m.publish("zigbee2mqtt/bridge/devices", bytes: EngineFixtures.devicesPayload)
        var attempt = 0
        var again: JSONValue?
        let same = eventually {
            attempt += 1
            again = try? request(app, "sync-export", "{}", id: "e\(attempt)")["payload"]?["devices"]?.value
            return again == exported
        }
        #expect(same && exported != nil, "\(again?.serialized() ?? "")\n\(exported?.serialized() ?? "")")
    }
}
