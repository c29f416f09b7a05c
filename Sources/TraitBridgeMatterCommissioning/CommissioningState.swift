public import TraitBridgeMatterCredentials

/// What commissioning has done to the node, as one value (Matter Core §11.10 General Commissioning,
/// §11.18 Operational Credentials): the fail-safe and what it has staged, the breadcrumb, the
/// regulatory config, the fabric table and the ACL. Commands come in as typed calls with the time
/// passed in; results and `notices` (what the node must act on: advertise, close sessions) come out.
/// No clock, no I/O, so every path — expiry included — is a table test.
public struct CommissioningState: Sendable {
    /// The largest fabric table, SupportedFabrics. The spec's minimum is 5; so is ours.
    public static let supportedFabrics = 5
    /// BasicCommissioningInfo.FailSafeExpiryLengthSeconds: a commissioner's default arming length.
    public static let failSafeExpiryLength = Duration.seconds(60)
    /// BasicCommissioningInfo.MaxCumulativeFailsafeSeconds: the longest a fail-safe stays armed from
    /// its first arming, however often it is re-armed.
    public static let maxCumulativeFailSafe = Duration.seconds(900)

    /// The installed fabrics, committed or pending (see `failSafe.addedFabricIndex`), by index.
    public internal(set) var fabrics: [Fabric] = []
    /// The ACL over all fabrics.
    public internal(set) var accessControl: [AccessControlEntry] = []
    /// Breadcrumb (General Commissioning 0x0000): the commissioner's progress marker, 0 when idle.
    public internal(set) var breadcrumb: UInt64 = 0
    /// RegulatoryConfig (0x0002).
    public internal(set) var regulatoryConfig: RegulatoryLocation
    /// The country code last set by SetRegulatoryConfig ("XX" = unknown).
    public internal(set) var countryCode = "XX"
    /// LocationCapability (0x0003): where the device may be installed.
    public let locationCapability: RegulatoryLocation
    /// The armed fail-safe, nil when disarmed.
    public internal(set) var failSafe: FailSafe?
    /// The window an administrator opened (Administrator Commissioning), until it closes.
    public internal(set) var window: CommissioningWindow?
    /// What happened since the last `takeNotices()`.
    public internal(set) var notices: [CommissioningNotice] = []

    /// A fresh, uncommissioned node.
    public init(locationCapability: RegulatoryLocation = .indoorOutdoor) {
        self.locationCapability = locationCapability
        regulatoryConfig = locationCapability
    }

    /// The notices gathered so far, emptied.
    public mutating func takeNotices() -> [CommissioningNotice] {
        defer { notices = [] }
        return notices
    }

    /// The fabric with `index`, if installed.
    public func fabric(_ index: UInt8) -> Fabric? { fabrics.first { $0.index == index } }

    /// Rolls back the fail-safe if its deadline has passed at `now`; call on every timer tick and
    /// before every command. Says so in `notices`.
    public mutating func advance(to now: ContinuousClock.Instant) {
        if let failSafe, now >= failSafe.deadline { rollBack(.expired) }
        if let window, now >= window.deadline { closeWindow() }
    }

    // MARK: General Commissioning

    /// ArmFailSafe: arms (or re-arms) the fail-safe for `expiry` from `context.now` and sets the
    /// breadcrumb, or disarms it with a zero expiry, rolling back what it staged.
    /// BusyWithOtherAdmin when another fabric holds it.
    public mutating func armFailSafe(
        expiry: Duration, breadcrumb: UInt64, context: CommandContext
    ) -> CommissioningError {
        advance(to: context.now)
        if let failSafe, !failSafe.isHeld(by: context) { return .busyWithOtherAdmin }
        if expiry == .zero {
            // As the SDK: the breadcrumb is not set, the rollback zeroes it.
            if failSafe != nil { rollBack(.disarmed) }
            return .ok
        }
        if var armed = failSafe {
            armed.deadline = min(context.now + expiry, armed.cumulativeDeadline)
            failSafe = armed
        } else {
            let cumulative = context.now + Self.maxCumulativeFailSafe
            failSafe = FailSafe(
                fabricIndex: context.fabricIndex, deadline: min(context.now + expiry, cumulative),
                cumulativeDeadline: cumulative)
            notices.append(.failSafeArmed(fabricIndex: context.fabricIndex))
        }
        self.breadcrumb = breadcrumb
        return .ok
    }

