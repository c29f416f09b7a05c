import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCredentials
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

@testable import TraitBridgeMatterCommissioning
@testable import TraitBridgeMatterDevice

/// UpdateNOC's effect on the node's CASE sessions and resumption records, in datagrams, as
/// connectedhomeip does it (see `MatterNode+FabricSessions.swift`): on success the fabric's records go
/// and its sessions close, the invoking one once its NOCResponse is acknowledged; CommissioningComplete
/// then closes nothing; a rollback closes the sessions made since and forgets their records.
@Suite("Matter node: UpdateNOC and sessions")
struct MatterNodeUpdateNOCTests {
    typealias Certificates = MatterTestCertificates

    /// A node on fabric 1 as connectedhomeip's test `Node01_01` (under ICA01 and Root01), with an ACL entry
    /// making ``CASEController`` an administrator, and the fail-safe as ArmFailSafe and
    /// CSRRequest(IsForUpdateNOC) on fabric 1 leave it — but with the key of the fabric's own test NOC as
    /// the CSR's key, so that UpdateNOC can re-issue that NOC (these tests have no CA to sign a new one; the
    /// SDK treats a re-issued NOC as any other update).
    static func harness() throws -> NodeHarness {
        let stored = CommissioningSnapshot.StoredFabric(
            index: 1, rootCertificate: Certificates.root01TLV, intermediateCertificate: Certificates.ica01TLV,
            nodeCertificate: Certificates.node0101TLV, ipkEpochKey: [UInt8](repeating: 0x4A, count: 16),
            operationalKey: Certificates.node0101PrivateKey, vendorID: 0xFFF1, label: "")
        let admin = AccessControlEntry(
            privilege: AccessControlEntry.administer, authMode: AccessControlEntry.caseAuthMode,
            subjects: [CASEController.nodeID], fabricIndex: 1)
        var state = try CommissioningState(
            restoring: CommissioningSnapshot(fabrics: [stored], accessControl: [admin]))
        var harness = try NodeHarness()
        state.failSafe = FailSafe(
            fabricIndex: 1, deadline: harness.now + .seconds(60), cumulativeDeadline: harness.now + .seconds(900),
            pendingKey: state.fabric(1)?.operationalKey, isCSRForUpdateNOC: true)
        var generator = SeededGenerator(seed: 42)
        let setup = try MatterSetup(
            passcode: try SetupPasscode(NodeHarness.passcode), discriminator: 3840, vendorID: 0xFFF1,
            productID: 0x8001, using: &generator)
        harness.node = MatterNode(
            commissioning: try setup.commissioning(), isCommissioningWindowOpen: false,
            dataModel: NodeDataModel(root: RootEndpoint(state: state), endpoints: [], using: &generator),
            validityPolicy: .ignoringTime, using: &generator)
        return harness
    }

