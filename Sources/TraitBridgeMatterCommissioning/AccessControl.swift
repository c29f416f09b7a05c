/// Matter's privileges (Core §6.6.2), each granting those below it (Administer grants Manage,
/// Operate and View; ProxyView grants View).
public enum Privilege: UInt8, Sendable, Hashable, Comparable, CaseIterable {
    case view = 1
    case proxyView, operate, manage, administer

    public static func < (lhs: Privilege, rhs: Privilege) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether holding `self` allows an action that needs `required`.
    public func grants(_ required: Privilege) -> Bool {
        switch (self, required) {
        case (.proxyView, .view), (.proxyView, .proxyView): true
        case (.proxyView, _): false
        case (_, .proxyView): self == .administer
        default: self >= required
        }
    }
}

/// Who acts, as access control sees them (Core §6.6.2.1): a PASE session (a commissioner, granted
/// Administer while it commissions, as connectedhomeip grants it) or a CASE session's node on a fabric
/// with its CASE Authenticated Tags.
public enum AccessSubject: Sendable, Hashable {
    case commissioner
    case node(UInt64, fabricIndex: UInt8, caseAuthenticatedTags: [UInt32])
}

/// The privilege each action needs (Core §6.6.5 and the clusters' access qualities): reading needs
/// View, except the Access Control cluster (Administer); writing needs Manage on Basic Information
/// and Identify, Administer elsewhere on the root endpoint, Operate on other endpoints; invoking
/// needs Administer on the root's commissioning clusters, Manage for Identify and General
/// Diagnostics, Operate otherwise.
public enum AccessRequirement {
    public static func read(endpoint: UInt16, cluster: UInt32) -> Privilege {
        cluster == ClusterID.accessControl ? .administer : .view
    }

    public static func write(endpoint: UInt16, cluster: UInt32) -> Privilege {
        if cluster == ClusterID.basicInformation || cluster == 0x0003 { return .manage }
        return endpoint == RootEndpoint.endpoint ? .administer : .operate
    }

    public static func invoke(endpoint: UInt16, cluster: UInt32) -> Privilege {
        if cluster == 0x0003 || cluster == ClusterID.generalDiagnostics { return .manage }
        return endpoint == RootEndpoint.endpoint ? .administer : .operate
    }
}

extension CommissioningState {
    /// The highest privilege `subject` holds on `cluster` of `endpoint` (whose device types are
    /// `deviceTypes`) by the ACL: its fabric's CASE entries that name it (or no one) and cover the
    /// cluster (or have no targets); nil for none.
    public func privilege(
        of subject: AccessSubject, endpoint: UInt16, cluster: UInt32, deviceTypes: [UInt32] = []
    ) -> Privilege? {
        guard case .node(let nodeID, let fabricIndex, let tags) = subject else { return .administer }
        return accessControl.filter { entry in
            entry.fabricIndex == fabricIndex && entry.authMode == AccessControlEntry.caseAuthMode
                && (entry.subjects.map { $0.isEmpty || $0.contains { Self.matches($0, nodeID: nodeID, tags: tags) } }
                    ?? true)
                && (entry.targets.map { targets in
                    targets.isEmpty
                        || targets.contains {
                            $0.covers(endpoint: endpoint, cluster: cluster, deviceTypes: deviceTypes)
                        }
                } ?? true)
        }.compactMap { Privilege(rawValue: $0.privilege) }.max()
    }

    /// Whether `subject` may do what needs `required` on `cluster` of `endpoint` (of `deviceTypes`).
    public func allows(
        _ subject: AccessSubject, _ required: Privilege, endpoint: UInt16, cluster: UInt32,
        deviceTypes: [UInt32] = []
    ) -> Bool {
        privilege(of: subject, endpoint: endpoint, cluster: cluster, deviceTypes: deviceTypes)?.grants(required)
            ?? false
    }

    /// An ACL subject names the node, or a CAT (0xFFFFFFFD_iiii_vvvv) the node holds at that version or later.
    public static func matches(_ subject: UInt64, nodeID: UInt64, tags: [UInt32]) -> Bool {
        guard subject >> 32 == 0xFFFF_FFFD else { return subject == nodeID }
        let identifier = UInt16(truncatingIfNeeded: subject >> 16)
        let version = UInt16(truncatingIfNeeded: subject)
        return tags.contains {
            UInt16(truncatingIfNeeded: $0 >> 16) == identifier && UInt16(truncatingIfNeeded: $0) >= version
        }
    }
}
