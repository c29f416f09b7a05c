import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterInteraction

/// UpdateNOC (0x07): staged until CommissioningComplete, undone by the fail-safe, refused as the SDK
/// refuses it (another root or fabric id, over PASE, without a CSRRequest for UpdateNOC).
@Suite struct UpdateNOCTests {
    let start = ContinuousClock.now
    let commissioner = TestCommissioner()
    let newNodeID: UInt64 = 0xDEDE_DEDE_0002_0002

    private func commissioned() throws -> RootEndpoint {
        var root = RootEndpoint()
        #expect(try commissioner.commission(&root, at: start) == .unsigned(0))
        return root
    }

    private func invoke(
        _ root: inout RootEndpoint, _ cluster: UInt32, _ command: UInt32, _ fields: TLVValue,
        _ context: CommandContext
    ) -> RootEndpoint.InvokeResult {
        root.invoke(endpoint: 0, cluster: cluster, command: command, fields: fields, context: context)
    }

    /// ArmFailSafe then CSRRequest (IsForUpdateNOC as given, absent for nil) on `context`.
    private func armAndRequestCSR(
        _ root: inout RootEndpoint, forUpdate: Bool?, _ context: CommandContext
    ) -> RootEndpoint.InvokeResult {
        _ = invoke(&root, 0x30, 0x00, .contextStructure([0: .unsigned(60), 1: .unsigned(2)]), context)
        return invoke(
            &root, 0x3E, 0x04,
            .contextStructure([0: .octets([UInt8](repeating: 7, count: 32)), 1: forUpdate.map { TLVValue.bool($0) }]),
            context)
    }

    private func updateFields(_ noc: [UInt8], icac: [UInt8]?) -> TLVValue {
        .contextStructure([0: .octets(noc), 1: icac.map { TLVValue.octets($0) }])
    }

    private func status(_ status: NOCStatus) -> TLVValue? { .unsigned(UInt64(status.rawValue)) }

    /// A CASE session of fabric 1 updates its NOC to `newNodeID` (the fail-safe armed for 60 s).
    private func update(_ root: inout RootEndpoint) throws {
        let session = Session.case(fabricIndex: 1, at: start)
        #expect(armAndRequestCSR(&root, forUpdate: true, session).commandID == 0x05)
        let key = try #require(root.state.failSafe?.pendingKey).publicKey
        var renamed = commissioner
        renamed.nodeID = newNodeID
        let response = invoke(
            &root, 0x3E, 0x07, updateFields(try renamed.noc(for: key), icac: commissioner.icac), session)
        #expect(response.commandID == 0x08)
        #expect(response.fields == .contextStructure([0: .unsigned(0), 1: .unsigned(1)]))
    }

