public import TraitBridgeMatterCodec
public import TraitBridgeMatterInteraction

/// Writing the ACL (Access Control cluster attribute 0, Matter Core §9.10.5.3): a fabric-scoped list.
/// A write replaces the accessing fabric's entries (or, as an append, adds one), every entry checked
/// first as connectedhomeip checks it; the other fabrics' entries never change. A failed write changes
/// nothing.
extension CommissioningState {
    /// SubjectsPerAccessControlEntry, TargetsPerAccessControlEntry, AccessControlEntriesPerFabric:
    /// the limits the cluster says it has (attributes 2, 3, 4).
    public static let subjectsPerEntry = 4
    public static let targetsPerEntry = 3
    public static let entriesPerFabric = 4

    /// What an ACL write did, for the AccessControlEntryChanged events: the entries removed and added.
    public struct AccessControlChange: Sendable, Equatable {
        public var removed: [AccessControlEntry]
        public var added: [AccessControlEntry]
    }

    /// Writes fabric `fabricIndex`'s ACL: `value` is the whole list (replacing its entries) or, with
    /// `append`, one entry. The written FabricIndex is ignored: entries are the accessing fabric's.
    public mutating func writeAccessControl(
        _ value: TLVValue, append: Bool, fabricIndex: UInt8
    ) -> Result<AccessControlChange, StatusCode> {
        guard fabric(fabricIndex) != nil else { return .failure(.unsupportedAccess) }
        let written: [TLVValue]
        if append {
            written = [value]
        } else {
            guard case .array(let elements) = value else { return .failure(.constraintError) }
            written = elements
        }
        var entries: [AccessControlEntry] = []
        for element in written {
            switch Self.accessControlEntry(element, fabricIndex: fabricIndex) {
            case .success(let entry): entries.append(entry)
            case .failure(let status): return .failure(status)
            }
        }
        let kept = accessControl.filter { $0.fabricIndex == fabricIndex }
        let total = append ? kept.count + entries.count : entries.count
        guard total <= Self.entriesPerFabric else { return .failure(.resourceExhausted) }
        if append {
            accessControl.append(contentsOf: entries)
            return .success(AccessControlChange(removed: [], added: entries))
        }
        // The fabric's entries take the place of its first one; the others keep their order.
        let position = accessControl.firstIndex { $0.fabricIndex == fabricIndex } ?? accessControl.endIndex
        accessControl.removeAll { $0.fabricIndex == fabricIndex }
        accessControl.insert(contentsOf: entries, at: min(position, accessControl.endIndex))
        return .success(AccessControlChange(removed: kept, added: entries))
    }

    /// One written `AccessControlEntryStruct`, checked: a privilege and an auth mode the ACL can hold
    /// (CASE or Group, never Administer for a group), subjects that are operational node ids or CATs
    /// (group ids for a group), targets each naming something and never an endpoint and a device type
    /// both; CONSTRAINT_ERROR otherwise, RESOURCE_EXHAUSTED past the limits.
    static func accessControlEntry(_ value: TLVValue, fabricIndex: UInt8) -> Result<AccessControlEntry, StatusCode> {
        guard case .structure = value,
            let privilege = try? value.uint(1, as: UInt8.self), (1...5).contains(privilege),
            let authMode = try? value.uint(2, as: UInt8.self),
            authMode == AccessControlEntry.caseAuthMode || authMode == AccessControlEntry.groupAuthMode,
            !(authMode == AccessControlEntry.groupAuthMode && privilege == AccessControlEntry.administer)
        else { return .failure(.constraintError) }
        var subjects: [UInt64]?
        if let written = value[3], !written.isNull {
            guard case .array(let elements) = written else { return .failure(.constraintError) }
            guard elements.count <= subjectsPerEntry else { return .failure(.resourceExhausted) }
            var list: [UInt64] = []
            for element in elements {
                guard let subject = try? element.asUInt(UInt64.self),
                    authMode == AccessControlEntry.groupAuthMode
                        ? (1...0xFFFF).contains(subject) : isCASESubject(subject)
                else { return .failure(.constraintError) }
                list.append(subject)
            }
            subjects = list
        }
        var targets: [AccessControlTarget]?
        if let written = value[4], !written.isNull {
            guard case .array(let elements) = written else { return .failure(.constraintError) }
            guard elements.count <= targetsPerEntry else { return .failure(.resourceExhausted) }
            var list: [AccessControlTarget] = []
            for element in elements {
                guard let target = accessControlTarget(element) else { return .failure(.constraintError) }
                list.append(target)
            }
            targets = list
        }
        return .success(
            AccessControlEntry(
                privilege: privilege, authMode: authMode, subjects: subjects, targets: targets,
                fabricIndex: fabricIndex))
    }

    /// An `AccessControlTargetStruct`: cluster (0), endpoint (1), device type (2), each nullable.
    static func accessControlTarget(_ value: TLVValue) -> AccessControlTarget? {
        guard case .structure = value else { return nil }
        func field<T: FixedWidthInteger & UnsignedInteger>(_ tag: UInt8, _: T.Type) -> T?? {
            guard let member = value[tag], !member.isNull else { return .some(nil) }
            guard let number = try? member.asUInt(T.self) else { return nil }
            return .some(number)
        }
        guard let cluster = field(0, UInt32.self), let endpoint = field(1, UInt16.self),
            let deviceType = field(2, UInt32.self)
        else { return nil }
        guard cluster != nil || endpoint != nil || deviceType != nil, endpoint == nil || deviceType == nil else {
            return nil
        }
        return AccessControlTarget(cluster: cluster, endpoint: endpoint, deviceType: deviceType)
    }

    /// A CASE subject: an operational node id, or a CAT (0xFFFF_FFFD_iiii_vvvv) with a version.
    static func isCASESubject(_ subject: UInt64) -> Bool {
        if subject >> 32 == 0xFFFF_FFFD { return subject & 0xFFFF != 0 }
        return isOperationalNodeID(subject)
    }

    /// An entry as the ACL attribute gives it (fabric-sensitive: another fabric's shows its index only).
    public static func encoded(_ entry: AccessControlEntry, accessingFabricIndex: UInt8) -> TLVValue {
        guard entry.fabricIndex == accessingFabricIndex else {
            return .contextStructure([254: .unsigned(UInt64(entry.fabricIndex))])
        }
        let targets: TLVValue? = entry.targets.map { list in
            .array(
                list.map { target in
                    .contextStructure([
                        0: target.cluster.map { .unsigned(UInt64($0)) } ?? .null,
                        1: target.endpoint.map { .unsigned(UInt64($0)) } ?? .null,
                        2: target.deviceType.map { .unsigned(UInt64($0)) } ?? .null,
                    ])
                })
        }
        return .contextStructure([
            1: .unsigned(UInt64(entry.privilege)), 2: .unsigned(UInt64(entry.authMode)),
            3: entry.subjects.map { .array($0.map { .unsigned($0) }) } ?? .null, 4: targets ?? .null,
            254: .unsigned(UInt64(entry.fabricIndex)),
        ])
    }
}
