import Foundation
import Testing
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// The conformance drivers of ``SourceConformanceTests``, run against the plug-ins themselves:
/// no engine, no graph, no broker. A small host plays the engine's part of the contract (route
/// table, claim test, kept messages, replays) and records the events, so each assertion is about
/// what the plug-in says, in the boundary's own terms.
@Suite("Source plug-in conformance (no engine)")
struct SourcePluginConformanceTests {
    typealias Driver = SourceConformanceTests.Driver

    /// The engine's side of the boundary, in memory.
    struct Host {
        var plugin: any SourcePlugin
        var routes: Set<String> = []
        var kept: [String: [UInt8]] = [:]
        var subscriptions: [String]
        var events: [SourceEvent] = []

        init(_ plugin: any SourcePlugin) {
            self.plugin = plugin
            self.subscriptions = plugin.subscriptions
            var started: [SourceEvent] = []
            self.plugin.start(into: &started)
            for event in started { if case .route(let topics) = event { routes.formUnion(topics) } }
            events = started
        }

        /// Delivers a message as the engine would; `false` when no route names it and the plug-in
        /// does not claim it. Returns the events of this message (replays included).
        @discardableResult
        mutating func receive(_ topic: String, _ payload: String) -> [SourceEvent] {
            deliver(topic, Array(payload.utf8))
        }

        private mutating func deliver(_ topic: String, _ payload: [UInt8]) -> [SourceEvent] {
            guard routes.contains(topic) || plugin.claims(topic) else { return [] }
            var produced: [SourceEvent] = []
            plugin.receive(SourceMessage(topic: topic, payload: payload, now: Date()), into: &produced)
            var all = produced
            for event in produced {
                switch event {
                case .route(let topics): routes.formUnion(topics)
                case .unroute(let topics): routes.subtract(topics)
                case .subscribe(let filters): subscriptions += filters
                case .keepUntilKnown: kept[topic] = payload
                case .replay(let topics):
                    for waiting in topics {
                        if let kept = kept.removeValue(forKey: waiting) { all += deliver(waiting, kept) }
                    }
                case .replayUnder(let prefix):
                    for waiting in kept.keys.sorted() where waiting.hasPrefix(prefix) {
                        if let kept = kept.removeValue(forKey: waiting) { all += deliver(waiting, kept) }
                    }
                default: break
                }
            }
            events += all
            return all
        }
    }

    /// The instance each driver's family runs as; its plug-in is made by the registry, as the engine makes it.
    static let instances: [String: SourceInstance] = [
        "zigbee2mqtt": .zigbee2mqtt(locality: .localPeer), "Tasmota": .tasmota(locality: .localPeer),
        "Shelly Gen1": .shelly(locality: .localPeer), "Shelly Gen2": .shelly(locality: .localPeer),
        "Home Assistant discovery": .homeAssistant(locality: .localPeer), "generic topics": .generic,
        "Matter Server": .matter(url: "ws://127.0.0.1:5580/ws"),
        "Frigate": .frigate(locality: .localPeer, go2rtc: "http://198.18.0.2:1984"),
        "sample": SourceInstance(family: "sample", locality: .localPeer, settings: SampleFamily.Settings()),
    ]

    /// The plug-in each driver's family is.
    static func plugin(for driver: Driver) throws -> (any SourcePlugin)? {
        guard let instance = instances[driver.name] else { return nil }
        var (catalog, tables) = try EngineFixtures.mappings.get()
        tables[GenericFamily().name] = try GenericDevicesLoader.load(
            mappingsDirectory: GenericSourceTests.fixtures + "/generic-mappings", catalog: catalog)
        return SampleSourceTests.registry.plugins(
            for: [instance], tables: tables, catalog: catalog, bridgePrefix: "traitbridge"
        ).first
    }

    static let drivers = SourceConformanceTests.drivers.filter { (try? plugin(for: $0)) != nil }

    func ready(_ driver: Driver) throws -> Host {
        var host = Host(try #require(try Self.plugin(for: driver)))
        for message in driver.discover { host.receive(message.topic, message.payload) }
        return host
    }

    func described(_ events: [SourceEvent]) -> [SourceDevice] {
        events.compactMap { if case .described(let device) = $0 { device } else { nil } }
    }

    func values(_ events: [SourceEvent]) -> [(DeviceID, [AttributeUpdate])] {
        events.compactMap { if case .values(let id, let updates, _) = $0 { (id, updates) } else { nil } }
    }

    @Test("every family of the engine's conformance suite is a plug-in tested here too")
    func coverage() {
        #expect(Self.drivers.map(\.name) == SourceConformanceTests.drivers.map(\.name))
    }

    @Test(
        "discovery describes the device once, every trait with this plug-in's source; the same again describes nothing",
        arguments: drivers)
    func discovery(_ driver: Driver) throws {
        var host = try ready(driver)
        let devices = described(host.events)
        let device = try #require(devices.first { $0.device.id.rawValue == driver.id }?.device)
        for address in device.traitAddresses {
            let source = device.trait(at: address)?.source
            #expect(
                source?.family == host.plugin.family && source?.instance == host.plugin.instance,
                "\(address): \(String(describing: source))")
        }
        #expect(host.plugin.deviceIDs.map(\.rawValue).contains(driver.id))
        var again: [SourceEvent] = []
        for message in driver.discover { again += host.receive(message.topic, message.payload) }
        #expect(described(again).isEmpty, "an unchanged device is not described again")
    }

