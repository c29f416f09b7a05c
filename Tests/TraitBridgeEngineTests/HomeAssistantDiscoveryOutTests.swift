import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeHomeAssistant
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// The engine's side of Home Assistant discovery out: when a config is published, published again,
/// cleared, and which devices are given.
@Suite("Home Assistant discovery out (engine)")
struct HomeAssistantDiscoveryOutTests {
    static func export(
        rules: ExportRules = ExportRules(), skipped: Set<String> = [], enabled: Bool = true
    ) throws -> HomeAssistantExport {
        let (catalog, _) = try EngineFixtures.mappings.get()
        let table = try HomeAssistantExportTable.load(
            mappingsDirectory: EngineFixtures.mappingsDirectory(), catalog: catalog)
        let discovery = HomeAssistantDiscovery(
            table: table, catalog: catalog,
            settings: .init(
                discoveryPrefix: "homeassistant", bridgePrefix: "traitbridge", bridgeName: "TraitBridge",
                version: "test"))
        return HomeAssistantExport(discovery: discovery, rules: rules, skippedSources: skipped, isEnabled: enabled)
    }

    static func topic(_ id: DeviceID) -> String { "homeassistant/device/traitbridge_\(id.rawValue)/config" }
    static let bridgeTopic = "homeassistant/device/traitbridge_bridge/config"

    static let t0 = Date()

