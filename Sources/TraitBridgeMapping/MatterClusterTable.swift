import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/matter/clusters.json`: what a bridged Matter endpoint serves beyond the catalog — the
/// revision of each device type and cluster, which FeatureMap bits to set, constants for mandatory
/// attributes the model may not carry, and which Matter commands are accepted and the unified command
/// each becomes. Data, so serving a new cluster is a row, not code; checked against the catalog like
/// the source tables.
public struct MatterClusterTable: Sendable, Hashable {
    /// When a feature bit of a cluster's FeatureMap is set.
    public struct FeatureRule: Sendable, Hashable {
        /// The one condition of a rule.
        public enum Condition: Sendable, Hashable {
            /// Set on every endpoint that serves the cluster.
            case always
            /// Set when the device's trait instance has this attribute.
            case whenAttribute(String)
            /// Set when the endpoint is one of these device types.
            case whenDeviceType(Set<DeviceTypeID>)
        }

        /// The feature's code in the catalog trait (`LT`, `CT`).
        public var code: String
        /// Its FeatureMap bit, from the catalog trait's features.
        public var bit: Int
        public var condition: Condition

        public init(code: String, bit: Int, condition: Condition) {
            self.code = code
            self.bit = bit
            self.condition = condition
        }
    }

    /// How one trait is served as a Matter cluster.
    public struct Cluster: Sendable, Hashable {
        public var trait: TraitID
        /// The cluster id, from the catalog.
        public var clusterID: UInt32
        /// The ClusterRevision served.
        public var revision: UInt16
        /// Any rule of a code that holds sets its bit.
        public var features: [FeatureRule]
        /// Attribute name → value (Matter units) served when the trait instance has none and the
        /// attribute's conformance holds under the features set; checked against the catalog.
        public var constants: [String: AttributeValue]
        /// Matter command name → unified command name; nil: accepted and answered with a failure.
        public var commands: [String: String?]

        public init(
            trait: TraitID, clusterID: UInt32, revision: UInt16, features: [FeatureRule] = [],
            constants: [String: AttributeValue] = [:], commands: [String: String?] = [:]
        ) {
            self.trait = trait
            self.clusterID = clusterID
            self.revision = revision
            self.features = features
            self.constants = constants
            self.commands = commands
        }
    }

    /// The device type revision served in a Descriptor's DeviceTypeList.
    public var deviceTypeRevisions: [DeviceTypeID: UInt16]
    public var clusters: [TraitID: Cluster]

    public init(deviceTypeRevisions: [DeviceTypeID: UInt16] = [:], clusters: [TraitID: Cluster] = [:]) {
        self.deviceTypeRevisions = deviceTypeRevisions
        self.clusters = clusters
    }

    /// The table's path under `mappings/`.
    public static let file = "matter/clusters.json"

    /// Loads `<mappings>/matter/clusters.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> MatterClusterTable {
        try SourceTableReader.load(file, mappingsDirectory: mappingsDirectory, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError)
        -> MatterClusterTable
    {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }
}