    @Test(
        "every topic it routes is one it subscribed to",
        arguments: drivers.filter { (try? plugin(for: $0))??.channel == nil })
    func routesAreSubscribed(_ driver: Driver) throws {
        var host = try ready(driver)
        host.receive(driver.value.topic, driver.value.payload)
        host.receive(driver.online.topic, driver.online.payload)
        #expect(!host.routes.isEmpty)
        for topic in host.routes {
            #expect(
                host.subscriptions.contains { MQTTTopicFilter.matches($0, topic) },
                "\(topic) is routed but not subscribed")
        }
    }

    @Test("a value message becomes the driver's attribute update on the device", arguments: drivers)
    func value(_ driver: Driver) throws {
        var host = try ready(driver)
        let events = host.receive(driver.value.topic, driver.value.payload)
        let at = driver.valueAt
        let updates = values(events).filter { $0.0.rawValue == driver.id }.flatMap(\.1)
        #expect(
            updates.contains {
                $0.address == TraitAddress(deviceTypeKey: at.key, traitID: .matter(at.trait))
                    && $0.attribute == at.attribute && $0.value == at.value
            }, "\(updates)")
    }

    @Test("the device's own word: online, offline", arguments: drivers)
    func availability(_ driver: Driver) throws {
        var host = try ready(driver)
        let words = [
            host.receive(driver.online.topic, driver.online.payload),
            host.receive(driver.offline.topic, driver.offline.payload),
        ]
        .map { events in
            events.compactMap {
                if case .availability(let reference, let isOnline, _) = $0 { (reference, isOnline) } else { nil }
            }
        }
        #expect(words.map { $0.map(\.1) } == [[true], [false]])
        // The reference is one of the device's own: the engine finds the device by it.
        let device = try #require(described(host.events).first { $0.device.id.rawValue == driver.id }?.device)
        #expect(words.joined().allSatisfy { device.sources.contains($0.0) }, "\(words) vs \(device.sources)")
    }

    @Test("a malformed payload says why and changes no value; the next good one is taken", arguments: drivers)
    func malformed(_ driver: Driver) throws {
        var host = try ready(driver)
        let events = host.receive(driver.malformed.topic, driver.malformed.payload)
        #expect(values(events).allSatisfy { $0.1.isEmpty }, "\(events)")
        #expect(events.contains { if case .log = $0 { true } else { false } }, "the refusal is logged")
        let at = driver.valueAt
        #expect(
            values(host.receive(driver.value.topic, driver.value.payload)).flatMap(\.1).contains {
                $0.attribute == at.attribute && $0.value == at.value
            })
    }

    @Test(
        "a write becomes a message on the source's own command topic; a device it does not know is refused",
        arguments: drivers)
    func command(_ driver: Driver) throws {
        var host = try ready(driver)
        let at = driver.valueAt
        let write =
            driver.pluginWrite
            ?? AttributeUpdate(
                address: TraitAddress(deviceTypeKey: at.key, traitID: .matter(at.trait)), attribute: at.attribute,
                value: .bool(false))
        let sent = try host.plugin.commands(for: [write], on: try DeviceID(driver.id))
        #expect(sent.map(\.topic) == [driver.commandTopic])
        #expect(throws: SourceCommandError.self) {
            try host.plugin.commands(for: [write], on: try DeviceID("nobody-0"))
        }
    }

    @Test(
        "removal says removed and forgets the device's topics and commands",
        arguments: drivers.filter { $0.remove != nil })
    func removal(_ driver: Driver) throws {
        var host = try ready(driver)
        host.receive(driver.value.topic, driver.value.payload)
        var events: [SourceEvent] = []
        for message in driver.remove ?? [] { events += host.receive(message.topic, message.payload) }
        #expect(events.contains { if case .removed(let id, _) = $0 { id.rawValue == driver.id } else { false } })
        #expect(!host.plugin.deviceIDs.map(\.rawValue).contains(driver.id))
        #expect(!host.routes.contains(driver.value.topic))
        let at = driver.valueAt
        let write = AttributeUpdate(
            address: TraitAddress(deviceTypeKey: at.key, traitID: .matter(at.trait)), attribute: at.attribute,
            value: .bool(false))
        #expect(throws: SourceCommandError.self) { try host.plugin.commands(for: [write], on: try DeviceID(driver.id)) }
    }

    @Test(
        "a message before its device is kept, then given back once the device is described",
        arguments: drivers.filter { $0.early != nil })
    func early(_ driver: Driver) throws {
        let early = try #require(driver.early)
        var host = Host(try #require(try Self.plugin(for: driver)))
        let first = host.receive(early.message.topic, early.message.payload)
        #expect(first.contains { if case .keepUntilKnown = $0 { true } else { false } }, "\(first)")
        for message in driver.discover { host.receive(message.topic, message.payload) }
        #expect(host.kept[early.message.topic] == nil, "the kept message was replayed")
    }

    @Test(
        "hostile payloads on every topic it takes: no trap, and the device still reads values after", arguments: drivers
    )
    func hostile(_ driver: Driver) throws {
        var host = try ready(driver)
        let payloads = [
            "", "null", "[]", "{}", "\u{0}", "{\"state\":1e999}", String(repeating: "[", count: 500),
            "{\"a\":\"\u{FFFD}\"}",
            "-0", "99999999999999999999999", #"{"POWER":{"POWER":[]}}"#, #"{"src":7,"params":"x"}"#, "true", "\"ON\"",
        ]
        for topic in Set(host.routes + driver.discover.map(\.topic) + [driver.value.topic, driver.online.topic])
        where topic != driver.remove?.first?.topic {
            for payload in payloads { host.receive(topic, payload) }
        }
        for message in driver.discover { host.receive(message.topic, message.payload) }
        let at = driver.valueAt
        #expect(
            values(host.receive(driver.value.topic, driver.value.payload)).flatMap(\.1).contains {
                $0.attribute == at.attribute && $0.value == at.value
            })
    }
}