    @Test func `UpdateNOC is live at once, kept out of the snapshot and committed by CommissioningComplete`() throws {
        var root = try commissioned()
        _ = root.state.takeNotices()
        let before = root
        let old = try #require(before.state.fabric(1))
        try update(&root)
        let fabric = try #require(root.state.fabric(1))
        #expect(fabric.nodeID == newNodeID && fabric.fabricID == old.fabricID)
        #expect(fabric.operationalKey.publicKey != old.operationalKey.publicKey)
        #expect(fabric.ipkEpochKey == old.ipkEpochKey && fabric.vendorID == old.vendorID)
        // `fabricUpdated`, not `fabricAdded`: the node answers CASE with the new chain, announces the new
        // node id, and closes the fabric's older sessions and resumption records (nothing to bind).
        #expect(root.state.takeNotices() == [.failSafeArmed(fabricIndex: 1), .fabricUpdated(index: 1)])
        // Only committed state is kept: the snapshot still has the old NOC.
        #expect(root.state.snapshot == before.state.snapshot)
        #expect(root.state.accessControl == before.state.accessControl)

        // A second UpdateNOC, an AddNOC or a CSRRequest in the same fail-safe: CONSTRAINT_ERROR.
        let session = Session.case(fabricIndex: 1, at: start)
        #expect(
            invoke(&root, 0x3E, 0x07, updateFields(fabric.chain.noc.tlv, icac: nil), session)
                == .status(.constraintError))
        #expect(
            invoke(&root, 0x3E, 0x04, .contextStructure([0: .octets([UInt8](repeating: 1, count: 32))]), session)
                == .status(.constraintError))

        // CommissioningComplete comes on a CASE session of the fabric made with the new NOC.
        let complete = invoke(&root, 0x30, 0x04, .contextStructure([:]), session)
        #expect(complete.fields?[0] == .unsigned(0))
        #expect(root.state.failSafe == nil)
        // The commit names the fabric only as completed: no rollback, nothing restored.
        #expect(root.state.takeNotices() == [.commissioningCompleted(fabricIndex: 1)])
        let stored = try #require(root.state.snapshot.fabrics.first)
        #expect(stored.nodeCertificate == fabric.chain.noc.tlv)
        #expect(stored.operationalKey == Array(fabric.operationalKey.privateKey.rawRepresentation))
        // The committed snapshot restores to the updated fabric.
        let restored = try CommissioningState(restoring: root.state.snapshot)
        #expect(restored.fabric(1)?.nodeID == newNodeID)
    }

    @Test(arguments: [true, false])
    func `a rolled-back fail-safe restores the old NOC and key`(disarm: Bool) throws {
        var root = try commissioned()
        let before = root
        let old = try #require(before.state.fabric(1))
        try update(&root)
        _ = root.state.takeNotices()
        if disarm {
            let off = TLVValue.contextStructure([0: .unsigned(0), 1: .unsigned(0)])
            _ = invoke(&root, 0x30, 0x00, off, Session.case(fabricIndex: 1, at: start))
        } else {
            root.state.advance(to: start + .seconds(61))
        }
        let fabric = try #require(root.state.fabric(1))
        #expect(fabric.nodeID == old.nodeID)
        #expect(fabric.chain == old.chain)
        #expect(fabric.operationalKey.publicKey == old.operationalKey.publicKey)
        #expect(root.state.snapshot == before.state.snapshot)
        #expect(
            root.state.takeNotices()
                == [.failSafeRolledBack(disarm ? .disarmed : .expired, removedFabricIndex: nil, restoredFabricIndex: 1)]
        )
    }

    @Test func `a NOC of another root, fabric id or key is refused with the SDK's status`() throws {
        var root = try commissioned()
        let session = Session.case(fabricIndex: 1, at: start)
        _ = armAndRequestCSR(&root, forUpdate: true, session)
        let key = try #require(root.state.failSafe?.pendingKey).publicKey

        // Another root with the same fabric id: the chain does not verify.
        let stranger = TestCommissioner()
        let foreign = updateFields(try stranger.noc(for: key), icac: stranger.icac)
        #expect(invoke(&root, 0x3E, 0x07, foreign, session).fields == .contextStructure([0: status(.invalidNOC)]))
        // The same root, another fabric id.
        var moved = commissioner
        moved.fabricID = 0xFAB0_0000_0000_0002
        let otherFabric = updateFields(try moved.noc(for: key), icac: commissioner.icac)
        #expect(
            invoke(&root, 0x3E, 0x07, otherFabric, session).fields
                == .contextStructure([0: status(.invalidFabricIndex)]))
        // A NOC for a key that is not the CSRRequest's.
        let oldKey = try #require(root.state.fabric(1)).operationalKey.publicKey
        let wrongKey = updateFields(try commissioner.noc(for: oldKey), icac: commissioner.icac)
        #expect(
            invoke(&root, 0x3E, 0x07, wrongKey, session).fields == .contextStructure([0: status(.invalidPublicKey)]))
        // Nothing changed, the fail-safe is still armed and the update may still come.
        #expect(root.state.fabric(1)?.chain.nodeID == commissioner.nodeID)
        #expect(root.state.failSafe?.isNOCInvoked == false)
        #expect(
            invoke(&root, 0x3E, 0x07, updateFields(try commissioner.noc(for: key), icac: commissioner.icac), session)
                .fields?[0] == .unsigned(0))
    }

    @Test func `UpdateNOC without a CSRRequest for UpdateNOC, or over PASE, is refused`() throws {
        var root = try commissioned()
        let session = Session.case(fabricIndex: 1, at: start)
        let noc = updateFields(root.state.fabric(1)?.chain.noc.tlv ?? [], icac: commissioner.icac)
        // No fail-safe.
        #expect(invoke(&root, 0x3E, 0x07, noc, session) == .status(.failsafeRequired))
        // No CSRRequest: MissingCsr; one not for UpdateNOC: CONSTRAINT_ERROR.
        _ = invoke(&root, 0x30, 0x00, .contextStructure([0: .unsigned(60), 1: .unsigned(2)]), session)
        #expect(invoke(&root, 0x3E, 0x07, noc, session).fields == .contextStructure([0: status(.missingCsr)]))
        #expect(armAndRequestCSR(&root, forUpdate: false, session).commandID == 0x05)
        #expect(invoke(&root, 0x3E, 0x07, noc, session) == .status(.constraintError))
        _ = invoke(&root, 0x30, 0x00, .contextStructure([0: .unsigned(0), 1: .unsigned(0)]), session)

        // Over PASE: a CSRRequest for UpdateNOC is INVALID_COMMAND (no fabric), so UpdateNOC never has one.
        let pase = Session.pase(at: start)
        #expect(armAndRequestCSR(&root, forUpdate: true, pase) == .status(.invalidCommand))
        #expect(invoke(&root, 0x3E, 0x07, noc, pase).fields == .contextStructure([0: status(.missingCsr)]))
        #expect(armAndRequestCSR(&root, forUpdate: false, pase).commandID == 0x05)
        #expect(invoke(&root, 0x3E, 0x07, noc, pase) == .status(.constraintError))
        // The PASE-armed fail-safe is not the fabric's: its CASE session gets FAILSAFE_REQUIRED.
        #expect(invoke(&root, 0x3E, 0x07, noc, session) == .status(.failsafeRequired))
        // Oversized certificates are INVALID_COMMAND before anything else.
        let big = updateFields([UInt8](repeating: 0, count: 401), icac: nil)
        #expect(invoke(&root, 0x3E, 0x07, big, session) == .status(.invalidCommand))
        #expect(root.state.fabric(1)?.chain.nodeID == commissioner.nodeID)
    }

    @Test func `UpdateNOC is an accepted command`() throws {
        let root = RootEndpoint()
        let access = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: true)
        let accepted = try root.read(endpoint: 0, cluster: 0x3E, attribute: 0xFFF9, fabric: access).get()
        guard case .array(let ids) = accepted else { throw TestFailure.notAList }
        #expect(ids.contains(.unsigned(0x07)))
    }
}
