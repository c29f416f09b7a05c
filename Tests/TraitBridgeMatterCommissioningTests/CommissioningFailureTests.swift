import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterInteraction

/// The ways commissioning goes wrong: missing steps, wrong keys, an expired fail-safe, bad fields.
@Suite struct CommissioningFailureTests {
    let start = ContinuousClock.now
    let commissioner = TestCommissioner()

    private func invoke(
        _ root: inout RootEndpoint, _ cluster: UInt32, _ command: UInt32, _ fields: TLVValue,
        _ context: CommandContext? = nil
    ) -> RootEndpoint.InvokeResult {
        root.invoke(
            endpoint: 0, cluster: cluster, command: command, fields: fields, context: context ?? Session.pase(at: start)
        )
    }

    private func arm(_ root: inout RootEndpoint, seconds: UInt64 = 60) {
        _ = invoke(
            &root, Command.generalCommissioning, Command.armFailSafe,
            .contextStructure([0: .unsigned(seconds), 1: .unsigned(7)]))
    }

    /// Arms, requests a CSR and adds the root; returns the operational public key of the CSR.
    private func prepare(_ root: inout RootEndpoint) throws -> [UInt8] {
        arm(&root)
        let reply = invoke(
            &root, Command.operationalCredentials, Command.csrRequest,
            .contextStructure([0: .octets([UInt8](repeating: 1, count: 32))]))
        #expect(reply.commandID == 5)
        _ = invoke(
            &root, Command.operationalCredentials, Command.addTrustedRootCertificate,
            .contextStructure([0: .octets(commissioner.rcac)]))
        return try #require(root.state.failSafe?.pendingKey).publicKey
    }

    private func nocStatus(_ result: RootEndpoint.InvokeResult) -> TLVValue? { result.fields?[0] }

    @Test func `AddNOC without a CSRRequest is MissingCsr`() throws {
        var root = RootEndpoint()
        arm(&root)
        _ = invoke(
            &root, Command.operationalCredentials, Command.addTrustedRootCertificate,
            .contextStructure([0: .octets(commissioner.rcac)]))
        let noc = try commissioner.noc(for: OperationalKeyPair().publicKey)
        let result = invoke(&root, Command.operationalCredentials, Command.addNOC, commissioner.addNOCFields(noc: noc))
        #expect(nocStatus(result) == .unsigned(UInt64(NOCStatus.missingCsr.rawValue)))
        #expect(root.state.fabrics.isEmpty)
    }

    @Test func `a NOC for another key is InvalidPublicKey`() throws {
        var root = RootEndpoint()
        _ = try prepare(&root)
        let noc = try commissioner.noc(for: OperationalKeyPair().publicKey)
        let result = invoke(&root, Command.operationalCredentials, Command.addNOC, commissioner.addNOCFields(noc: noc))
        #expect(nocStatus(result) == .unsigned(UInt64(NOCStatus.invalidPublicKey.rawValue)))
        #expect(root.state.fabrics.isEmpty)
    }

    @Test func `a NOC from another root is InvalidNOC, and without the ICAC too`() throws {
        var root = RootEndpoint()
        let key = try prepare(&root)
        let stranger = try TestCommissioner().noc(for: key)
        let foreign = invoke(
            &root, Command.operationalCredentials, Command.addNOC, commissioner.addNOCFields(noc: stranger))
        #expect(nocStatus(foreign) == .unsigned(UInt64(NOCStatus.invalidNOC.rawValue)))
        let noc = try commissioner.noc(for: key)
        let withoutICAC = invoke(
            &root, Command.operationalCredentials, Command.addNOC,
            commissioner.addNOCFields(noc: noc, includeICAC: false))
        #expect(nocStatus(withoutICAC) == .unsigned(UInt64(NOCStatus.invalidNOC.rawValue)))
    }

    @Test func `a bad CaseAdminSubject is InvalidAdminSubject`() throws {
        var root = RootEndpoint()
        let noc = try commissioner.noc(for: try prepare(&root))
        var fields = commissioner.addNOCFields(noc: noc)
        if case .structure(var members) = fields {
            members[3] = TLVElement(tag: .context(3), value: .unsigned(0))
            fields = .structure(members)
        }
        let result = invoke(&root, Command.operationalCredentials, Command.addNOC, fields)
        #expect(nocStatus(result) == .unsigned(UInt64(NOCStatus.invalidAdminSubject.rawValue)))
    }

