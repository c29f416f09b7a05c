import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// What a change of a fabric's operational identity does to its sessions and CASE resumption records
/// (Core §11.18.6.9 UpdateNOC, §11.10.7.2 the fail-safe). This follows connectedhomeip, checked in its
/// sources (`operational-credentials-server.cpp`, `FabricTable.cpp`, `Server.h`):
///
/// - UpdateNOC succeeds: `FabricTable::UpdatePendingFabricCommon` calls `NotifyFabricUpdated`, and the
///   server's fabric delegate (`OnFabricUpdated`) deletes every resumption record of the fabric. Once the
///   NOCResponse is encoded, `AbortAllOtherCommunicationOnFabric` expires every session of the fabric; the
///   invoking one lives only until that response is delivered. The spec asks "an outcome equivalent to the
///   disappearance of the prior Node, except for the ongoing CASE session context, which SHALL temporarily
///   remain valid until the NOCResponse has been successfully delivered". The administrator then opens
///   CASE to the new identity and sends CommissioningComplete on that session.
/// - CommissioningComplete commits the update (`CommitPendingFabricData`): the SDK touches no session
///   there (the server's delegate does nothing on `OnFabricCommitted`). Every older session is already
///   gone; the ones left were made with the new NOC, which the commit keeps. Nothing is closed here either.
/// - The fail-safe rolls back after UpdateNOC (`FailSafeCleanup`): `ExpireAllSessionsForFabric` (by then
///   only sessions made with the pending NOC), then `RevertPendingFabricData` restores the old NOC and key.
///   That revert notifies no delegate, so the SDK keeps resumption records made under the pending NOC;
///   this node forgets them as well. They belong to an identity the node no longer has, and forgetting
///   them costs one full CASE.
///
/// The same goes for a rollback that removes the fabric AddNOC added. The session whose own command
/// caused the change (UpdateNOC, ArmFailSafe with expiry 0) is not dropped at once: the node marks it
/// ``SessionTable/Secure/closesAfterReply`` and drops it once its reply is acknowledged or MRP gives up.
extension MatterNode {
    /// Fabric `index` has a new, restored or no operational identity: its resumption records go, and so
    /// do its sessions; `invoking`, if it is one of them, stays until its reply is delivered.
    mutating func operationalIdentityChanged(ofFabric index: UInt8, invokedOn invoking: SessionKey?) {
        caseResponder.forgetResumptions(ofFabric: index)
        closeSessions(ofFabric: index, keepingUntilReplied: invoking)
    }

    /// Closes every secure session of fabric `index`. `invoking`, if one of them, serves nothing more
    /// (its subscriptions end now) and goes once what it sent is acknowledged (``closeRepliedSessions()``).
    mutating func closeSessions(ofFabric index: UInt8, keepingUntilReplied invoking: SessionKey?) {
        for var session in sessions.secure.values where session.fabricIndex == index {
            guard session.key == invoking else {
                dropped(session)
                continue
            }
            session.closesAfterReply = true
            sessions.update(session)
            interactions.sessionClosed(session.key)
        }
    }

    /// Drops the sessions marked to close whose replies are all acknowledged (or given up); called after
    /// every event.
    mutating func closeRepliedSessions() {
        for session in sessions.secure.values
        where session.closesAfterReply && !exchanges.isAwaitingAck(on: session.key) {
            dropped(session)
            log(
                .info,
                "Matter: session \(session.localSessionID) closed: its reply was delivered and its fabric's"
                    + " operational identity changed", ["tb.matter.session": "\(session.localSessionID)"])
        }
    }
}
