import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeTesting

@Suite("Generic topics and merged devices")
struct GenericSourceTests {
    static let fixtures = TestPaths(filePath: #filePath).repository + "/Tests/TraitBridgeEngineTests/Fixtures"
    let plug = try! DeviceID("generic-plug1")  // literal id of the fixture

    func state() throws -> BridgeState {  // also used by MergeByIdentityTests
        var (catalog, tables) = try EngineFixtures.mappings.get()
        tables[GenericFamily().name] = try GenericDevicesLoader.load(
            mappingsDirectory: Self.fixtures + "/generic-mappings", catalog: catalog)
        var state = BridgeState(
            configuration: BridgeConfiguration(
                brokerDescription: "mqtt://127.0.0.1:1883", sources: [.zigbee2mqtt(locality: .localPeer), .generic]),
            catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        _ = state.brokerConnected(now: Date())
        return state
    }

    @Test(
        "a generic device: plain payload through a value map, availability with its own words, command from a template")
    func standalone() throws {
        var state = try state()
        #expect(state.subscriptions.contains("home/plug1/POWER") && state.subscriptions.contains("home/plug1/LWT"))
        let on = state.receive("home/plug1/POWER", "ON")
        let json = try #require(on.last("traitbridge/devices/generic-plug1/state"))
        #expect(json[path: "types.plug.traits[\"matter.OnOff\"].attributes.onOff"]?.bool == true)
        #expect(json["dataSourceLocality"]?.string == "direct")
        _ = state.receive("home/plug1/LWT", "Offline")
        #expect(state.graph.devices[plug]?.sourceConnectivity.connectivityState == .offline)
        #expect(
            state.graph.devices[plug]?.deviceTypes.first?.traits.first { $0.traitID == .matter("OnOff") }?.connectivity
                .reason
                == .availability(topic: "home/plug1/LWT", isOnline: false))
        _ = state.receive("home/plug1/LWT", "Online")
        let sent = state.receive(
            "traitbridge/devices/generic-plug1/set", #"{"id":"g1","trait":"matter.OnOff","command":"off"}"#)
        #expect(sent.publications.first { $0.topic == "home/plug1/cmnd/POWER" }?.payload == Array("OFF".utf8))
        let echo = state.receive("home/plug1/POWER", "OFF")
        #expect(echo.last("traitbridge/devices/generic-plug1/set/result")?["status"]?.string == "confirmed")
        #expect(state.receive("home/plug1/POWER", "MAYBE").logs.contains { $0.message.contains("cannot convert") })
    }

    @Test(
        "merged with a zigbee2mqtt device: one device, per-trait sources; zigbee2mqtt offline leaves it partiallyOnline and mixed"
    )
    func merged() throws {
        var state = try state()
        _ = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let device = try #require(state.graph.devices[EngineFixtures.light])
        #expect(device.deviceTypes.map(\.key) == ["light", "relay", "power"])
        #expect(device.sources.map(\.family) == ["zigbee2mqtt", "generic"])
        #expect(state.graph.devices[try DeviceID("generic-hall-relay")] == nil, "merged, not a device of its own")
        _ = state.receive("zigbee2mqtt/Hall light/availability", "online")
        _ = state.receive("home/hall-relay/state", #"{"relay":{"on":true},"temperature":23.5}"#)
        var merged = try #require(state.graph.devices[EngineFixtures.light])
        #expect(merged.sourceConnectivity == SourceConnectivity(connectivityState: .online, dataSourceLocality: .mixed))
        #expect(
            merged.trait(at: TraitAddress(deviceTypeKey: "power", traitID: .matter("TemperatureMeasurement")))?
                .attributes["measuredValue"] == .int(2350))
        let offline = state.receive("zigbee2mqtt/Hall light/availability", "offline")
        merged = try #require(state.graph.devices[EngineFixtures.light])
        #expect(
            merged.sourceConnectivity
                == SourceConnectivity(connectivityState: .partiallyOnline, dataSourceLocality: .mixed))
        #expect(merged.deviceType(key: "light")?.sourceConnectivity.connectivityState == .offline)
        #expect(
            merged.deviceType(key: "relay")?.sourceConnectivity
                == SourceConnectivity(connectivityState: .online, dataSourceLocality: .direct))
        let json = try #require(offline.last("traitbridge/devices/z2m-0x00158d0001000001/state"))
        #expect(json["connectivityState"]?.string == "partiallyOnline")
        #expect(
            json[path: "types.light.traits[\"matter.OnOff\"].reason"]?.string
                == "availability topic zigbee2mqtt/Hall light/availability said offline")
        // Commands go to the source that owns the trait.
        let relay = state.receive(
            "traitbridge/devices/z2m-0x00158d0001000001/set",
            #"{"deviceType":"relay","trait":"matter.OnOff","command":"off"}"#)
        #expect(
            relay.publications.first { $0.topic == "home/hall-relay/set" }?.payload
                == Array(#"{"relay": {"on": false}}"#.utf8))
        let light = state.receive(
            "traitbridge/devices/z2m-0x00158d0001000001/set",
            #"{"deviceType":"light","trait":"matter.OnOff","command":"on"}"#)
        #expect(light.last("traitbridge/devices/z2m-0x00158d0001000001/set/result")?["code"]?.string == "deviceOffline")
    }

    @Test("a generic message before its merge target exists is kept and applied when the target appears")
    func pendingUntilTarget() throws {
        var state = try state()
        _ = state.receive("home/hall-relay/state", #"{"relay":{"on":true},"temperature":19}"#)
        _ = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        let device = try #require(state.graph.devices[EngineFixtures.light])
        #expect(
            device.trait(at: TraitAddress(deviceTypeKey: "relay", traitID: .matter("OnOff")))?.attributes["onOff"]
                == .bool(true))
        #expect(device.deviceType(key: "relay")?.sourceConnectivity.connectivityState == .online)
    }

    /// The problems a generic mappings file with `text` is refused with (an issue when it is not).
    func refusal(_ text: String) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-generic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("generic"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try text.write(to: folder.appendingPathComponent("generic/bad.json"), atomically: true, encoding: .utf8)
        let catalog = try CatalogLoader.load(mappingsDirectory: EngineFixtures.mappingsDirectory())
        do {
            _ = try GenericDevicesLoader.load(mappingsDirectory: folder.path, catalog: catalog)
            Issue.record("the file must be refused")
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test("a broken generic file is refused with file:line:col and path")
    func brokenFile() throws {
        let problems = try refusal(
            """
            {"devices": [{"id": "x", "deviceTypes": [{"key": "k", "type": "matter.OnOffPlugInUnit", "traits": [
              {"trait": "matter.OnOff", "attribute": "onOf", "state": {"topic": "a"}}]}]}]}
            """)
        #expect(
            problems.first?.hasSuffix(
                "bad.json:2:42: devices[0].deviceTypes[0].traits[0].attribute: trait matter.OnOff has no attribute "
                    + "'onOf'; it has: onOff, globalSceneControl, onTime, offWaitTime, startUpOnOff"
            ) == true, "\(problems)")
    }

    @Test("a device type that joins needs mergeWith: refused at file:line:col")
    func joinWithoutTarget() throws {
        let problems = try refusal(
            """
            {"devices": [{"id": "x", "deviceTypes": [{"key": "camera", "type": "google.Camera", "join": true,
              "traits": [{"trait": "google.CameraAvStreamManagement", "attribute": "nightVision",
                          "state": {"topic": "a"}}]}]}]}
            """)
        #expect(
            problems.first?.contains("devices[0].deviceTypes[0].join: join needs the device's mergeWith") == true,
            "\(problems)")
    }
}

@Suite("Merge by identity")
struct MergeByIdentityTests {
    @Test(
        "a generic device whose otherDeviceIds name a zigbee2mqtt device's IEEE address joins it, with its values, and its own device disappears"
    )
    func identity() throws {
        var state = try GenericSourceTests().state()
        let standalone = try DeviceID("generic-relay-meter")
        _ = state.receive("home/relay-meter", #"{"temperature":30.5}"#)
        #expect(state.graph.devices[standalone] != nil, "standalone until its twin is discovered")
        let effects = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Date())
        #expect(state.graph.devices[standalone] == nil)
        let cleared = effects.publications.filter { $0.topic.hasPrefix("traitbridge/devices/generic-relay-meter") }
        #expect(cleared.count == 2 && cleared.allSatisfy { $0.payload.isEmpty && $0.isRetained })
        let relay = try #require(state.graph.devices[EngineFixtures.relay])
        #expect(relay.deviceTypes.map(\.key) == ["switch_l1", "switch_l2", "meter"])
        #expect(relay.deviceType(key: "meter")?.isPrimaryType == false)
        #expect(
            relay.trait(at: TraitAddress(deviceTypeKey: "meter", traitID: .matter("TemperatureMeasurement")))?
                .attributes["measuredValue"] == .int(3050))
        _ = state.receive("home/relay-meter", #"{"temperature":31}"#)
        #expect(
            state.graph.devices[EngineFixtures.relay]?.trait(
                at: TraitAddress(deviceTypeKey: "meter", traitID: .matter("TemperatureMeasurement")))?.attributes[
                    "measuredValue"] == .int(3100))
    }
}

@Suite("Generic devices at start")
struct GenericStartTests {
    @Test("what the generic plug-in says while the bridge is made is kept for the runtime to log")
    func startLogs() throws {
        let state = try GenericSourceTests().state()
        #expect(
            state.startLogs.contains { $0.message.hasPrefix("added device") && $0.metadata["tb.source"] == "generic" },
            "\(state.startLogs)")
    }
}