    @Test(arguments: [false, true])
    func `fail-safe expiry or disarming rolls back the fabric and the breadcrumb`(disarm: Bool) throws {
        var root = RootEndpoint()
        let noc = try commissioner.noc(for: try prepare(&root))
        let added = invoke(&root, Command.operationalCredentials, Command.addNOC, commissioner.addNOCFields(noc: noc))
        #expect(nocStatus(added) == .unsigned(0))
        #expect(root.state.fabrics.count == 1 && root.state.breadcrumb == 7)
        _ = root.state.takeNotices()

        if disarm {
            let result = invoke(
                &root, Command.generalCommissioning, Command.armFailSafe,
                .contextStructure([0: .unsigned(0), 1: .unsigned(0)]), Session.pase(at: start, fabricIndex: 1))
            #expect(result.fields?[0] == .unsigned(0))
        } else {
            root.state.advance(to: start + .seconds(59))
            #expect(root.state.fabrics.count == 1)
            root.state.advance(to: start + .seconds(60))
        }
        #expect(root.state.fabrics.isEmpty)
        #expect(root.state.accessControl.isEmpty)
        #expect(root.state.breadcrumb == 0)
        #expect(root.state.failSafe == nil)
        #expect(
            root.state.takeNotices()
                == [.failSafeRolledBack(disarm ? .disarmed : .expired, removedFabricIndex: 1, restoredFabricIndex: nil)]
        )
        // CommissioningComplete after the rollback finds no fail-safe.
        let late = invoke(
            &root, Command.generalCommissioning, Command.commissioningComplete, .contextStructure([:]),
            Session.case(fabricIndex: 1, at: start + .seconds(61)))
        #expect(late.fields?[0] == .unsigned(UInt64(CommissioningError.noFailSafe.rawValue)))
    }

    @Test func `an expired fail-safe is rolled back before the next command`() throws {
        var root = RootEndpoint()
        _ = try prepare(&root)
        let result = invoke(
            &root, Command.operationalCredentials, Command.csrRequest,
            .contextStructure([0: .octets([UInt8](repeating: 1, count: 32))]), Session.pase(at: start + .seconds(61)))
        #expect(result == .status(.failsafeRequired))
        #expect(
            root.state.takeNotices().last
                == .failSafeRolledBack(.expired, removedFabricIndex: nil, restoredFabricIndex: nil))
    }

    @Test(arguments: [
        (Command.csrRequest, TLVValue.contextStructure([0: .octets([UInt8](repeating: 1, count: 32))])),
        (Command.addTrustedRootCertificate, .contextStructure([0: .octets([0x15, 0x18])])),
        (
            Command.addNOC,
            .contextStructure([
                0: .octets([1]), 2: .octets([UInt8](repeating: 0, count: 16)), 3: .unsigned(1), 4: .unsigned(1),
            ])
        ),
    ])
    func `commands that need the fail-safe say FAILSAFE_REQUIRED without it`(command: UInt32, fields: TLVValue) {
        var root = RootEndpoint()
        #expect(invoke(&root, Command.operationalCredentials, command, fields) == .status(.failsafeRequired))
    }

    @Test func `CommissioningComplete needs a fail-safe and a CASE session of the new fabric`() {
        var root = RootEndpoint()
        let complete = TLVValue.contextStructure([:])
        let none = invoke(&root, Command.generalCommissioning, Command.commissioningComplete, complete)
        #expect(none.fields?[0] == .unsigned(UInt64(CommissioningError.noFailSafe.rawValue)))
        arm(&root)
        let overPASE = invoke(&root, Command.generalCommissioning, Command.commissioningComplete, complete)
        #expect(overPASE.fields?[0] == .unsigned(UInt64(CommissioningError.invalidAuthentication.rawValue)))
        #expect(root.state.failSafe != nil)
    }

    @Test func `another fabric cannot arm a held fail-safe`() {
        var root = RootEndpoint()
        arm(&root)
        let other = invoke(
            &root, Command.generalCommissioning, Command.armFailSafe,
            .contextStructure([0: .unsigned(60), 1: .unsigned(0)]), Session.case(fabricIndex: 2, at: start))
        #expect(other.fields?[0] == .unsigned(UInt64(CommissioningError.busyWithOtherAdmin.rawValue)))
    }

    @Test func `a root that is not self-signed is INVALID_COMMAND`() {
        var root = RootEndpoint()
        arm(&root)
        var tampered = commissioner.rcac
        tampered[tampered.count - 3] ^= 0x01
        let result = invoke(
            &root, Command.operationalCredentials, Command.addTrustedRootCertificate,
            .contextStructure([0: .octets(tampered)]))
        #expect(result == .status(.invalidCommand))
        #expect(root.state.failSafe?.pendingRoot == nil)
    }
}
