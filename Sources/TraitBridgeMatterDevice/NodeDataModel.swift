public import TraitBridgeMatterCodec
public import TraitBridgeMatterCommissioning
public import TraitBridgeMatterInteraction

/// The node's data model: the root endpoint (commissioning) and the application endpoints, read,
/// written and invoked by concrete path, with a data version per cluster. It exists so the
/// interaction layer sees one node — its layout for path expansion, its values, its versions —
/// and so every change, by a command or from the device side, moves the version of the cluster it
/// changed (Core §7.10.3: a client caches by version; a change the version hides is never seen).
public struct NodeDataModel: Sendable {
    public private(set) var root: RootEndpoint
    public private(set) var endpoints: [any ApplicationEndpoint]
    /// Each endpoint's position in `endpoints`: a read finds its endpoint without a search.
    private var positions: [UInt16: Int] = [:]
    private var versions: [ClusterKey: UInt32] = [:]
    /// Each cluster's values as last encoded, to tell a change from none.
    private var encodings: [ClusterKey: [UInt8]] = [:]
    /// Bumped by every change of any cluster: subscriptions compare it to the one they last saw.
    public private(set) var changeCount: UInt64 = 0
    /// The change count at each cluster's last change (0: none since the start): a subscription reads
    /// again only the clusters changed since its last report, not the whole node.
    private var stamps: [ClusterKey: UInt64] = [:]
    /// Every endpoint, cluster and attribute with the clusters' versions, kept as they change: path
    /// expansion does not rebuild it for every read and report.
    public private(set) var layout = NodeLayout(endpoints: [])

    struct ClusterKey: Hashable {
        let endpoint: UInt16
        let cluster: UInt32
    }

    /// The root and `endpoints` (their ids distinct, none 0); data versions start at values drawn from `generator`.
    public init(
        root: RootEndpoint, endpoints: [any ApplicationEndpoint], using generator: inout some RandomNumberGenerator
    ) {
        precondition(
            Set(endpoints.map(\.id)).count == endpoints.count && !endpoints.contains { $0.id == 0 },
            "endpoint ids must be distinct and not the root's")
        self.root = root
        self.endpoints = endpoints.sorted { $0.id < $1.id }
        self.root.information.partsList = self.endpoints.map(\.id)
        reindex()
        for endpoint in [RootEndpoint.endpoint] + self.endpoints.map(\.id) {
            for cluster in clusterIDs(of: endpoint) {
                versions[ClusterKey(endpoint: endpoint, cluster: cluster)] = UInt32.random(
                    in: .min ... .max, using: &generator)
            }
            refresh(endpoint)
        }
        changeCount = 0
        rebuildLayout()
    }

    /// The cluster's data version; nil for a cluster not served.
    public func dataVersion(endpoint: UInt16, cluster: UInt32) -> UInt32? {
        versions[ClusterKey(endpoint: endpoint, cluster: cluster)]
    }

    /// An attribute's value, or the status of a path that names nothing served.
    public func read(_ path: ConcreteAttributePath, fabric: RootEndpoint.FabricAccess) -> Result<TLVValue, StatusCode> {
        if path.endpoint == RootEndpoint.endpoint {
            return root.read(endpoint: path.endpoint, cluster: path.cluster, attribute: path.attribute, fabric: fabric)
        }
        guard let endpoint = positions[path.endpoint].map({ endpoints[$0] }) else {
            return .failure(.unsupportedEndpoint)
        }
        guard let description = endpoint.servedClusters.first(where: { $0.id == path.cluster }) else {
            return .failure(.unsupportedCluster)
        }
        let values = endpoint.values(of: path.cluster)
        switch path.attribute {
        case GlobalAttribute.clusterRevision: return .success(.unsigned(UInt64(description.revision)))
        case GlobalAttribute.featureMap: return .success(.unsigned(UInt64(description.featureMap)))
        case GlobalAttribute.attributeList:
            return .success(.array((values.keys.sorted() + GlobalAttribute.all).map { .unsigned(UInt64($0)) }))
        case GlobalAttribute.acceptedCommandList:
            return .success(.array(description.accepted.map { .unsigned(UInt64($0)) }))
        case GlobalAttribute.generatedCommandList:
            return .success(.array(description.generated.map { .unsigned(UInt64($0)) }))
        default:
            guard let value = values[path.attribute] else { return .failure(.unsupportedAttribute) }
            return .success(value)
        }
    }

    /// Writes one attribute; a change moves its cluster's version.
    public mutating func write(_ path: ConcreteAttributePath, value: TLVValue) -> StatusCode {
        defer { refresh(path.endpoint) }
        if path.endpoint == RootEndpoint.endpoint {
            return root.write(endpoint: path.endpoint, cluster: path.cluster, attribute: path.attribute, value: value)
        }
        guard let index = positions[path.endpoint] else { return .unsupportedEndpoint }
        guard endpoints[index].servedClusters.contains(where: { $0.id == path.cluster }) else {
            return .unsupportedCluster
        }
        if path.cluster == ClusterID.descriptor || GlobalAttribute.all.contains(path.attribute) {
            return endpoints[index].values(of: path.cluster)[path.attribute] != nil
                || GlobalAttribute.all.contains(path.attribute) ? .unsupportedWrite : .unsupportedAttribute
        }
        return endpoints[index].write(cluster: path.cluster, attribute: path.attribute, value: value)
    }

