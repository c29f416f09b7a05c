import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction

/// Access control (Core §6.6): privileges by the ACL AddNOC wrote, subjects by node id and CAT, the
/// privilege hierarchy, and what each action needs.
@Suite struct AccessControlTests {
    let start = ContinuousClock.now

    @Test func `the admin AddNOC named administers its own fabric and nothing on another`() throws {
        var root = RootEndpoint()
        let commissioner = TestCommissioner()
        #expect(try commissioner.commission(&root, at: start) == .unsigned(0))
        let admin = AccessSubject.node(commissioner.adminNodeID, fabricIndex: 1, caseAuthenticatedTags: [])
        #expect(root.state.privilege(of: admin, endpoint: 0, cluster: ClusterID.accessControl) == .administer)
        #expect(root.state.allows(admin, .administer, endpoint: 0, cluster: ClusterID.operationalCredentials))
        let stranger = AccessSubject.node(commissioner.adminNodeID &+ 1, fabricIndex: 1, caseAuthenticatedTags: [])
        #expect(root.state.privilege(of: stranger, endpoint: 1, cluster: 0x0006) == nil)
        #expect(!root.state.allows(stranger, .view, endpoint: 1, cluster: 0x0006))
        let otherFabric = AccessSubject.node(commissioner.adminNodeID, fabricIndex: 2, caseAuthenticatedTags: [])
        #expect(!root.state.allows(otherFabric, .view, endpoint: 0, cluster: ClusterID.basicInformation))
        #expect(root.state.allows(.commissioner, .administer, endpoint: 0, cluster: ClusterID.accessControl))
    }

    @Test func `a CAT subject matches a node holding that tag at that version or later`() {
        let subject: UInt64 = 0xFFFF_FFFD_0001_0002
        #expect(Self.matches(subject, tags: [0x0001_0002]))
        #expect(Self.matches(subject, tags: [0x0001_0005]))
        #expect(!Self.matches(subject, tags: [0x0001_0001]))
        #expect(!Self.matches(subject, tags: [0x0002_0002]))
        #expect(!Self.matches(subject, tags: []))
    }

    @Test func `privileges grant those below them; ProxyView only View`() {
        #expect(Privilege.administer.grants(.operate) && Privilege.administer.grants(.proxyView))
        #expect(Privilege.manage.grants(.operate) && !Privilege.manage.grants(.administer))
        #expect(!Privilege.manage.grants(.proxyView))
        #expect(Privilege.operate.grants(.view) && !Privilege.operate.grants(.manage))
        #expect(Privilege.proxyView.grants(.view) && !Privilege.proxyView.grants(.operate))
        #expect(!Privilege.view.grants(.operate))
    }

    @Test func `what actions need`() {
        #expect(AccessRequirement.read(endpoint: 0, cluster: ClusterID.accessControl) == .administer)
        #expect(AccessRequirement.read(endpoint: 1, cluster: 0x0006) == .view)
        #expect(AccessRequirement.invoke(endpoint: 1, cluster: 0x0006) == .operate)
        #expect(AccessRequirement.invoke(endpoint: 0, cluster: ClusterID.generalCommissioning) == .administer)
        #expect(AccessRequirement.write(endpoint: 0, cluster: ClusterID.basicInformation) == .manage)
    }

    static func matches(_ subject: UInt64, tags: [UInt32]) -> Bool {
        CommissioningState.matches(subject, nodeID: 0x99, tags: tags)
    }
}
