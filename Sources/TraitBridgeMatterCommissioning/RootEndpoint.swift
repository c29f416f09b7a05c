public import TraitBridgeMatterCodec
public import TraitBridgeMatterInteraction

/// The root endpoint (endpoint 0, device type Root Node 0x0016) as the Interaction Model layer sees
/// it: `read` an attribute, `invoke` a command, each by ids with TLV in and out. Behind it are the
/// commissioning state, the attestation credentials and the device information; the IM layer adds
/// paths, wildcards, chunking and access control. Notices for the node (advertise, close sessions)
/// collect in `state.notices`.
///
/// Data model version: Matter 1.4 (DataModelRevision 18, SpecificationVersion 0x01040000), what the
/// SDK in python-matter-server 7.0.1 (chip 2024.11.4) is. No EventList: the spec removed it in 1.3.
public struct RootEndpoint: Sendable {
    public var information: DeviceInformation
    public var state: CommissioningState
    public let attestation: DeviceAttestation

    public init(
        information: DeviceInformation = .init(), attestation: DeviceAttestation = .sdkTestCredentials,
        state: CommissioningState = .init()
    ) {
        self.information = information
        self.attestation = attestation
        self.state = state
    }

    /// How a read sees fabric-scoped lists: the accessing fabric (0 on PASE before AddNOC) and
    /// whether the read is fabric-filtered (then only that fabric's entries are reported).
    public struct FabricAccess: Sendable, Hashable {
        public var accessingFabricIndex: UInt8
        public var isFabricFiltered: Bool

        public init(accessingFabricIndex: UInt8, isFabricFiltered: Bool) {
            self.accessingFabricIndex = accessingFabricIndex
            self.isFabricFiltered = isFabricFiltered
        }
    }

    /// An invoke's answer: a response command with its fields, or a status (SUCCESS for commands
    /// without a response command).
    public enum InvokeResult: Sendable, Equatable {
        case response(commandID: UInt32, fields: TLVValue)
        case status(StatusCode)
        /// FAILURE with the cluster's own status code.
        case clusterStatus(UInt8)
    }

    /// The root endpoint's id.
    public static let endpoint: UInt16 = 0

    /// The clusters served, ascending (Descriptor ServerList).
    public static let clusters: [UInt32] = [
        ClusterID.descriptor, ClusterID.accessControl, ClusterID.basicInformation, ClusterID.generalCommissioning,
        ClusterID.networkCommissioning, ClusterID.generalDiagnostics, ClusterID.administratorCommissioning,
        ClusterID.operationalCredentials, ClusterID.groupKeyManagement,
    ]

    /// An attribute's current value; UNSUPPORTED_ENDPOINT / _CLUSTER / _ATTRIBUTE when there is none.
    public func read(
        endpoint: UInt16, cluster: UInt32, attribute: UInt32, fabric: FabricAccess
    ) -> Result<TLVValue, StatusCode> {
        guard endpoint == Self.endpoint else { return .failure(.unsupportedEndpoint) }
        guard let metadata = ClusterMetadata.all[cluster] else { return .failure(.unsupportedCluster) }
        let values = attributes(of: cluster, fabric: fabric)
        switch attribute {
        case GlobalAttribute.clusterRevision: return .success(.unsigned(UInt64(metadata.revision)))
        case GlobalAttribute.featureMap: return .success(.unsigned(UInt64(metadata.featureMap)))
        case GlobalAttribute.attributeList:
            let ids = values.keys.sorted() + GlobalAttribute.all
            return .success(.array(ids.map { .unsigned(UInt64($0)) }))
        case GlobalAttribute.acceptedCommandList:
            return .success(.array(metadata.accepted.map { .unsigned(UInt64($0)) }))
        case GlobalAttribute.generatedCommandList:
            return .success(.array(metadata.generated.map { .unsigned(UInt64($0)) }))
        default:
            guard let value = values[attribute] else { return .failure(.unsupportedAttribute) }
            return .success(value)
        }
    }

    /// The attribute ids of `cluster`, globals included, as AttributeList reports them; nil for a
    /// cluster not served. For path expansion.
    public func attributeIDs(cluster: UInt32) -> [UInt32]? {
        guard ClusterMetadata.all[cluster] != nil else { return nil }
        let access = FabricAccess(accessingFabricIndex: 0, isFabricFiltered: true)
        return attributes(of: cluster, fabric: access).keys.sorted() + GlobalAttribute.all
    }
}

/// The cluster ids of the root endpoint (Matter Application Cluster spec).
public enum ClusterID {
    public static let descriptor: UInt32 = 0x001D
    public static let accessControl: UInt32 = 0x001F
    public static let basicInformation: UInt32 = 0x0028
    public static let generalCommissioning: UInt32 = 0x0030
    public static let networkCommissioning: UInt32 = 0x0031
    public static let generalDiagnostics: UInt32 = 0x0033
    public static let administratorCommissioning: UInt32 = 0x003C
    public static let operationalCredentials: UInt32 = 0x003E
    public static let groupKeyManagement: UInt32 = 0x003F
}

/// The global attributes every cluster has (Matter Core §7.13), in AttributeList order.
public enum GlobalAttribute {
    public static let generatedCommandList: UInt32 = 0xFFF8
    public static let acceptedCommandList: UInt32 = 0xFFF9
    public static let attributeList: UInt32 = 0xFFFB
    public static let featureMap: UInt32 = 0xFFFC
    public static let clusterRevision: UInt32 = 0xFFFD
    /// Without EventList (0xFFFA), which Matter 1.3 removed.
    public static let all: [UInt32] = [
        generatedCommandList, acceptedCommandList, attributeList, featureMap, clusterRevision,
    ]
}

/// A served cluster's revision, features and commands.
struct ClusterMetadata {
    var revision: UInt16
    var featureMap: UInt32
    var accepted: [UInt32]
    var generated: [UInt32]

    /// ClusterRevision values from the Matter 1.4.2 data model (/work/shared/reference/matter-clusters.json,
    /// connectedhomeip `data_model/1.4.2`); not checked against the SDK pinned by python-matter-server
    /// (dee7d7bf, Matter 1.4.0), which may report lower ones. Network Commissioning: Ethernet (0x4) only.
    static let all: [UInt32: ClusterMetadata] = [
        ClusterID.descriptor: .init(revision: 3, featureMap: 0, accepted: [], generated: []),
        ClusterID.accessControl: .init(revision: 2, featureMap: 0, accepted: [], generated: []),
        ClusterID.basicInformation: .init(revision: 5, featureMap: 0, accepted: [], generated: []),
        ClusterID.generalCommissioning: .init(revision: 2, featureMap: 0, accepted: [0, 2, 4], generated: [1, 3, 5]),
        ClusterID.networkCommissioning: .init(revision: 2, featureMap: 0x4, accepted: [], generated: []),
        ClusterID.generalDiagnostics: .init(revision: 2, featureMap: 0, accepted: [0x0, 0x1], generated: [0x2]),
        ClusterID.administratorCommissioning: .init(revision: 1, featureMap: 0, accepted: [0x0, 0x2], generated: []),
        ClusterID.operationalCredentials: .init(
            revision: 2, featureMap: 0, accepted: [0x0, 0x2, 0x4, 0x6, 0x7, 0x9, 0xA, 0xB],
            generated: [0x1, 0x3, 0x5, 0x8]),
        ClusterID.groupKeyManagement: .init(revision: 2, featureMap: 0, accepted: [], generated: []),
    ]
}
