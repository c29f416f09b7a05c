import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// A new source is its folder, one registry line and its conformance driver: the sample family
/// is added that way and nothing else, and runs the whole conformance suite (its driver is in
/// ``SourceConformanceTests/drivers``, its plug-in in ``SourcePluginConformanceTests``).
@Suite("A source added by its folder, one registry line and its driver")
struct SampleSourceTests {
    /// The registry line.
    static let registry = SourceRegistry.standard.adding(SampleFamily())

    static func section(_ text: String) throws -> JSON { try JSONDocument.parse(Array(text.utf8)).root }

    /// A bridge reading the sample family, configured as the config file's `sample` section would.
    static func state() throws -> BridgeState {
        let (catalog, tables) = try EngineFixtures.mappings.get()
        var configuration = BridgeConfiguration(brokerDescription: "mqtt://127.0.0.1:1883")
        configuration.sourceRegistry = registry
        configuration.sources = try #require(
            try registry.reading(
                section(#"{"prefix": "sample", "locality": "localPeer"}"#), key: "sample",
                at: JSONPath.root.appending("sample"), into: []))
        return BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
    }

    @Test("its config section is read by its family, a mistake named at its path; other sections are left alone")
    func configSection() throws {
        let defaults = Self.registry.defaultInstances
        let read = try #require(
            try Self.registry.reading(
                Self.section(#"{"prefix": "things/plugs"}"#), key: "sample", at: JSONPath.root.appending("sample"),
                into: defaults))
        #expect(read.map(\.family) == defaults.map(\.family) + ["sample"])
        #expect((read.last?.settings as? SampleFamily.Settings)?.prefix == "things/plugs")
        #expect(
            throws: SourceSettingsError(
                JSONPath.root.appending("sample").appending("prefix"),
                "expected a non-empty topic prefix without + or # and without a trailing /")
        ) {
            try Self.registry.reading(
                Self.section(#"{"prefix": "a/#"}"#), key: "sample", at: JSONPath.root.appending("sample"), into: [])
        }
        #expect(
            try SourceRegistry.standard.reading(Self.section("{}"), key: "sample", at: .root, into: []) == nil,
            "the shipped registry does not know it")
    }

    @Test("an instance of a family the registry does not know is not read, and the start says so")
    func unknownFamily() throws {
        let (catalog, tables) = try EngineFixtures.mappings.get()
        let configuration = BridgeConfiguration(
            brokerDescription: "mqtt://127.0.0.1:1883",
            sources: [SourceInstance(family: "sample", settings: SampleFamily.Settings())])
        let state = BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        #expect(state.subscriptions.allSatisfy { !$0.hasPrefix("sample/") })
        #expect(
            state.startLogs.contains {
                $0.message.hasPrefix("source instance 'default' of family 'sample' is not read: no family")
            }, "\(state.startLogs)")
    }

    @Test("the engine makes its plug-in from the registry it is given, after the shipped families in claim order")
    func pluginsInOrder() throws {
        let (catalog, tables) = try EngineFixtures.mappings.get()
        let instances =
            Self.registry.defaultInstances + [SourceInstance(family: "sample", settings: SampleFamily.Settings())]
        let plugins = Self.registry.plugins(
            for: instances.reversed(), tables: tables, catalog: catalog, bridgePrefix: "tb")
        #expect(
            plugins.map(\.family) == ["zigbee2mqtt", "tasmota", "homeassistant", "shelly", "sample"],
            "the generic family has no device in the shipped mappings, so no plug-in")
        var state = try Self.state()
        _ = state.brokerConnected(now: Date())
        #expect(state.subscriptions.contains("sample/#"))
        _ = state.receive("sample/plug1/config", #"{"serial":"S-1","name":"Desk plug"}"#)
        #expect(state.graph.devices[try DeviceID("sample-s-1")]?.name == "Desk plug")
    }
}
