import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterInteraction

/// Access control at the node: whether a subject may act (an ACL target may name a device type: the
/// endpoint's Descriptor is read only then), and the ACL written by an administrator, each change an
/// AccessControlEntryChanged event its fabric can read.
extension MatterNode {
    /// Whether `subject` holds what `required` needs on `cluster` of `endpoint`.
    func permits(_ subject: AccessSubject, _ required: Privilege, endpoint: UInt16, cluster: UInt32) -> Bool {
        let state = dataModel.root.state
        let namesTypes = state.accessControl.contains { $0.targets?.contains { $0.deviceType != nil } == true }
        return state.allows(
            subject, required, endpoint: endpoint, cluster: cluster,
            deviceTypes: namesTypes ? dataModel.deviceTypes(endpoint) : [])
    }

    /// Writes the session's fabric's ACL (the whole list, or one entry appended) and records what
    /// changed (Access Control event 0: AdminNodeID, AdminPasscodeID, ChangeType, LatestValue).
    mutating func writeAccessControl(
        _ value: TLVValue, append: Bool, session: SessionTable<Peer>.Secure, now: ContinuousClock.Instant
    ) -> StatusCode {
        switch dataModel.writeAccessControl(value, append: append, fabricIndex: session.fabricIndex) {
        case .failure(let status):
            log(.info, "Matter: an ACL write by fabric \(session.fabricIndex) was refused: \(status)")
            return status
        case .success(let change):
            let isCASE = session.kind == .case
            let admin: TLVValue = isCASE ? .unsigned(session.peerNodeID) : .null
            let passcode: TLVValue = isCASE ? .null : .unsigned(0)  // the commissioning passcode's id
            let changes = change.removed.map { ($0, UInt64(2)) } + change.added.map { ($0, UInt64(1)) }
            for (entry, changeType) in changes {
                events.record(
                    endpoint: RootEndpoint.endpoint, cluster: ClusterID.accessControl, event: 0x00, priority: .info,
                    data: .contextStructure([
                        1: admin, 2: passcode, 3: .unsigned(changeType),
                        4: CommissioningState.encoded(entry, accessingFabricIndex: entry.fabricIndex),
                        254: .unsigned(UInt64(entry.fabricIndex)),
                    ]), fabricIndex: entry.fabricIndex, at: now)
            }
            let count = dataModel.root.state.accessControl.count { $0.fabricIndex == session.fabricIndex }
            log(.info, "Matter: fabric \(session.fabricIndex) wrote its ACL: \(count) entries now")
            return .success
        }
    }
}
