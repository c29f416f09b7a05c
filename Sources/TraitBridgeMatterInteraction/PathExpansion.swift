/// What one requested attribute path comes to on a node: a concrete attribute to report, or a status for a
/// concrete path that names something the node lacks (Matter Core §8.9.2.1: a wildcard path skips what does
/// not exist silently; a concrete one gets UNSUPPORTED_ENDPOINT, UNSUPPORTED_CLUSTER or
/// UNSUPPORTED_ATTRIBUTE in an AttributeStatusIB).
public enum ReadTarget: Sendable, Hashable {
    case attribute(ConcreteAttributePath)
    case status(ConcreteAttributePath, StatusCode)
}

/// Why a whole request is refused before any path is expanded; answered with a StatusResponse of ``status``.
public enum PathExpansionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More paths than ``NodeLayout/ExpansionLimits/maxRequestPaths``.
    case tooManyPaths(count: Int, limit: Int)
    /// A path the Interaction Model does not allow in a read (a list index, or a wildcard attribute with a
    /// list index), at `index` in the request.
    case invalidPath(index: Int, reason: String)

    /// PATHS_EXHAUSTED or INVALID_ACTION, as connectedhomeip's `ReadHandler` answers.
    public var status: StatusCode {
        switch self {
        case .tooManyPaths: .pathsExhausted
        case .invalidPath: .invalidAction
        }
    }

    public var description: String {
        switch self {
        case .tooManyPaths(let count, let limit):
            "the request has \(count) attribute paths, more than the \(limit) this node serves in one interaction "
                + "— split the read"
        case .invalidPath(let index, let reason): "attribute path \(index): \(reason)"
        }
    }
}

extension NodeLayout {
    /// How much one request may ask for.
    public struct ExpansionLimits: Sendable, Hashable {
        /// Attribute paths in one read or subscribe. 32 by default: the spec's floors are 9 paths per read and
        /// 3 per subscription (Matter Core §8.5.1, connectedhomeip `kMinSupportedPathsPerReadRequest`), and real
        /// controllers send 1 (python-matter-server's wildcard) to 9 (Apple Home's commissioning reads), so 32
        /// is generous while keeping a hostile request's expansion to 32 × the node's attribute count.
        public var maxRequestPaths: Int

        public init(maxRequestPaths: Int = 32) { self.maxRequestPaths = maxRequestPaths }
    }

    /// The concrete attributes and statuses `paths` come to, in request order, each path's attributes in
    /// endpoint, cluster and attribute order of the layout. Overlapping paths report an attribute more than
    /// once, as connectedhomeip does. Clusters a DataVersionFilter names at their current version are left out
    /// (Matter Core §8.4.3.3), statuses included.
    /// - Throws: ``PathExpansionError`` for a request refused as a whole.
    public func expand(
        _ paths: [AttributePath], dataVersionFilters: [DataVersionFilter] = [], limits: ExpansionLimits = .init()
    ) throws(PathExpansionError) -> [ReadTarget] {
        guard paths.count <= limits.maxRequestPaths else {
            throw .tooManyPaths(count: paths.count, limit: limits.maxRequestPaths)
        }
        if let index = paths.firstIndex(where: { $0.listIndex != nil }) {
            throw .invalidPath(index: index, reason: "a read cannot name a list index (\(paths[index]))")
        }
        let unchanged = Set(
            dataVersionFilters.map { [UInt64($0.path.endpoint), UInt64($0.path.cluster), UInt64($0.dataVersion)] })
        func isFiltered(_ endpoint: UInt16, _ cluster: ClusterLayout) -> Bool {
            unchanged.contains([UInt64(endpoint), UInt64(cluster.id), UInt64(cluster.dataVersion)])
        }
        var targets: [ReadTarget] = []
        for path in paths {
            if let concrete = path.concrete {
                if let target = target(concrete, isFiltered: isFiltered) { targets.append(target) }
                continue
            }
            let flags = path.wildcardFlags ?? []
            for endpoint in endpoints where path.endpoint.map({ $0 == endpoint.id }) ?? !skips(endpoint.id, flags) {
                for cluster in endpoint.clusters where path.cluster.map({ $0 == cluster.id }) ?? true {
                    guard !isFiltered(endpoint.id, cluster) else { continue }
                    if path.cluster == nil, flags.contains(.skipCustomElements), cluster.id > 0xFFFF { continue }
                    for attribute in cluster.attributes
                    where path.attribute.map({ $0 == attribute }) ?? !skips(attribute: attribute, flags) {
                        targets.append(
                            .attribute(.init(endpoint: endpoint.id, cluster: cluster.id, attribute: attribute)))
                    }
                }
            }
        }
        return targets
    }

    /// A concrete path: the attribute, or the status naming the first of endpoint, cluster, attribute missing.
    private func target(
        _ path: ConcreteAttributePath, isFiltered: (UInt16, ClusterLayout) -> Bool
    ) -> ReadTarget? {
        guard let endpoint = endpoint(path.endpoint) else { return .status(path, .unsupportedEndpoint) }
        guard let cluster = endpoint.cluster(path.cluster) else { return .status(path, .unsupportedCluster) }
        guard !isFiltered(endpoint.id, cluster) else { return nil }
        guard cluster.attributes.contains(path.attribute) else { return .status(path, .unsupportedAttribute) }
        return .attribute(path)
    }

    private func skips(_ endpoint: UInt16, _ flags: WildcardPathFlags) -> Bool {
        endpoint == 0 && flags.contains(.skipRootNode)
    }

    private func skips(attribute: UInt32, _ flags: WildcardPathFlags) -> Bool {
        if flags.contains(.skipGlobalAttributes), (0xF000...0xFFFE).contains(attribute) { return true }
        if flags.contains(.skipAttributeList), attribute == 0xFFFB { return true }
        if flags.contains(.skipCommandLists), attribute == 0xFFF8 || attribute == 0xFFF9 { return true }
        return flags.contains(.skipCustomElements) && attribute > 0xFFFF
    }
}
