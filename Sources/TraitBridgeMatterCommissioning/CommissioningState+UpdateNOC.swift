internal import TraitBridgeMatterCredentials
public import TraitBridgeMatterInteraction

/// UpdateNOC (Operational Credentials command 0x07, Matter Core §11.18.6.9): an administrator gives
/// its own fabric a new NOC (and ICAC; each at most 400 bytes, which the caller checks) for the key
/// of a CSRRequest with IsForUpdateNOC, under the fabric's existing root. As the SDK's
/// `HandleUpdateNOC` and `FabricTable::UpdatePendingFabricCommon`: the update is live at once (CASE
/// and the announcement use the new chain), stays pending until CommissioningComplete commits it,
/// and a fail-safe rollback restores the old NOC, ICAC and key.
extension CommissioningState {
    /// UpdateNOC, checks in the SDK's order: the fail-safe armed by the accessing fabric
    /// (FAILSAFE_REQUIRED), no AddNOC/UpdateNOC yet in it (CONSTRAINT_ERROR), a CSRRequest before it
    /// (MissingCsr) that was for UpdateNOC (CONSTRAINT_ERROR), a CASE session of an installed fabric
    /// (InvalidNOC, the SDK's answer over PASE), no root staged (MissingCsr); then the NOC: its fabric
    /// id must be the fabric's (InvalidFabricIndex), the chain must verify to the fabric's root
    /// (InvalidNOC), the node id be operational (InvalidNodeOpID) and the key CSRRequest's
    /// (InvalidPublicKey). The node id may change; the IPK, vendor id, label and ACL stay.
    public mutating func updateNOC(
        noc: [UInt8], icac: [UInt8]?, context: CommandContext
    ) -> Result<NOCResponse, StatusCode> {
        advance(to: context.now)
        guard var armed = failSafe, armed.isHeld(by: context) else { return .failure(.failsafeRequired) }
        guard !armed.isNOCInvoked else { return .failure(.constraintError) }
        guard let key = armed.pendingKey else { return .success(NOCResponse(.missingCsr)) }
        guard armed.isCSRForUpdateNOC else { return .failure(.constraintError) }
        guard context.sessionKind == .case,
            let position = fabrics.firstIndex(where: { $0.index == context.fabricIndex })
        else { return .success(NOCResponse(.invalidNOC)) }
        guard armed.pendingRoot == nil else { return .success(NOCResponse(.missingCsr)) }
        let current = fabrics[position]
        let chain: CertificateChain
        do { chain = try Self.verifyUpdate(noc: noc, icac: icac, of: current) } catch {
            return .success(NOCResponse(error.status))
        }
        guard Self.isOperationalNodeID(chain.nodeID) else { return .success(NOCResponse(.invalidNodeOpID)) }
        guard chain.noc.publicKey == key.publicKey else { return .success(NOCResponse(.invalidPublicKey)) }

        fabrics[position] = Fabric(
            index: current.index, chain: chain, ipkEpochKey: current.ipkEpochKey, operationalKey: key,
            vendorID: current.vendorID, label: current.label)
        armed.fabricBeforeUpdate = current
        armed.pendingKey = nil
        failSafe = armed
        notices.append(.fabricUpdated(index: current.index))
        return .success(NOCResponse(.ok, fabricIndex: current.index))
    }

    /// The new chain under `fabric`'s root: InvalidNOC when a certificate does not decode or the chain
    /// does not verify (time ignored, as when installing), InvalidFabricIndex when the NOC names
    /// another fabric id (the SDK finds no fabric of this root with it, or another fabric).
    private static func verifyUpdate(
        noc bytes: [UInt8], icac icacBytes: [UInt8]?, of fabric: Fabric
    ) throws(Refusal) -> CertificateChain {
        guard let noc = try? OperationalCertificate(tlv: bytes), let fabricID = noc.subject.fabricID else {
            throw Refusal(status: .invalidNOC)
        }
        guard fabricID == fabric.fabricID else { throw Refusal(status: .invalidFabricIndex) }
        var icac: OperationalCertificate?
        if let icacBytes, !icacBytes.isEmpty {
            guard let decoded = try? OperationalCertificate(tlv: icacBytes) else { throw Refusal(status: .invalidNOC) }
            icac = decoded
        }
        guard
            let chain = try? CertificateChain.verify(
                noc: noc, icac: icac, rcac: fabric.chain.rcac, policy: .ignoringTime),
            chain.fabricID == fabric.fabricID
        else { throw Refusal(status: .invalidNOC) }
        return chain
    }

    /// The NOCResponse status an UpdateNOC chain is refused with.
    private struct Refusal: Error {
        let status: NOCStatus
    }
}
