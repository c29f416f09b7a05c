import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The ACL written over CASE, as the SDK's write client sends a list (an empty list, then each entry
/// appended, in one message): the writer keeps its access while its own entry is away, the snapshot
/// keeps the ACL, and each change is an AccessControlEntryChanged event.
@Suite struct MatterNodeAccessControlTests {
    typealias Update = MatterNodeUpdateNOCTests

    static let acl = ConcreteAttributePath(endpoint: 0, cluster: ClusterID.accessControl, attribute: 0)

    static func entry(privilege: UInt64, subjects: [UInt64]) -> TLVValue {
        .contextStructure([
            1: .unsigned(privilege), 2: .unsigned(2), 3: .array(subjects.map { .unsigned($0) }), 4: .null,
            254: .unsigned(1),
        ])
    }

    @Test("an empty list, then two entries appended: written, kept in the snapshot, and three events")
    func listInParts() throws {
        var harness = try Update.harness()
        var controller = try Update.controller(3, harness)
        try controller.establish(&harness, exchange: 0x200)
        let writes = [
            AttributeData(path: AttributePath(Self.acl), data: .array([]), dataVersion: nil),
            AttributeData(
                path: AttributePath(Self.acl, listIndex: .append),
                data: Self.entry(privilege: 5, subjects: [CASEController.nodeID]), dataVersion: nil),
            AttributeData(
                path: AttributePath(Self.acl, listIndex: .append), data: Self.entry(privilege: 1, subjects: [0x77]),
                dataVersion: nil),
        ]
        let effects = try controller.send(
            .interactionModel, opcode: InteractionModelOpcode.writeRequest.rawValue,
            WriteRequest(writeRequests: writes).encoded, exchange: 0x201, &harness)
        let response = try #require(try controller.open(effects).only, "\(effects.logs)")
        // WriteResponse: 0 AttributeStatusIBs, each {0 path, 1 {0 status}}.
        guard case .array(let statuses)? = try TLVElement(decoding: response.payload).value[0] else {
            Issue.record("no statuses")
            return
        }
        #expect(statuses.map { $0[1]?[0] } == Array(repeating: .unsigned(0), count: 3), "\(statuses)")
        let kept = harness.node.snapshot.commissioning.accessControl
        #expect(kept.map(\.privilege) == [5, 1] && kept.map(\.subjects) == [[CASEController.nodeID], [0x77]])

        // Removed (AddNOC's entry), then added twice; read by the writer, who administers its fabric.
        let read = ReadRequest(
            attributeRequests: [], eventRequests: [EventPath(endpoint: 0, cluster: ClusterID.accessControl)],
            isFabricFiltered: true)
        let reply = try controller.send(
            .interactionModel, opcode: InteractionModelOpcode.readRequest.rawValue, read.encoded, exchange: 0x202,
            &harness)
        let report = try #require(try controller.open(reply).only)
        guard case .array(let events)? = try TLVElement(decoding: report.payload).value[2] else {
            Issue.record("no event")
            return
        }
        // EventData: 7 data {1 AdminNodeID, 2 AdminPasscodeID, 3 ChangeType, 4 LatestValue, 254 FabricIndex}.
        let data = events.compactMap { $0[1]?[7] }
        #expect(data.map { $0[3] } == [.unsigned(2), .unsigned(1), .unsigned(1)], "\(events)")
        #expect(
            data.allSatisfy { $0[1] == .unsigned(CASEController.nodeID) && $0[2] == .null && $0[254] == .unsigned(1) })
    }
}
