public import TraitBridgeMatterCodec
public import TraitBridgeMatterInteraction

/// The root endpoint's writable attributes: Basic Information NodeLabel and Location, General
/// Commissioning Breadcrumb, and the ACL (``writeAccessControl(_:append:fabricIndex:)``: a fabric-scoped
/// list). Everything else that exists is UNSUPPORTED_WRITE.
extension RootEndpoint {
    /// The ACL attribute (Access Control cluster, attribute 0).
    public static let accessControlList = ConcreteAttributePath(
        endpoint: endpoint, cluster: ClusterID.accessControl, attribute: 0x0000)

    /// Writes the accessing fabric's ACL: the whole list, or one entry appended (a list written in parts).
    public mutating func writeAccessControl(
        _ value: TLVValue, append: Bool, fabricIndex: UInt8
    ) -> Result<CommissioningState.AccessControlChange, StatusCode> {
        state.writeAccessControl(value, append: append, fabricIndex: fabricIndex)
    }

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