    /// SetRegulatoryConfig: ValueOutsideRange when `config` is beyond LocationCapability (an
    /// indoor-only device told outdoor, or the reverse). Fields are checked by the caller.
    public mutating func setRegulatoryConfig(
        _ config: RegulatoryLocation, countryCode: String, breadcrumb: UInt64, context: CommandContext
    ) -> CommissioningError {
        advance(to: context.now)
        guard locationCapability == .indoorOutdoor || config == locationCapability else { return .valueOutsideRange }
        regulatoryConfig = config
        self.countryCode = countryCode
        self.breadcrumb = breadcrumb
        return .ok
    }

    /// CommissioningComplete: on a CASE session of the fabric the fail-safe is for (the one AddNOC
    /// added, or the one that armed it), commits what is staged, disarms and zeroes the breadcrumb.
    public mutating func commissioningComplete(context: CommandContext) -> CommissioningError {
        advance(to: context.now)
        guard let failSafe else { return .noFailSafe }
        guard context.sessionKind == .case, context.fabricIndex != 0,
            context.fabricIndex == (failSafe.addedFabricIndex ?? failSafe.fabricIndex)
        else { return .invalidAuthentication }
        self.failSafe = nil
        breadcrumb = 0
        notices.append(.commissioningCompleted(fabricIndex: context.fabricIndex))
        closeWindow()
        return .ok
    }

    /// Undoes everything the fail-safe staged: the pending root and key, the fabric AddNOC added
    /// and its ACL entries, the NOC (ICAC) and key UpdateNOC replaced; the breadcrumb goes to 0.
    mutating func rollBack(_ reason: CommissioningNotice.RollbackReason) {
        guard let failSafe else { return }
        if let added = failSafe.addedFabricIndex {
            fabrics.removeAll { $0.index == added }
            accessControl.removeAll { $0.fabricIndex == added }
        }
        if let previous = failSafe.fabricBeforeUpdate,
            let position = fabrics.firstIndex(where: { $0.index == previous.index })
        {
            fabrics[position] = previous
        }
        self.failSafe = nil
        breadcrumb = 0
        notices.append(
            .failSafeRolledBack(
                reason, removedFabricIndex: failSafe.addedFabricIndex,
                restoredFabricIndex: failSafe.fabricBeforeUpdate?.index))
    }
}

/// RegulatoryLocationTypeEnum (General Commissioning §11.10.5.2).
public enum RegulatoryLocation: UInt8, Sendable, Hashable, CaseIterable {
    case indoor = 0
    case outdoor = 1
    case indoorOutdoor = 2
}

/// The armed fail-safe (Matter Core §11.10.7.2) and what it has staged since it was armed.
public struct FailSafe: Sendable {
    /// The fabric whose session armed it; 0 for PASE (no fabric yet).
    public let fabricIndex: UInt8
    /// When it expires unless re-armed.
    public internal(set) var deadline: ContinuousClock.Instant
    /// The latest any re-arming can push `deadline` to (MaxCumulativeFailsafeSeconds).
    public let cumulativeDeadline: ContinuousClock.Instant
    /// The RCAC of AddTrustedRootCertificate, decoded and self-signature checked.
    public internal(set) var pendingRoot: OperationalCertificate?
    /// The operational key CSRRequest made.
    public internal(set) var pendingKey: OperationalKeyPair?
    /// Whether that CSRRequest was for UpdateNOC (then AddNOC refuses it).
    public internal(set) var isCSRForUpdateNOC = false
    /// The fabric AddNOC added in this fail-safe, not yet committed.
    public internal(set) var addedFabricIndex: UInt8?
    /// The fabric as it was before UpdateNOC replaced its NOC (ICAC) and key in this fail-safe: what
    /// a rollback restores and what the snapshot keeps until CommissioningComplete commits the update.
    public internal(set) var fabricBeforeUpdate: Fabric?

