import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// The config file's source sections, read by their families through the registry: defaults,
/// each family's settings, turning a family off, several instances, and mistakes at their path.
@Suite("Source registry: config sections and plug-ins")
struct SourceRegistryTests {
    let registry = SourceRegistry.standard

    func read(_ key: String, _ text: String, into instances: [SourceInstance]? = nil) throws -> [SourceInstance] {
        let section = try JSONDocument.parse(Array(text.utf8)).root
        return try #require(
            try registry.reading(
                section, key: key, at: JSONPath.root.appending(key), into: instances ?? registry.defaultInstances))
    }

    func problem(_ key: String, _ text: String) throws -> String? {
        do {
            _ = try read(key, text)
            return nil
        } catch let error as SourceSettingsError {
            return error.description
        }
    }

    @Test(
        "with no section: zigbee2mqtt, Tasmota, Home Assistant, Shelly, generic mappings; no Matter Server, no Frigate"
    )
    func defaults() {
        #expect(
            registry.defaultInstances.map(\.family) == ["zigbee2mqtt", "tasmota", "homeassistant", "shelly", "generic"])
        #expect(registry.configKeys == ["zigbee2mqtt", "tasmota", "homeAssistant", "shelly", "matter", "frigate"])
    }

    @Test("each family's section becomes its own settings; the other families keep theirs")
    func sections() throws {
        let networks = try read(
            "zigbee2mqtt",
            #"[{"baseTopic": "z2m-down", "mainsStalenessSeconds": 300, "deviceStalenessSeconds": {"0x1": 60}},"#
                + #" {"baseTopic": "z2m-up", "instance": "upstairs", "locality": "direct"}]"#)
        let z2m = networks.filter { $0.family == "zigbee2mqtt" }
        #expect(z2m.map(\.name) == ["default", "upstairs"])
        #expect(z2m.map(\.locality) == [nil, .direct])
        let down = try #require(z2m.first?.settings as? Zigbee2MQTTFamily.Settings)
        #expect(down.baseTopic == "z2m-down" && down.mainsStaleness == .seconds(300))
        #expect(down.deviceStaleness == ["0x1": .seconds(60)])
        #expect(
            networks.filter { $0.family != "zigbee2mqtt" }.map(\.family) == [
                "tasmota", "homeassistant", "shelly", "generic",
            ])

        let tasmota = try read("tasmota", #"{"discoveryPrefix": "tas/disc/", "stalenessSeconds": 60}"#)
        let settings = try #require(tasmota.first { $0.family == "tasmota" }?.settings as? TasmotaFamily.Settings)
        #expect(settings.discoveryPrefix == "tas/disc/" && settings.staleness == .seconds(60))

        #expect(try read("shelly", #"{"enabled": false}"#).contains { $0.family == "shelly" } == false)
        #expect(try read("homeAssistant", #"{"enabled": false}"#).contains { $0.family == "homeassistant" } == false)

        let matter = try read("matter", #"[{"url": "ws://a:5580/ws"}, {"url": "wss://b/ws", "instance": "up"}]"#)
        #expect(MatterFamily.servers(in: matter).map(\.instance) == ["default", "up"])
        #expect(MatterFamily.servers(in: matter).map(\.url) == ["ws://a:5580/ws", "wss://b/ws"])
        #expect(matter.filter { $0.family == "matter" }.allSatisfy { $0.locality == .localPeer })
    }

    @Test("a frigate section: its settings, two instances, and mistakes at their path")
    func frigate() throws {
        let one = try read(
            "frigate", #"{"topicPrefix": "nvr", "go2rtc": "http://127.0.0.1:1984/", "maxEventSeconds": 60}"#)
        let frigate = try #require(one.first { $0.family == "frigate" })
        let settings = try #require(frigate.settings as? FrigateFamily.Settings)
        #expect(
            settings.topicPrefix == "nvr" && settings.go2rtc == "http://127.0.0.1:1984"
                && settings.maxEventSeconds == 60)
        let two = try read("frigate", #"[{"instance": "a"}, {"instance": "b", "topicPrefix": "frigate2"}]"#)
        #expect(two.filter { $0.family == "frigate" }.map(\.name) == ["a", "b"])
        for (text, expected) in [
            (#"{"go2rtc": "ftp://x"}"#, "frigate.go2rtc: expected go2rtc's API as an http(s) URL"),
            (#"{"go2rtc": "http://x/?src=a"}"#, "frigate.go2rtc: expected go2rtc's API as an http(s) URL"),
            (#"{"instance": "a+b"}"#, "frigate.instance: expected a non-empty string without + or #"),
            (#"[{"instance": "a"}, {"instance": "b"}]"#, "frigate[1].topicPrefix: topicPrefix 'frigate' is used"),
            (#"{"cameras": {}}"#, "frigate.cameras: unknown key 'cameras'"),
        ] {
            let said = try problem("frigate", text)
            #expect(said?.hasPrefix(expected) == true, "\(text): \(said ?? "no problem")")
        }
    }

    @Test("mistakes are named by their JSON path and say what is allowed")
    func mistakes() throws {
        #expect(
            try problem("zigbee2mqtt", #"{"basetopic": "z"}"#)?.hasPrefix("zigbee2mqtt.basetopic: unknown key") == true)
        #expect(
            try problem("zigbee2mqtt", #"{"deviceStalenessSeconds": 5}"#)
                == "zigbee2mqtt.deviceStalenessSeconds: expected an object of device → seconds")
        #expect(
            try problem("tasmota", #"{"stalenessSeconds": 99999999999}"#)
                == "tasmota.stalenessSeconds: expected a whole number of seconds > 0 (at most 31536000, a year)")
        #expect(
            try problem("matter", #"[{"url": "ws://a/ws"}, {"url": "ws://b/ws"}]"#)
                == "matter[1].instance: instance 'default' is used by another matter section; give each its own")
        #expect(try problem("matter", #"{"instance": "x"}"#) == #"matter: "url" is required: ws://127.0.0.1:5580/ws"#)
        for url in ["ws://127.0.0.1:5580/ws ", "ws://host:5580/\nws", "ws://ho st/ws"] {
            #expect(
                MatterFamily.urlProblem(url)
                    == "the URL has a space or a control character in it; write it as ws://HOST:5580/ws", "\(url)")
        }
        #expect(
            try problem("matter", #"{"url": "http://a"}"#)
                == "matter.url: expected a WebSocket URL such as ws://127.0.0.1:5580/ws (the Matter Server's default)")
        #expect(
            try problem("shelly", #"{"locality": "near"}"#)
                == "shelly.locality: locality must be one of direct, localPeer, remote")
        #expect(
            try registry.reading(JSONDocument.parse(Array("null".utf8)).root, key: "nope", at: .root, into: []) == nil,
            "not a source section")
    }

    @Test("plug-ins come in the registry's claim order; Home Assistant skips what the families before it publish")
    func plugins() throws {
        let mappings = SourceFixtures.repository + "/mappings"
        let catalog = try CatalogLoader.load(mappingsDirectory: mappings)
        let tables = try registry.loadTables(mappingsDirectory: mappings, catalog: catalog)
        let instances = registry.defaultInstances.reversed() + [.matter(url: "ws://127.0.0.1:5580/ws")]
        let plugins = registry.plugins(
            for: instances, tables: tables, catalog: catalog, bridgePrefix: "tb", defaultLocality: .remote)
        #expect(plugins.map(\.family) == ["zigbee2mqtt", "tasmota", "homeassistant", "shelly", "matter"])
        #expect(plugins.map(\.locality) == [.remote, .remote, .remote, .remote, .localPeer])
        let homeAssistant = try #require(plugins[2] as? HADiscoveryPlugin)
        // …and never TraitBridge's own discovery (this bridge's, or another's).
        #expect(homeAssistant.skippedOrigins == ["zigbee2mqtt", "tasmota", "traitbridge"])
        #expect(
            registry.plugins(for: instances, tables: SourceTables(), catalog: catalog, bridgePrefix: "tb").map(\.family)
                == ["matter"],
            "a family whose table was not read makes no plug-in")
    }
}