    static func controller(_ last: UInt8, _ harness: NodeHarness) throws -> CASEController {
        try CASEController(
            peer: "10.0.0.\(last):5540", ephemeralNodeID: 0xE000 + UInt64(last), sessionID: 0x5100 + UInt16(last),
            random: last, fabric: try #require(harness.node.dataModel.root.state.fabric(1)))
    }

    static let updateNOC = TLVValue.contextStructure([
        0: .octets(Certificates.node0101TLV), 1: .octets(Certificates.ica01TLV),
    ])

    /// `controller` sends UpdateNOC on exchange 0x101 and acknowledges the NOCResponse; the effects of both.
    static func update(
        _ controller: inout CASEController, _ harness: inout NodeHarness
    ) throws -> (update: [MatterNode<String>.Effect], ack: [MatterNode<String>.Effect]) {
        let (effects, replies) = try controller.invoke(
            cluster: 0x3E, command: 0x07, updateNOC, exchange: 0x101, &harness)
        let response = try #require(replies.only)
        // NOCResponse: StatusCode OK, FabricIndex 1.
        #expect(response.commandFields?[0] == .unsigned(0) && response.commandFields?[1] == .unsigned(1))
        return (effects, try controller.acknowledge(response, exchange: 0x101, &harness))
    }

    @Test("UpdateNOC closes the fabric's other sessions at once, its own once the NOCResponse is acknowledged")
    func updateClosesSessions() throws {
        var harness = try Self.harness()
        var first = try Self.controller(2, harness)
        var second = try Self.controller(3, harness)
        try first.establish(&harness, exchange: 0x100)
        try second.establish(&harness, exchange: 0x200)
        #expect(harness.node.secureSessionCount == 2)

        let (effects, replies) = try first.invoke(
            cluster: 0x3E, command: 0x07, Self.updateNOC, exchange: 0x101, &harness)
        let response = try #require(replies.only)
        #expect(response.commandFields?[0] == .unsigned(0))
        #expect(effects.logs.contains { $0.message.contains("fabric 1 has a new NOC (UpdateNOC)") }, "\(effects.logs)")
        // The other session is gone; the invoking one waits for its NOCResponse's ack.
        #expect(harness.node.secureSessionCount == 1)
        let late = try second.send(
            .interactionModel, opcode: InteractionModelOpcode.readRequest.rawValue, [], exchange: 0x201, &harness)
        #expect(late.sent.isEmpty && late.logs.contains { $0.message.contains("unknown session") })
        // It serves nothing new meanwhile.
        let refused = try first.send(
            .interactionModel, opcode: InteractionModelOpcode.readRequest.rawValue, [], exchange: 0x102, &harness)
        #expect(try first.open(refused).isEmpty)
        #expect(harness.node.secureSessionCount == 1)

        let acked = try first.acknowledge(response, exchange: 0x101, &harness)
        #expect(harness.node.secureSessionCount == 0)
        #expect(acked.logs.contains { $0.message.contains("its reply was delivered") }, "\(acked.logs)")
    }

    @Test("UpdateNOC forgets the fabric's resumption records: the next CASE is a full one")
    func updateForgetsResumptions() throws {
        var harness = try Self.harness()
        var first = try Self.controller(2, harness)
        try first.establish(&harness, exchange: 0x100)
        var second = try Self.controller(3, harness)
        try second.establish(&harness, exchange: 0x200)
        _ = try Self.update(&first, &harness)
        #expect(try second.resumptionAnswer(&harness, exchange: 0x202) == .caseSigma2)
    }

    @Test("before UpdateNOC the same Sigma1 resumes: the record was there to forget")
    func resumesWithoutUpdate() throws {
        var harness = try Self.harness()
        var second = try Self.controller(3, harness)
        try second.establish(&harness, exchange: 0x200)
        #expect(try second.resumptionAnswer(&harness, exchange: 0x202) == .caseSigma2Resume)
    }

    @Test("CommissioningComplete on a session made after UpdateNOC commits it and closes nothing")
    func commitKeepsSessions() throws {
        var harness = try Self.harness()
        var first = try Self.controller(2, harness)
        try first.establish(&harness, exchange: 0x100)
        _ = try Self.update(&first, &harness)
        var next = try Self.controller(4, harness)
        try next.establish(&harness, exchange: 0x300)

        let (_, replies) = try next.invoke(
            cluster: 0x30, command: 0x04, .contextStructure([:]), exchange: 0x301, &harness)
        let response = try #require(replies.only)
        #expect(response.commandFields?[0] == .unsigned(0))
        _ = try next.acknowledge(response, exchange: 0x301, &harness)
        #expect(harness.node.dataModel.root.state.failSafe == nil)
        #expect(harness.node.secureSessionCount == 1)
        // Its resumption record is kept too.
        #expect(try next.resumptionAnswer(&harness, exchange: 0x302) == .caseSigma2Resume)
    }

    @Test(
        "a rollback after UpdateNOC closes the sessions made since and forgets their records",
        arguments: [true, false])
    func rollbackClosesSessions(disarm: Bool) throws {
        var harness = try Self.harness()
        var first = try Self.controller(2, harness)
        try first.establish(&harness, exchange: 0x100)
        _ = try Self.update(&first, &harness)
        var next = try Self.controller(4, harness)
        try next.establish(&harness, exchange: 0x300)
        #expect(harness.node.secureSessionCount == 1)

        let effects: [MatterNode<String>.Effect]
        if disarm {
            let off = TLVValue.contextStructure([0: .unsigned(0), 1: .unsigned(0)])
            let (disarmed, replies) = try next.invoke(cluster: 0x30, command: 0x00, off, exchange: 0x301, &harness)
            let response = try #require(replies.only)
            #expect(response.commandFields?[0] == .unsigned(0))
            #expect(harness.node.secureSessionCount == 1)
            effects = disarmed
            _ = try next.acknowledge(response, exchange: 0x301, &harness)
        } else {
            effects = harness.tick(after: .seconds(61))
        }
        #expect(effects.logs.contains { $0.message.contains("fabric 1 has its old NOC again") }, "\(effects.logs)")
        #expect(harness.node.dataModel.root.state.failSafe == nil)
        #expect(harness.node.secureSessionCount == 0)
        #expect(try next.resumptionAnswer(&harness, exchange: 0x302) == .caseSigma2)
    }
}
