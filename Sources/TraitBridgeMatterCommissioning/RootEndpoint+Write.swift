public import TraitBridgeMatterCodec
public import TraitBridgeMatterInteraction

/// The root endpoint's writable attributes: Basic Information NodeLabel and Location, General
/// Commissioning Breadcrumb. Everything else that exists is UNSUPPORTED_WRITE; the ACL is not yet
/// writable (it holds AddNOC's entry only).
extension RootEndpoint {
    /// Writes `value` to the attribute; SUCCESS, or the IM status of the refusal. A value of the
    /// wrong type or size is CONSTRAINT_ERROR.
    public mutating func write(
        endpoint: UInt16, cluster: UInt32, attribute: UInt32, value: TLVValue
    ) -> StatusCode {
        guard endpoint == Self.endpoint else { return .unsupportedEndpoint }
        guard ClusterMetadata.all[cluster] != nil else { return .unsupportedCluster }
        switch (cluster, attribute) {
        case (ClusterID.basicInformation, 0x0005):
            guard case .string(let label) = value, label.utf8.count <= 32 else { return .constraintError }
            information.nodeLabel = label
        case (ClusterID.basicInformation, 0x0006):
            guard case .string(let location) = value, location.utf8.count == 2 else { return .constraintError }
            information.location = location
        case (ClusterID.generalCommissioning, 0x0000):
            guard case .unsigned(let breadcrumb) = value else { return .constraintError }
            state.breadcrumb = breadcrumb
        default:
            let access = FabricAccess(accessingFabricIndex: 0, isFabricFiltered: true)
            let exists =
                (try? read(endpoint: endpoint, cluster: cluster, attribute: attribute, fabric: access).get()) != nil
            return exists ? .unsupportedWrite : .unsupportedAttribute
        }
        return .success
    }
}