    /// A connected bridge that read the fixture's three devices at `t0`, and its tick a second later
    /// (when the configs of a batch are made).
    static func described(
        _ export: HomeAssistantExport, withHomeAssistant: Bool = false
    ) throws -> (BridgeState, BridgeEffects) {
        var state = try EngineFixtures.state(withHomeAssistant: withHomeAssistant, homeAssistantExport: export)
        var effects = state.brokerConnected(now: t0)
        let listed = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: t0)
        #expect(!listed.publications.contains { $0.topic.hasPrefix("homeassistant/device/traitbridge_z2m") })
        effects.publications += listed.publications
        effects.publications += state.tick(now: t0.addingTimeInterval(1.1)).publications
        return (state, effects)
    }

    @Test("every described device gets a retained config, the bridge its own; the subscriptions include ours")
    func configsFollowDescriptions() throws {
        let (state, effects) = try Self.described(try Self.export())
        #expect(state.subscriptions.contains("homeassistant/status"))
        #expect(state.subscriptions.contains("homeassistant/device/+/config"))
        let reading = try EngineFixtures.state(withHomeAssistant: true, homeAssistantExport: try Self.export())
        #expect(
            reading.subscriptions.filter { $0.hasPrefix("homeassistant/") } == ["homeassistant/#"],
            "the Home Assistant source's filter covers ours: each message comes once")
        for id in [EngineFixtures.light, EngineFixtures.climate, EngineFixtures.relay] {
            let config = try #require(effects.publications.last { $0.topic == Self.topic(id) }, "\(id)")
            #expect(config.isRetained && config.qos == 1 && !config.payload.isEmpty)
        }
        let light = try #require(effects.last(Self.topic(EngineFixtures.light)))
        #expect(light["device"]?["name"]?.string == "Hall light")
        #expect(light["device"]?["suggested_area"] == nil, "the home's default room is no area")
        #expect(light["components"]?["light_light"]?["min_mireds"]?.int64 == 250, "the bulb's own range")
        #expect(effects.published(Self.bridgeTopic))
    }

    @Test("the same list again publishes no config; a rename publishes the light's again with its new name")
    func onlyOnChange() throws {
        var (state, _) = try Self.described(try Self.export())
        let again = state.handleMessage(
            topic: "zigbee2mqtt/bridge/devices", payload: EngineFixtures.devicesPayload, now: Self.t0 + 2)
        #expect(!again.publications.contains { $0.topic.hasPrefix("homeassistant/") })
        #expect(!state.tick(now: Self.t0 + 4).publications.contains { $0.topic.hasPrefix("homeassistant/") })
        _ = state.receive(
            "traitbridge/bridge/request/rename/c1", #"{"device": "\#(EngineFixtures.light)", "name": "Porch light"}"#,
            at: Self.t0 + 5)
        let renamed = state.tick(now: Self.t0 + 6.1)
        #expect(renamed.last(Self.topic(EngineFixtures.light))?["device"]?["name"]?.string == "Porch light")
        #expect(!renamed.published(Self.topic(EngineFixtures.climate)))
        _ = state.receive(
            "traitbridge/bridge/request/move/c2", #"{"device": "\#(EngineFixtures.light)", "room": "Porch"}"#,
            at: Self.t0 + 7)
        let moved = state.tick(now: Self.t0 + 8.1)
        #expect(moved.last(Self.topic(EngineFixtures.light))?["device"]?["suggested_area"]?.string == "Porch")
    }

    @Test("a config published: the device's state again 1.5 s later, once (for the entities Home Assistant made)")
    func statesAgain() throws {
        var (state, _) = try Self.described(try Self.export())
        let stateTopic = "traitbridge/devices/\(EngineFixtures.light)/state"
        #expect(!state.tick(now: Self.t0 + 1.5).published(stateTopic))
        let later = state.tick(now: Self.t0 + 3)
        #expect(later.publications.last { $0.topic == stateTopic }?.isRetained == true)
        #expect(!state.tick(now: Self.t0 + 6).published(stateTopic))
    }

    @Test("health says how many devices the bridge has once they change (the bridge's Devices sensor reads it)")
    func healthCountsDevices() throws {
        var (state, effects) = try Self.described(try Self.export())
        let health = try #require(effects.last("traitbridge/bridge/health"), "the tick after the list says so")
        #expect(health["devices"]?["all"]?.int64 == 3)
        #expect(!state.tick(now: Self.t0 + 3).published("traitbridge/bridge/health"), "unchanged: not again")
    }

    @Test("Home Assistant's birth message publishes every config again; its will changes nothing")
    func birthRepublishes() throws {
        var (state, _) = try Self.described(try Self.export())
        let offline = state.receive("homeassistant/status", "offline")
        #expect(offline.publications.isEmpty)
        let online = state.receive("homeassistant/status", "online", at: Self.t0 + 10)
        #expect(online.published(Self.bridgeTopic))
        let next = state.tick(now: Self.t0 + 10.1)
        for id in [EngineFixtures.light, EngineFixtures.climate, EngineFixtures.relay] {
            #expect(next.published(Self.topic(id)), "the devices' configs at the next tick")
        }
    }

    @Test("a retained config of ours this run did not publish is cleared; ours and live ones are kept")
    func leftoversCleared() throws {
        var (state, _) = try Self.described(try Self.export())
        let stale = state.handleMessage(
            topic: Self.topic(try DeviceID("z2m-0xdead")), payload: Array("{}".utf8), now: Date(), isRetained: true)
        let cleared = try #require(stale.publications.first)
        #expect(
            cleared.topic == Self.topic(try DeviceID("z2m-0xdead")) && cleared.payload.isEmpty && cleared.isRetained)
        let kept = state.handleMessage(
            topic: Self.topic(EngineFixtures.light), payload: Array("{}".utf8), now: Date(), isRetained: true)
        #expect(kept.publications.isEmpty)
        let live = state.handleMessage(
            topic: Self.topic(try DeviceID("z2m-0xdead")), payload: Array("{}".utf8), now: Date(), isRetained: false)
        #expect(live.publications.isEmpty)
        let others = state.handleMessage(
            topic: "homeassistant/device/zigbee2mqtt_0x01/config", payload: Array("{}".utf8), now: Date(),
            isRetained: true)
        #expect(!others.publications.contains { $0.topic.hasPrefix("homeassistant/") })
    }

    @Test("a device gone from the list has its config cleared")
    func removedDeviceCleared() throws {
        var (state, _) = try Self.described(try Self.export())
        let fewer = try JSONDocument.parse(EngineFixtures.devicesPayload).root.elements.filter {
            $0["ieee_address"]?.string != "0x00158d0001000003"
        }
        let payload = JSONValue.array(fewer.map(\.value)).serializedBytes()
        let effects = state.handleMessage(topic: "zigbee2mqtt/bridge/devices", payload: payload, now: Self.t0 + 2)
        let cleared = try #require(effects.publications.last { $0.topic == Self.topic(EngineFixtures.relay) })
        #expect(cleared.payload.isEmpty && cleared.isRetained)
    }

    @Test("excluded devices and skipped sources are not given; disabled, every config of ours is cleared")
    func notGiven() throws {
        let rules = ExportRules(exclude: .init(ids: [EngineFixtures.light.rawValue]))
        let (_, effects) = try Self.described(try Self.export(rules: rules))
        #expect(!effects.published(Self.topic(EngineFixtures.light)))
        #expect(effects.published(Self.topic(EngineFixtures.climate)))
        let (_, skipped) = try Self.described(try Self.export(skipped: ["zigbee2mqtt"]))
        #expect(!skipped.publications.contains { $0.topic.hasPrefix("homeassistant/device/traitbridge_z2m") })
        var (disabled, nothing) = try Self.described(try Self.export(enabled: false))
        #expect(!nothing.publications.contains { $0.topic.hasPrefix("homeassistant/") })
        let old = disabled.handleMessage(
            topic: Self.topic(EngineFixtures.light), payload: Array("{}".utf8), now: Date(), isRetained: true)
        #expect(old.publications.first?.payload.isEmpty == true)
    }

    @Test("a device only Home Assistant's discovery brought is not given back, and our configs are not read as devices")
    func noLoop() throws {
        var (state, _) = try Self.described(try Self.export(), withHomeAssistant: true)
        let before = state.graph.devices.count
        let ours = state.handleMessage(
            topic: Self.topic(EngineFixtures.light),
            payload: Array(
                (#"{"device":{"identifiers":["traitbridge_x"],"name":"X"},"origin":{"name":"TraitBridge"},"#
                    + #""components":{"a":{"platform":"switch","unique_id":"u1","command_topic":"c"}}}"#).utf8),
            now: Date(), isRetained: true)
        #expect(state.graph.devices.count == before)
        #expect(ours.publications.isEmpty)
        let theirs = state.receive(
            "homeassistant/switch/plug1/config",
            #"{"name":"Plug","unique_id":"plug1","command_topic":"plugs/1/set","state_topic":"plugs/1","#
                + #""device":{"identifiers":["plug1"],"name":"Garden plug"}}"#)
        #expect(state.graph.devices.count == before + 1)
        #expect(!theirs.publications.contains { $0.topic.hasPrefix("homeassistant/device/") })
    }
}
