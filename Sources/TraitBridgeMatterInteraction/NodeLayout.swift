/// What a node has, as data: its endpoints, their cluster instances, and each instance's attribute IDs and
/// data version. Read-only input to ``NodeLayout/expand(_:dataVersionFilters:limits:)``; where values live
/// is the caller's business. List the global attributes (0xFFF8 GeneratedCommandList, 0xFFF9
/// AcceptedCommandList, 0xFFFB AttributeList, 0xFFFC FeatureMap, 0xFFFD ClusterRevision) with the others:
/// a wildcard read expands to them like any attribute (``ClusterLayout/globalAttributes``).
public struct NodeLayout: Sendable, Hashable {
    public var endpoints: [EndpointLayout]

    public init(endpoints: [EndpointLayout]) { self.endpoints = endpoints }

    /// The endpoint with ID `id`.
    public func endpoint(_ id: UInt16) -> EndpointLayout? { endpoints.first { $0.id == id } }
}

/// One endpoint of a ``NodeLayout``.
public struct EndpointLayout: Sendable, Hashable {
    public var id: UInt16
    public var clusters: [ClusterLayout]

    public init(id: UInt16, clusters: [ClusterLayout]) {
        self.id = id
        self.clusters = clusters
    }

    /// The cluster instance with ID `id`.
    public func cluster(_ id: UInt32) -> ClusterLayout? { clusters.first { $0.id == id } }
}

/// One cluster instance of an ``EndpointLayout``: its attribute IDs in report order and its data version.
public struct ClusterLayout: Sendable, Hashable {
    /// The global attributes every cluster instance serves (Matter Core §7.13), in ID order.
    public static let globalAttributes: [UInt32] = [0xFFF8, 0xFFF9, 0xFFFB, 0xFFFC, 0xFFFD]

    public var id: UInt32
    public var attributes: [UInt32]
    /// Bumped by the cluster whenever one of its attributes changes (Matter Core §7.10.3).
    public var dataVersion: UInt32

    public init(id: UInt32, attributes: [UInt32], dataVersion: UInt32 = 0) {
        self.id = id
        self.attributes = attributes
        self.dataVersion = dataVersion
    }

    /// The instance with `attributes` followed by the global attributes it does not list already.
    public static func withGlobals(id: UInt32, attributes: [UInt32], dataVersion: UInt32 = 0) -> ClusterLayout {
        ClusterLayout(
            id: id, attributes: attributes + globalAttributes.filter { !attributes.contains($0) },
            dataVersion: dataVersion)
    }
}
