import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// What a node's owner keeps across a restart (``NodeSnapshot``), in datagrams: a controller's CASE
/// leaves a resumption record in the snapshot; a node started again from it answers that controller's
/// resuming Sigma1 with Sigma2_Resume (one started without it: a full Sigma2); a record made under a NOC
/// UpdateNOC has not committed is not kept.
@Suite("Matter node: what a restart keeps")
struct MatterNodeSnapshotTests {
    typealias Update = MatterNodeUpdateNOCTests

    @Test("a CASE's resumption record is in the snapshot; a node restored from it resumes, a bare one does not")
    func restartResumes() throws {
        var harness = try Update.harness()
        var controller = try Update.controller(3, harness)
        #expect(harness.node.snapshot.resumptions.isEmpty)
        try controller.establish(&harness, exchange: 0x200)
        let kept = harness.node.snapshot
        #expect(kept.resumptions.count == 1 && kept.resumptions.first?.fabricIndex == 1)
        #expect(kept.resumptions.first?.peerNodeID == CASEController.nodeID)
        #expect(kept.commissioning.fabrics.map(\.index) == [1])
        #expect(!"\(kept)".contains("\(kept.resumptions[0].sharedSecret)"), "the snapshot never prints a secret")

        var bare = try Update.harness()
        #expect(try controller.resumptionAnswer(&bare, exchange: 0x202) == .caseSigma2)
        var restarted = try Update.harness()
        restarted.node.restoreResumptions(kept.resumptions)
        #expect(restarted.node.snapshot.resumptions == kept.resumptions)
        #expect(try controller.resumptionAnswer(&restarted, exchange: 0x202) == .caseSigma2Resume)
    }

    @Test("records of a fabric the node does not hold are not restored")
    func otherFabric() throws {
        var harness = try Update.harness()
        var controller = try Update.controller(3, harness)
        try controller.establish(&harness, exchange: 0x200)
        let record = try #require(harness.node.snapshot.resumptions.first)
        let elsewhere = try #require(
            ResumptionStore.Record(
                restoring: record.resumptionID, sharedSecret: record.sharedSecret, peerNodeID: record.peerNodeID,
                peerCASEAuthenticatedTags: record.peerCASEAuthenticatedTags, fabricIndex: 2))
        var restarted = try Update.harness()
        restarted.node.restoreResumptions([elsewhere])
        #expect(restarted.node.resumptionRecords.isEmpty)
        #expect(try controller.resumptionAnswer(&restarted, exchange: 0x202) == .caseSigma2)
    }

    @Test("while UpdateNOC waits for CommissioningComplete, the fabric's new records are held, not kept")
    func pendingUpdate() throws {
        var harness = try Update.harness()
        var first = try Update.controller(2, harness)
        try first.establish(&harness, exchange: 0x100)
        _ = try Update.update(&first, &harness)
        var next = try Update.controller(4, harness)
        try next.establish(&harness, exchange: 0x300)
        #expect(harness.node.resumptionRecords.count == 1, "the session on the new NOC is resumable now")
        #expect(harness.node.snapshot.resumptions.isEmpty, "but a restart would find the old NOC")
        // CommissioningComplete commits the NOC: its record is kept from then on.
        let (_, replies) = try next.invoke(
            cluster: 0x30, command: 0x04, .contextStructure([:]), exchange: 0x301, &harness)
        _ = try next.acknowledge(try #require(replies.only), exchange: 0x301, &harness)
        #expect(harness.node.snapshot.resumptions.count == 1)
    }
}

extension MatterNodeSnapshotTests {
    @Test("NodeLabel and Location a controller writes are in the snapshot; a node started from it serves them")
    func labels() throws {
        var harness = try Update.harness()
        var controller = try Update.controller(3, harness)
        try controller.establish(&harness, exchange: 0x200)
        #expect(harness.node.snapshot.nodeLabel == "" && harness.node.snapshot.location == "XX")
        let writes = [(UInt32(5), "Kitchen"), (6, "DE")].map { attribute, text in
            AttributeData(
                path: AttributePath(ConcreteAttributePath(endpoint: 0, cluster: 0x28, attribute: attribute)),
                data: .string(text), dataVersion: nil)
        }
        let effects = try controller.send(
            .interactionModel, opcode: InteractionModelOpcode.writeRequest.rawValue,
            WriteRequest(writeRequests: writes).encoded, exchange: 0x201, &harness)
        let response = try #require(try controller.open(effects).only, "\(effects.logs)")
        #expect(response.protocolHeader.opcode == InteractionModelOpcode.writeResponse.rawValue)
        let kept = harness.node.snapshot
        #expect(kept.nodeLabel == "Kitchen" && kept.location == "DE")

        // Started again: the kept labels take the place of the configured ones; none kept, the configured.
        var configured = DeviceInformation()
        configured.nodeLabel = "Hall bridge"
        let root = RootEndpoint(information: kept.applied(to: configured))
        let access = RootEndpoint.FabricAccess(accessingFabricIndex: 1, isFabricFiltered: true)
        #expect(try root.read(endpoint: 0, cluster: 0x28, attribute: 5, fabric: access).get() == .string("Kitchen"))
        #expect(try root.read(endpoint: 0, cluster: 0x28, attribute: 6, fabric: access).get() == .string("DE"))
        #expect(NodeSnapshot().applied(to: configured) == configured)
    }
}
