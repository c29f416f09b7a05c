import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// The Matter source through the engine: a Matter node and its Cloud-to-cloud twin (the same
/// `matterUniqueId`, as Google deduplicates) are one device with traits from both paths, and a
/// command takes the Matter path while the node is reachable, the cloud's when it is not.
@Suite("Matter through the engine")
struct MatterBridgeStateTests {
    typealias Conformance = SourceConformanceTests

    static func ready() throws -> BridgeState {
        var state = try EngineFixtures.state(withCloud: true, withMatter: true)
        _ = state.brokerConnected(now: Date())
        _ = state.receive("matter/default/server", #"{"connected":true,"url":"ws://127.0.0.1:5580/ws"}"#)
        _ = state.receive("matter/default/message", #"{"schema_version":11,"min_supported_schema_version":9}"#)
        _ = state.receive(
            "matter/default/message", #"{"message_id":"start-1","result":[\#(Conformance.matterNode())]}"#)
        return state
    }

    static let sync =
        #"{"requestId":"s","payload":{"agentUserId":"u","devices":[{"id":"cloud-lamp","type":"action.devices.types.LIGHT","traits":["action.devices.traits.OnOff"],"name":{"name":"Lamp (cloud)"},"willReportState":true,"matterUniqueId":"ACME-0001","matterOriginalVendorId":"0xFFF1","matterOriginalProductId":"0x8000"}]}}"#

    @Test("the Matter node and the SYNC device with its matterUniqueId are one device, locality mixed")
    func merged() throws {
        var state = try Self.ready()
        let lamp = try DeviceID("matter-7")
        #expect(state.graph.devices[lamp]?.identity.uniqueID == "ACME-0001")
        let imported = state.receive("traitbridge/bridge/request/sync-import/s1", Self.sync)
        let answer = try #require(imported.last("traitbridge/bridge/response/sync-import/s1"))
        #expect(answer[path: "imported[0].device"]?.string == "matter-7", "\(answer)")
        _ = state.receive(
            "traitbridge/cloud/response",
            #"{"requestId":"q","payload":{"devices":{"cloud-lamp":{"online":true,"status":"SUCCESS","on":false}}}}"#)
        let device = try #require(state.graph.devices[lamp])
        #expect(state.graph.devices.count == 1, "no second device for the same lamp")
        #expect(device.deviceTypes.map(\.key).sorted() == ["ep1", "light"])
        #expect(device.sourceConnectivity.dataSourceLocality == .mixed)
        let matterTrait = try #require(device.trait(at: .init(deviceTypeKey: "ep1", traitID: .matter("OnOff"))))
        #expect(matterTrait.connectivity.locality == .localPeer && matterTrait.source?.family == "matter")
    }

    @Test("a command goes the Matter way while the node is reachable, the cloud way when it is not")
    func nearestPath() throws {
        var state = try Self.ready()
        _ = state.receive("traitbridge/bridge/request/sync-import/s1", Self.sync)
        _ = state.receive(
            "traitbridge/cloud/response",
            #"{"requestId":"q","payload":{"devices":{"cloud-lamp":{"online":true,"status":"SUCCESS","on":false}}}}"#)
        let set = "traitbridge/devices/matter-7/set"
        let local = state.receive(set, #"{"trait":"matter.OnOff","command":"on"}"#)
        let command = try #require(local.publications.first { $0.topic == "matter/default/command" })
        #expect(command.channel == "matter/default", "to the Matter Server, not the broker")
        #expect(String(decoding: command.payload, as: UTF8.self).contains(#""command_name":"On""#))
        #expect(!local.published("traitbridge/cloud/execute"))

        _ = state.receive(
            "matter/default/message", #"{"event":"node_updated","data":\#(Conformance.matterNode(available: false))}"#)
        let remote = state.receive(set, #"{"trait":"matter.OnOff","command":"off"}"#)
        #expect(!remote.published("matter/default/command"), "the Matter path is offline")
        let execute = try #require(remote.last("traitbridge/cloud/execute"), "the cloud path takes it")
        #expect(execute[path: "inputs[0].payload.commands[0].devices[0].id"]?.string == "cloud-lamp")
    }

    @Test("two nodes sharing a placeholder UniqueID stay two devices; a SYNC with that placeholder joins neither")
    func placeholderNeverMerges() throws {
        var state = try EngineFixtures.state(withCloud: true, withMatter: true)
        _ = state.brokerConnected(now: Date())
        _ = state.receive("matter/default/server", #"{"connected":true,"url":"ws://h/ws"}"#)
        _ = state.receive("matter/default/message", #"{"schema_version":11}"#)
        let first = Conformance.matterNode().replacingOccurrences(of: "ACME-0001", with: "**REDACTED**")
        let second = first.replacingOccurrences(of: #""node_id":7"#, with: #""node_id":8"#)
        _ = state.receive("matter/default/message", #"{"message_id":"start-1","result":[\#(first),\#(second)]}"#)
        #expect(state.graph.devices.count == 2)
        let sync = Self.sync.replacingOccurrences(of: "ACME-0001", with: "**REDACTED**")
        _ = state.receive("traitbridge/bridge/request/sync-import/s2", sync)
        #expect(state.graph.devices.count == 3, "the cloud device stands alone")
    }
}
