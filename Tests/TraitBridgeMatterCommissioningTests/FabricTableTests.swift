import Testing
import TraitBridgeMatterInteraction
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials

/// More than one fabric: labels, conflicts, a full table, removal; and the fail-safe's limits.
@Suite struct FabricTableTests {
    let start = ContinuousClock.now

    @discardableResult
    private func commission(_ root: inout RootEndpoint, by commissioner: TestCommissioner) throws -> TLVValue? {
        try commissioner.commission(&root, at: start)
    }

    private func invoke(_ root: inout RootEndpoint, _ command: UInt32, _ fields: TLVValue, fabric: UInt8)
        -> RootEndpoint.InvokeResult
    {
        root.invoke(
            endpoint: 0, cluster: 0x3E, command: command, fields: fields,
            context: Session.case(fabricIndex: fabric, at: start))
    }

    @Test func `labels, conflicts, a full table and removal`() throws {
        var root = RootEndpoint()
        let first = TestCommissioner()
        #expect(try commission(&root, by: first) == .unsigned(0))
        #expect(try commission(&root, by: TestCommissioner()) == .unsigned(0))
        #expect(root.state.fabrics.map(\.index) == [1, 2])
        #expect(root.state.failSafe == nil)

        let label = TLVValue.contextStructure([0: .string("home")])
        #expect(invoke(&root, 0x09, label, fabric: 1).fields == .contextStructure([0: .unsigned(0), 1: .unsigned(1)]))
        #expect(invoke(&root, 0x09, label, fabric: 2).fields?[0] == .unsigned(UInt64(NOCStatus.labelConflict.rawValue)))
        #expect(root.state.fabric(1)?.label == "home")

        // The same root and fabric id again.
        #expect(try commission(&root, by: first) == .unsigned(UInt64(NOCStatus.fabricConflict.rawValue)))
        for _ in 3...5 { #expect(try commission(&root, by: TestCommissioner()) == .unsigned(0)) }
        #expect(try commission(&root, by: TestCommissioner()) == .unsigned(UInt64(NOCStatus.tableFull.rawValue)))

        let remove = TLVValue.contextStructure([0: .unsigned(2)])
        #expect(invoke(&root, 0x0A, remove, fabric: 1).fields == .contextStructure([0: .unsigned(0), 1: .unsigned(2)]))
        #expect(
            invoke(&root, 0x0A, remove, fabric: 1).fields?[0]
                == .unsigned(UInt64(NOCStatus.invalidFabricIndex.rawValue)))
        #expect(root.state.fabrics.map(\.index) == [1, 3, 4, 5])
        #expect(!root.state.accessControl.contains { $0.fabricIndex == 2 })
        #expect(root.state.takeNotices().contains(.fabricRemoved(index: 2)))
        // The freed index is reused.
        #expect(try commission(&root, by: TestCommissioner()) == .unsigned(0))
        #expect(root.state.fabric(2) != nil)

        // Unfiltered, another fabric's NOC entry shows only its index.
        let unfiltered = RootEndpoint.FabricAccess(accessingFabricIndex: 1, isFabricFiltered: false)
        guard case .array(let nocs) = try root.read(endpoint: 0, cluster: 0x3E, attribute: 0, fabric: unfiltered).get()
        else { throw TestFailure.notAList }
        #expect(nocs.count == 5)
        #expect(nocs.last == .contextStructure([254: .unsigned(2)]))
    }

    @Test func `re-arming cannot pass MaxCumulativeFailsafeSeconds`() {
        var state = CommissioningState()
        let arm = { (state: inout CommissioningState, at: Duration) in
            state.armFailSafe(expiry: .seconds(60), breadcrumb: 1, context: Session.pase(at: start + at))
        }
        for second in stride(from: 0, through: 850, by: 50) { #expect(arm(&state, .seconds(second)) == .ok) }
        #expect(state.failSafe?.deadline == start + .seconds(900))
        state.advance(to: start + .seconds(900))
        #expect(state.failSafe == nil)
    }

    @Test func `an indoor-only device refuses an outdoor regulatory config`() {
        var state = CommissioningState(locationCapability: .indoor)
        let context = Session.pase(at: start)
        #expect(
            state.setRegulatoryConfig(.outdoor, countryCode: "DE", breadcrumb: 1, context: context)
                == .valueOutsideRange)
        #expect(state.setRegulatoryConfig(.indoor, countryCode: "DE", breadcrumb: 1, context: context) == .ok)
        #expect(state.countryCode == "DE" && state.breadcrumb == 1)
    }
}

enum TestFailure: Error {
    case notAList
}