    /// Whether AddNOC or UpdateNOC has succeeded in this fail-safe (the SDK's NocCommandHasBeenInvoked):
    /// then CSRRequest, AddTrustedRootCertificate, AddNOC and UpdateNOC are CONSTRAINT_ERROR.
    public var isNOCInvoked: Bool { addedFabricIndex != nil || fabricBeforeUpdate != nil }

    /// Whether the session of `context` holds this fail-safe: the one that armed it, a session of
    /// the fabric AddNOC added (the SDK binds the commissioning PASE session to it), or PASE when
    /// PASE armed it.
    public func isHeld(by context: CommandContext) -> Bool {
        context.fabricIndex == fabricIndex || context.fabricIndex == addedFabricIndex
            || (fabricIndex == 0 && context.sessionKind == .pase)
    }
}

/// What the node must act on after a command or a timer tick.
public enum CommissioningNotice: Sendable, Hashable {
    /// Why staged state was undone.
    public enum RollbackReason: Sendable, Hashable {
        /// The deadline passed.
        case expired
        /// ArmFailSafe with expiry 0.
        case disarmed
    }

    /// The fail-safe was armed by this fabric's session (0: PASE).
    case failSafeArmed(fabricIndex: UInt8)
    /// The fail-safe ended without CommissioningComplete; what it staged is gone and the breadcrumb
    /// is 0. With a removed fabric (AddNOC undone), close its sessions and stop advertising it. With a
    /// restored fabric (UpdateNOC undone) the fabric has its old NOC and key again: CASE and the
    /// announcement must use them, and the sessions made with the pending NOC are closed and their
    /// resumption records forgotten (the SDK's `FailSafeCleanup`: `ExpireAllSessionsForFabric`, then
    /// `RevertPendingFabricData`).
    case failSafeRolledBack(RollbackReason, removedFabricIndex: UInt8?, restoredFabricIndex: UInt8?)
    /// AddNOC installed a fabric: advertise `_matter._tcp` for it, accept CASE, and bind the PASE
    /// session that sent AddNOC to this fabric index (as the SDK does).
    case fabricAdded(index: UInt8)
    /// UpdateNOC gave the fabric a new NOC (ICAC) and key, pending until CommissioningComplete: announce
    /// the node id it now has, answer CASE with the new chain, forget the fabric's resumption records
    /// (the SDK's `OnFabricUpdated`) and close its other sessions, the one that sent UpdateNOC once its
    /// NOCResponse is delivered (the SDK's `AbortAllOtherCommunicationOnFabric`, Core §11.18.6.9).
    case fabricUpdated(index: UInt8)
    /// CommissioningComplete committed the fabric; the PASE session may be closed.
    case commissioningCompleted(fabricIndex: UInt8)
    /// RemoveFabric removed it: close its sessions, stop advertising it.
    case fabricRemoved(index: UInt8)
    /// An administrator opened a window: answer PASE with its verifier, announce its discriminator.
    case windowOpened(CommissioningWindow)
    /// The administrator's window closed (revoked, timed out, or commissioning completed).
    case windowClosed
}

/// Who sends a command, and when: what the root endpoint's commands depend on besides their fields.
public struct CommandContext: Sendable {
    /// The secure session kind.
    public enum SessionKind: Sendable, Hashable {
        case pase
        case `case`
    }

    public var sessionKind: SessionKind
    /// The accessing fabric index; 0 on PASE before AddNOC.
    public var fabricIndex: UInt8
    /// The session's attestation challenge (16 bytes; the third part of PASE's SessionKeys).
    public var attestationChallenge: [UInt8]
    /// The time of the command.
    public var now: ContinuousClock.Instant

    public init(
        sessionKind: SessionKind, fabricIndex: UInt8, attestationChallenge: [UInt8], now: ContinuousClock.Instant
    ) {
        self.sessionKind = sessionKind
        self.fabricIndex = fabricIndex
        self.attestationChallenge = attestationChallenge
        self.now = now
    }
}
