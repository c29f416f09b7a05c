import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// Two instances of one family are two plug-ins: two zigbee2mqtt networks on one broker, each
/// with its base topic, its own bridge as the parent of its devices, and its own command topics.
@Suite("Several instances of a source family")
struct SourceInstancesTests {
    func state() throws -> BridgeState {
        let (catalog, tables) = try EngineFixtures.mappings.get()
        let configuration = BridgeConfiguration(
            brokerDescription: "mqtt://127.0.0.1:1883",
            sources: [
                .zigbee2mqtt(locality: .localPeer),
                .zigbee2mqtt(name: "upstairs", baseTopic: "z2m-upstairs", locality: .direct),
            ])
        var state = BridgeState(
            configuration: configuration, catalog: catalog, tables: tables, graph: try HomeGraph(), now: Date())
        _ = state.brokerConnected(now: Date())
        return state
    }

    /// The fixture list with other addresses and names, for the second network.
    static let upstairsList = String(decoding: EngineFixtures.devicesPayload, as: UTF8.self)
        .replacingOccurrences(of: "0x00158d00010000", with: "0x00158d00020000")
        .replacingOccurrences(of: "Hall light", with: "Landing light")

    @Test("each network's devices come from its own list, with its instance, locality and command topic")
    func twoNetworks() throws {
        var state = try state()
        #expect(state.subscriptions.contains("zigbee2mqtt/#") && state.subscriptions.contains("z2m-upstairs/#"))
        _ = state.receive("zigbee2mqtt/bridge/devices", String(decoding: EngineFixtures.devicesPayload, as: UTF8.self))
        _ = state.receive("z2m-upstairs/bridge/devices", Self.upstairsList)
        let landing = try DeviceID("z2m-0x00158d0002000001")
        let hall = EngineFixtures.light
        #expect(state.graph.devices.count == 6)
        #expect(state.graph.devices[landing]?.sources.map(\.instance) == ["upstairs"])
        #expect(state.graph.devices[hall]?.sources.map(\.instance) == ["default"])

        _ = state.receive("z2m-upstairs/Landing light", #"{"state":"ON"}"#)
        let onOff = TraitAddress(deviceTypeKey: "light", traitID: .matter("OnOff"))
        #expect(state.graph.devices[landing]?.trait(at: onOff)?.attributes["onOff"] == .bool(true))
        #expect(state.graph.devices[landing]?.trait(at: onOff)?.connectivity.locality == .direct)
        #expect(
            state.graph.devices[hall]?.trait(at: onOff)?.attributes["onOff"] == nil,
            "a message of one network never feeds the other")

        let sent = state.receive(
            "traitbridge/devices/\(landing.rawValue)/set", #"{"trait":"matter.OnOff","command":"off"}"#)
        #expect(sent.published("z2m-upstairs/Landing light/set"), "\(sent.publications.map(\.topic))")
        #expect(!sent.published("zigbee2mqtt/Landing light/set"))
    }

    @Test("one network's bridge going offline takes only its own devices offline")
    func parentPerInstance() throws {
        var state = try state()
        _ = state.receive("zigbee2mqtt/bridge/devices", String(decoding: EngineFixtures.devicesPayload, as: UTF8.self))
        _ = state.receive("z2m-upstairs/bridge/devices", Self.upstairsList)
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON"}"#)
        _ = state.receive("z2m-upstairs/Landing light", #"{"state":"ON"}"#)
        _ = state.receive("z2m-upstairs/bridge/state", #"{"state":"offline"}"#)
        let onOff = TraitAddress(deviceTypeKey: "light", traitID: .matter("OnOff"))
        let landing = try #require(
            state.graph.devices[try DeviceID("z2m-0x00158d0002000001")]?.trait(at: onOff)?.connectivity)
        let hall = try #require(state.graph.devices[EngineFixtures.light]?.trait(at: onOff)?.connectivity)
        #expect(landing.state == .offline)
        #expect(
            landing.reason?.description.contains("z2m-upstairs/bridge/state") == true,
            "\(String(describing: landing.reason))")
        #expect(hall.state == .online)
        let health = try JSONDocument.parse(state.healthPayload()).root
        #expect(health["devices"]?["zigbee2mqtt"]?.int64 == 3 && health["devices"]?["zigbee2mqtt/upstairs"]?.int64 == 3)
    }
}
