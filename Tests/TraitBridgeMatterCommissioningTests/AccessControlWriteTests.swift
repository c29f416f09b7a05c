import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction

/// Writing the ACL (Core §9.10.5.3): the accessing fabric's entries replaced or appended, each checked as
/// connectedhomeip checks it, the other fabrics' untouched, targets honoured when access is decided.
@Suite struct AccessControlWriteTests {
    let start = ContinuousClock.now

    /// An `AccessControlEntryStruct` as a controller writes it.
    static func entry(
        privilege: UInt64 = 5, authMode: UInt64 = 2, subjects: [UInt64]? = nil, targets: [TLVValue]? = nil,
        fabricIndex: UInt64 = 9
    ) -> TLVValue {
        .contextStructure([
            1: .unsigned(privilege), 2: .unsigned(authMode),
            3: subjects.map { .array($0.map { .unsigned($0) }) } ?? .null,
            4: targets.map { .array($0) } ?? .null, 254: .unsigned(fabricIndex),
        ])
    }

    static func target(cluster: UInt64? = nil, endpoint: UInt64? = nil, deviceType: UInt64? = nil) -> TLVValue {
        .contextStructure([
            0: cluster.map { .unsigned($0) } ?? .null, 1: endpoint.map { .unsigned($0) } ?? .null,
            2: deviceType.map { .unsigned($0) } ?? .null,
        ])
    }

    /// A node commissioned by one admin (fabric 1), its ACL AddNOC's entry.
    func commissioned() throws -> (RootEndpoint, UInt64) {
        var root = RootEndpoint()
        let commissioner = TestCommissioner()
        #expect(try commissioner.commission(&root, at: start) == .unsigned(0))
        return (root, commissioner.adminNodeID)
    }

    @Test func `the whole list replaces the writer's fabric's entries; a target narrows an entry`() throws {
        var (root, admin) = try commissioned()
        let operatorNode: UInt64 = 0x1234
        let list: TLVValue = .array([
            Self.entry(subjects: [admin]),
            Self.entry(privilege: 3, subjects: [operatorNode], targets: [Self.target(cluster: 6, endpoint: 1)]),
        ])
        let change = try root.writeAccessControl(list, append: false, fabricIndex: 1).get()
        #expect(change.removed.count == 1 && change.added.count == 2)
        #expect(root.state.accessControl.map(\.fabricIndex) == [1, 1], "the written fabric index is ignored")
        let node = AccessSubject.node(operatorNode, fabricIndex: 1, caseAuthenticatedTags: [])
        #expect(root.state.allows(node, .operate, endpoint: 1, cluster: 6))
        #expect(!root.state.allows(node, .operate, endpoint: 1, cluster: 8), "another cluster")
        #expect(!root.state.allows(node, .view, endpoint: 2, cluster: 6), "another endpoint")
        #expect(!root.state.allows(node, .manage, endpoint: 1, cluster: 6), "Operate only")
        let adminSubject = AccessSubject.node(admin, fabricIndex: 1, caseAuthenticatedTags: [])
        #expect(root.state.allows(adminSubject, .administer, endpoint: 0, cluster: ClusterID.accessControl))

        // Read back as written, the fabric's own; another fabric's reader sees its index only.
        let mine = RootEndpoint.FabricAccess(accessingFabricIndex: 1, isFabricFiltered: false)
        let read = try root.read(endpoint: 0, cluster: ClusterID.accessControl, attribute: 0, fabric: mine).get()
        guard case .array(let entries) = read else {
            Issue.record("\(read)")
            return
        }
        #expect(entries.count == 2)
        #expect(entries[1][4] == .array([Self.target(cluster: 6, endpoint: 1)]))
        let other = RootEndpoint.FabricAccess(accessingFabricIndex: 2, isFabricFiltered: false)
        let seen = try root.read(endpoint: 0, cluster: ClusterID.accessControl, attribute: 0, fabric: other).get()
        #expect(seen == .array([.contextStructure([254: .unsigned(1)]), .contextStructure([254: .unsigned(1)])]))
    }

    @Test func `an entry is appended; a device type target covers that type's endpoints`() throws {
        var (root, _) = try commissioned()
        let viewer = Self.entry(privilege: 1, subjects: [0x42], targets: [Self.target(deviceType: 0x0100)])
        _ = try root.writeAccessControl(viewer, append: true, fabricIndex: 1).get()
        #expect(root.state.accessControl.count == 2)
        let node = AccessSubject.node(0x42, fabricIndex: 1, caseAuthenticatedTags: [])
        #expect(root.state.allows(node, .view, endpoint: 3, cluster: 6, deviceTypes: [0x0100]))
        #expect(!root.state.allows(node, .view, endpoint: 4, cluster: 6, deviceTypes: [0x010A]))
    }

    @Test(arguments: [
        ("PASE auth mode", Self.entry(authMode: 1, subjects: [7]), StatusCode.constraintError),
        ("Administer for a group", Self.entry(authMode: 3, subjects: [7]), .constraintError),
        ("privilege 6", Self.entry(privilege: 6, subjects: [7]), .constraintError),
        ("node id 0", Self.entry(subjects: [0]), .constraintError),
        ("a CAT of version 0", Self.entry(subjects: [0xFFFF_FFFD_0001_0000]), .constraintError),
        ("a group id over 0xFFFF", Self.entry(privilege: 3, authMode: 3, subjects: [0x1_0000]), .constraintError),
        ("five subjects", Self.entry(subjects: [1, 2, 3, 4, 5]), .resourceExhausted),
        ("an empty target", Self.entry(subjects: [7], targets: [Self.target()]), .constraintError),
        (
            "an endpoint and a device type",
            Self.entry(subjects: [7], targets: [Self.target(endpoint: 1, deviceType: 256)]),
            .constraintError
        ),
        (
            "four targets", Self.entry(subjects: [7], targets: Array(repeating: Self.target(cluster: 6), count: 4)),
            .resourceExhausted
        ),
        ("not a structure", TLVValue.unsigned(5), .constraintError),
    ])
    func `a wrong entry is refused and nothing changes`(name: String, entry: TLVValue, status: StatusCode) throws {
        var (root, admin) = try commissioned()
        let before = root.state.accessControl
        #expect(root.writeAccessControl(entry, append: true, fabricIndex: 1).failure == status, "\(name)")
        let list = TLVValue.array([Self.entry(subjects: [admin]), entry])
        #expect(root.writeAccessControl(list, append: false, fabricIndex: 1).failure == status, "\(name)")
        #expect(root.state.accessControl == before)
    }

    @Test func `at most four entries a fabric; none for a fabric that is not there`() throws {
        var (root, admin) = try commissioned()
        let five = TLVValue.array(Array(repeating: Self.entry(subjects: [admin]), count: 5))
        #expect(root.writeAccessControl(five, append: false, fabricIndex: 1).failure == .resourceExhausted)
        let four = TLVValue.array(Array(repeating: Self.entry(subjects: [admin]), count: 4))
        _ = try root.writeAccessControl(four, append: false, fabricIndex: 1).get()
        let another = Self.entry(privilege: 1, subjects: [9])
        #expect(root.writeAccessControl(another, append: true, fabricIndex: 1).failure == .resourceExhausted)
        #expect(root.writeAccessControl(another, append: true, fabricIndex: 2).failure == .unsupportedAccess)
        #expect(root.state.accessControl.count == 4)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
