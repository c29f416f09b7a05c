import Crypto
import Testing
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterInteraction

/// The commissioning state kept across a restart: committed fabrics and their ACL in the snapshot,
/// never a fail-safe's staging; restored to a state CASE and reads use as before; a damaged
/// snapshot refused with the fabric named.
@Suite struct CommissioningSnapshotTests {
    let start = ContinuousClock.now

    /// Arms, adds the root and the NOC of `commissioner`; commits it when `commit`. The fabric index.
    private func addFabric(
        _ state: inout CommissioningState, by commissioner: TestCommissioner, commit: Bool = true
    ) throws -> UInt8 {
        let pase = Session.pase(at: start)
        #expect(state.armFailSafe(expiry: .seconds(60), breadcrumb: 1, context: pase) == .ok)
        let key = try state.makeOperationalKey(isForUpdateNOC: false, context: pase).get()
        #expect(state.addTrustedRoot(commissioner.rcac, context: pase) == .success)
        let request = CommissioningState.AddNOCRequest(
            noc: try commissioner.noc(for: key.publicKey), icac: commissioner.icac,
            ipkEpochKey: commissioner.ipkEpochKey, caseAdminSubject: commissioner.adminNodeID, adminVendorID: 0xFFF1)
        let response = try state.addNOC(request, context: pase).get()
        let index = try #require(response.fabricIndex, "\(response.status)")
        if commit { #expect(state.commissioningComplete(context: Session.case(fabricIndex: index, at: start)) == .ok) }
        return index
    }

    @Test func `a fresh node's snapshot is empty and restores to a fresh node`() throws {
        let fresh = CommissioningState()
        #expect(fresh.snapshot == CommissioningSnapshot())
        let restored = try CommissioningState(restoring: fresh.snapshot)
        #expect(restored.fabrics.isEmpty && restored.accessControl.isEmpty && restored.failSafe == nil)
    }

    @Test func `committed fabrics, labels, the ACL and the regulatory config survive; the restored state is the same`()
        throws
    {
        var state = CommissioningState()
        let first = try addFabric(&state, by: TestCommissioner())
        let second = try addFabric(&state, by: TestCommissioner())
        #expect(state.updateFabricLabel("kitchen", context: Session.case(fabricIndex: second, at: start)).status == .ok)
        #expect(
            state.setRegulatoryConfig(
                .indoor, countryCode: "DE", breadcrumb: 0, context: Session.case(fabricIndex: first, at: start)) == .ok)
        let snapshot = state.snapshot
        #expect(snapshot.fabrics.map(\.index) == [first, second])
        #expect(snapshot.fabrics.map(\.label) == ["", "kitchen"])
        #expect(snapshot.accessControl == state.accessControl && snapshot.accessControl.count == 2)
        #expect(snapshot.fabrics.allSatisfy { $0.operationalKey.count == 32 && $0.ipkEpochKey.count == 16 })
        #expect(!snapshot.description.contains("kitchen"), "the description names ids only: \(snapshot)")

        let restored = try CommissioningState(restoring: snapshot)
        #expect(restored.snapshot == snapshot, "restoring and taking a snapshot again is the identity")
        #expect(restored.failSafe == nil && restored.regulatoryConfig == .indoor && restored.countryCode == "DE")
        for (before, after) in zip(state.fabrics, restored.fabrics) {
            #expect(after.index == before.index && after.chain == before.chain && after.nodeID == before.nodeID)
            #expect(after.operationalKey.publicKey == before.operationalKey.publicKey)
            #expect(after.compressedFabricID == before.compressedFabricID && after.ipk != nil)
        }
        // Restored fabrics act as installed ones: labels still conflict, removal works.
        var again = restored
        #expect(
            again.updateFabricLabel("kitchen", context: Session.case(fabricIndex: first, at: start)).status
                == .labelConflict)
        #expect(again.removeFabric(second, context: Session.case(fabricIndex: first, at: start)).status == .ok)
        #expect(again.snapshot.fabrics.map(\.index) == [first] && again.snapshot.accessControl.count == 1)
    }

    @Test func `a fabric the fail-safe staged is not in the snapshot until it is committed`() throws {
        var state = CommissioningState()
        let committed = try addFabric(&state, by: TestCommissioner())
        let before = state.snapshot
        let staged = try addFabric(&state, by: TestCommissioner(), commit: false)
        #expect(state.fabrics.count == 2 && state.failSafe?.addedFabricIndex == staged)
        #expect(state.snapshot == before, "the staged fabric and its ACL entry are left out")
        #expect(state.commissioningComplete(context: Session.case(fabricIndex: staged, at: start)) == .ok)
        #expect(state.snapshot.fabrics.map(\.index) == [committed, staged])
        #expect(state.snapshot.accessControl.map(\.fabricIndex) == [committed, staged])
    }

    @Test func `a damaged snapshot is refused, naming the fabric and the check`() throws {
        var state = CommissioningState()
        let index = try addFabric(&state, by: TestCommissioner())
        let good = state.snapshot
        func refusal(_ change: (inout CommissioningSnapshot) -> Void) -> SnapshotError? {
            var snapshot = good
            change(&snapshot)
            do {
                _ = try CommissioningState(restoring: snapshot)
                return nil
            } catch {
                return error
            }
        }
        let otherKey = Array(P256.Signing.PrivateKey().rawRepresentation)
        let cases: [(String, (inout CommissioningSnapshot) -> Void, String)] = [
            ("truncated NOC", { $0.fabrics[0].nodeCertificate.removeLast(5) }, "does not decode"),
            ("another root", { $0.fabrics[0].rootCertificate = TestCommissioner().rcac }, "does not verify"),
            ("short IPK", { $0.fabrics[0].ipkEpochKey = [1, 2, 3] }, "16 bytes"),
            ("not a key", { $0.fabrics[0].operationalKey = [UInt8](repeating: 0, count: 32) }, "P-256"),
            ("another key", { $0.fabrics[0].operationalKey = otherKey }, "does not certify"),
            ("index 0", { $0.fabrics[0].index = 0 }, "1…254"),
            ("twice", { $0.fabrics.append($0.fabrics[0]) }, "twice"),
            ("long label", { $0.fabrics[0].label = String(repeating: "x", count: 33) }, "32 bytes"),
            ("stray ACL", { $0.accessControl[0].fabricIndex = 9 }, "not installed"),
        ]
        for (name, change, expected) in cases {
            let error = refusal(change)
            #expect(error?.description.contains(expected) == true, "\(name): \(String(describing: error))")
        }
        #expect(refusal { _ in } == nil, "the unchanged snapshot restores")
        #expect(refusal { $0.fabrics[0].ipkEpochKey = [] }?.fabricIndex == index)
    }
}