    /// Writes the accessing fabric's ACL (the whole list, or one entry appended); a change moves the
    /// Access Control cluster's version.
    public mutating func writeAccessControl(
        _ value: TLVValue, append: Bool, fabricIndex: UInt8
    ) -> Result<CommissioningState.AccessControlChange, StatusCode> {
        defer { refresh(RootEndpoint.endpoint) }
        return root.writeAccessControl(value, append: append, fabricIndex: fabricIndex)
    }

    /// The device types an endpoint's Descriptor lists (for ACL targets that name a device type).
    public func deviceTypes(_ endpoint: UInt16) -> [UInt32] {
        let everything = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: false)
        let path = ConcreteAttributePath(endpoint: endpoint, cluster: ClusterID.descriptor, attribute: 0x0000)
        guard case .success(.array(let list)) = read(path, fabric: everything) else { return [] }
        return list.compactMap { try? $0.uint(0, as: UInt32.self) }
    }

    /// Runs a command on a concrete endpoint; a change moves the versions of what it changed.
    public mutating func invoke(
        endpoint: UInt16, cluster: UInt32, command: UInt32, fields: TLVValue, context: CommandContext
    ) -> RootEndpoint.InvokeResult {
        defer { refresh(endpoint) }
        if endpoint == RootEndpoint.endpoint {
            return root.invoke(endpoint: endpoint, cluster: cluster, command: command, fields: fields, context: context)
        }
        guard let index = positions[endpoint] else { return .status(.unsupportedEndpoint) }
        guard let description = endpoints[index].servedClusters.first(where: { $0.id == cluster }) else {
            return .status(.unsupportedCluster)
        }
        guard description.accepted.contains(command) else { return .status(.unsupportedCommand) }
        return endpoints[index].invoke(cluster: cluster, command: command, fields: fields)
    }

    /// Changes an application endpoint from the device side (the light switched at the wall).
    public mutating func update<Endpoint: ApplicationEndpoint>(
        _ id: UInt16, as type: Endpoint.Type, _ change: (inout Endpoint) -> Void
    ) {
        guard let index = positions[id], var endpoint = endpoints[index] as? Endpoint else { return }
        change(&endpoint)
        endpoints[index] = endpoint
        refresh(id)
    }

    /// Whether `endpoint` hands an accepted command on to its device.
    public func forwards(endpoint: UInt16, cluster: UInt32, command: UInt32) -> Bool {
        endpoint != RootEndpoint.endpoint
            && positions[endpoint].map { endpoints[$0].forwards(cluster: cluster, command: command) } == true
    }

    /// Whether the endpoint hands an accepted write of `path` on to its device.
    public func forwards(_ path: ConcreteAttributePath) -> Bool {
        path.endpoint != RootEndpoint.endpoint
            && positions[path.endpoint].map { endpoints[$0].forwards(cluster: path.cluster, attribute: path.attribute) }
                == true
    }

    /// Takes `changed` in place of the endpoints of the same ids (adding the new ones) and drops
    /// `removed`: what a bridge does as its devices come, change and go. A changed cluster moves its
    /// version; a new one starts at a random version (a client's cache of a recycled path never
    /// matches); the root's PartsList follows the endpoints. Costs the changed endpoints' encoding.
    public mutating func apply(
        _ changed: [any ApplicationEndpoint], removing removed: Set<UInt16>,
        using generator: inout some RandomNumberGenerator
    ) {
        precondition(
            !changed.contains { $0.id == RootEndpoint.endpoint || removed.contains($0.id) },
            "the root is not replaced, and an endpoint is either changed or removed")
        var isStructural = false
        var added: [ClusterKey] = []
        if endpoints.contains(where: { removed.contains($0.id) }) {
            endpoints.removeAll { removed.contains($0.id) }
            versions = versions.filter { !removed.contains($0.key.endpoint) }
            encodings = encodings.filter { !removed.contains($0.key.endpoint) }
            stamps = stamps.filter { !removed.contains($0.key.endpoint) }
            isStructural = true
            reindex()
        }
        // The new endpoints join in one sort and one reindex (a burst of new devices costs linear time).
        var seen = Set<UInt16>()
        let fresh = changed.filter { positions[$0.id] == nil && seen.insert($0.id).inserted }
        if !fresh.isEmpty {
            endpoints = (endpoints + fresh).sorted { $0.id < $1.id }
            isStructural = true
            reindex()
        }
        let freshIDs = Set(fresh.map(\.id))
        for endpoint in changed {
            let before = freshIDs.contains(endpoint.id) ? [] : Set(clusterIDs(of: endpoint.id))
            if let index = positions[endpoint.id] { endpoints[index] = endpoint }
            let after = Set(clusterIDs(of: endpoint.id))
            for cluster in before.subtracting(after) {
                let key = ClusterKey(endpoint: endpoint.id, cluster: cluster)
                (versions[key], encodings[key], stamps[key]) = (nil, nil, nil)
            }
            for cluster in after.subtracting(before) {
                versions[ClusterKey(endpoint: endpoint.id, cluster: cluster)] = UInt32.random(
                    in: .min ... .max, using: &generator)
                added.append(ClusterKey(endpoint: endpoint.id, cluster: cluster))
            }
            if before != after { isStructural = true }
            refresh(endpoint.id)
        }
        if isStructural {
            root.information.partsList = endpoints.map(\.id)
            refresh(RootEndpoint.endpoint)
            changeCount &+= 1
            for key in added { stamps[key] = changeCount }
            rebuildLayout()
        }
    }

    /// The commissioning state's time moved (the fail-safe may expire); its notices since the last call.
    public mutating func advance(to now: ContinuousClock.Instant) -> [CommissioningNotice] {
        root.state.advance(to: now)
        refresh(RootEndpoint.endpoint)
        return root.state.takeNotices()
    }

    /// Closes an administrator's window (its verifier turned out unusable).
    public mutating func closeWindow() {
        root.state.closeWindow()
        refresh(RootEndpoint.endpoint)
    }

    /// The commissioning state's notices since the last call (after a command).
    public mutating func takeNotices() -> [CommissioningNotice] { root.state.takeNotices() }

    // MARK: Layout and versions

    private mutating func reindex() {
        positions = Dictionary(uniqueKeysWithValues: endpoints.enumerated().map { ($0.element.id, $0.offset) })
    }

    private func clusterIDs(of endpoint: UInt16) -> [UInt32] {
        if endpoint == RootEndpoint.endpoint { return RootEndpoint.clusters }
        return positions[endpoint].map { endpoints[$0].servedClusters.map(\.id) } ?? []
    }

    func attributeIDs(_ endpoint: UInt16, _ cluster: UInt32) -> [UInt32] {
        if endpoint == RootEndpoint.endpoint { return root.attributeIDs(cluster: cluster) ?? [] }
        guard let served = positions[endpoint].map({ endpoints[$0] }) else { return [] }
        return served.values(of: cluster).keys.sorted() + GlobalAttribute.all
    }

    /// Re-encodes the endpoint's clusters (every fabric's entries) and moves the version of each that changed.
    private mutating func refresh(_ endpoint: UInt16) {
        let everything = RootEndpoint.FabricAccess(accessingFabricIndex: 0, isFabricFiltered: false)
        for cluster in clusterIDs(of: endpoint) {
            var encoding: [UInt8] = []
            for attribute in attributeIDs(endpoint, cluster) {
                let path = ConcreteAttributePath(endpoint: endpoint, cluster: cluster, attribute: attribute)
                if case .success(let value) = read(path, fabric: everything) {
                    encoding += TLVElement(value: value).encoded
                }
            }
            let key = ClusterKey(endpoint: endpoint, cluster: cluster)
            guard encodings[key] != encoding else { continue }
            if encodings[key] != nil {
                versions[key, default: 0] &+= 1
                changeCount &+= 1
                stamps[key] = changeCount
            }
            encodings[key] = encoding
        }
        updateLayout(of: endpoint)
    }

    /// The clusters changed after change count `stamp` (a subscription's last report), each once.
    public func clusters(changedAfter stamp: UInt64) -> [(endpoint: UInt16, cluster: UInt32)] {
        stamps.compactMap { $0.value > stamp ? ($0.key.endpoint, $0.key.cluster) : nil }
    }

    /// The layout of one endpoint as it now is.
    private func endpointLayout(_ endpoint: UInt16) -> EndpointLayout {
        EndpointLayout(
            id: endpoint,
            clusters: clusterIDs(of: endpoint).map { cluster in
                ClusterLayout(
                    id: cluster, attributes: attributeIDs(endpoint, cluster),
                    dataVersion: dataVersion(endpoint: endpoint, cluster: cluster) ?? 0)
            })
    }

    /// The whole layout again: at the start and when endpoints come or go.
    private mutating func rebuildLayout() {
        layout = NodeLayout(endpoints: ([RootEndpoint.endpoint] + endpoints.map(\.id)).map(endpointLayout))
    }

    /// One endpoint's part of the layout again (its versions or attributes changed); the endpoints'
    /// order is the layout's, the root first.
    private mutating func updateLayout(of endpoint: UInt16) {
        let index = endpoint == RootEndpoint.endpoint ? 0 : positions[endpoint].map { $0 + 1 }
        guard let index, index < layout.endpoints.count, layout.endpoints[index].id == endpoint else { return }
        layout.endpoints[index] = endpointLayout(endpoint)
    }
}
