public import TraitBridgeJSON

/// One attribute's place on a Matter node: `endpoint/cluster/attribute`, as the Matter Server keys them.
public struct MatterPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var attribute: UInt32

    public init(endpoint: UInt16, cluster: UInt32, attribute: UInt32) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
    }

    /// Parses `1/6/0`; `nil` for anything else (wildcards, four parts, numbers out of range).
    public init?(_ text: Substring) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let endpoint = UInt16(parts[0]), let cluster = UInt32(parts[1]),
            let attribute = UInt32(parts[2])
        else { return nil }
        self.init(endpoint: endpoint, cluster: cluster, attribute: attribute)
    }

    public var description: String { "\(endpoint)/\(cluster)/\(attribute)" }

    public static func < (a: MatterPath, b: MatterPath) -> Bool {
        (a.endpoint, a.cluster, a.attribute) < (b.endpoint, b.cluster, b.attribute)
    }
}

/// A Matter node as the Matter Server sends it (`start_listening`, `node_added`, `node_updated`):
/// its id, whether the server reaches it, and every attribute it read, checked for shape.
///
/// Parsing is total: a node the server could send (or a hostile peer pretending to be one) is
/// either a node or a list of problems with their JSON paths; a wrong key drops that key only.
public struct MatterNode: Sendable {
    public var nodeID: UInt64
    public var isAvailable: Bool
    public var isBridge: Bool
    public var attributes: [MatterPath: JSON]

    /// The most attributes one node may carry (the largest corpus node has 601).
    public static let attributeLimit = 20_000

    public init(nodeID: UInt64, isAvailable: Bool, isBridge: Bool = false, attributes: [MatterPath: JSON]) {
        self.nodeID = nodeID
        self.isAvailable = isAvailable
        self.isBridge = isBridge
        self.attributes = attributes
    }

    /// Reads a node object; `problems` get what was skipped (with its JSON path).
    public static func parse(_ json: JSON, problems: inout [String]) -> MatterNode? {
        guard json.kind == .object else {
            problems.append("$: expected a node object, found \(json.kind)")
            return nil
        }
        guard let id = json["node_id"]?.uint64 else {
            problems.append("$.node_id: expected a node id (a whole number ≥ 0)")
            return nil
        }
        guard let attributes = json["attributes"], attributes.kind == .object else {
            problems.append("$.attributes: expected an object of \"endpoint/cluster/attribute\": value")
            return nil
        }
        var node = MatterNode(
            nodeID: id, isAvailable: json["available"]?.bool ?? false, isBridge: json["is_bridge"]?.bool ?? false,
            attributes: [:])
        node.attributes.reserveCapacity(min(attributes.count, attributeLimit))
        var skipped = 0
        for (key, value) in attributes.members {
            guard node.attributes.count < attributeLimit else {
                problems.append(
                    "$.attributes: more than \(attributeLimit) attributes; "
                        + "the rest (\(attributes.count - attributeLimit)) ignored"
                )
                break
            }
            guard let path = MatterPath(Substring(key)) else {
                skipped += 1
                if skipped <= 3 {
                    problems.append("$.attributes[\"\(key.prefix(40))\"]: not endpoint/cluster/attribute")
                }
                continue
            }
            node.attributes[path] = value
        }
        if skipped > 3 { problems.append("$.attributes: \(skipped) keys were not endpoint/cluster/attribute") }
        return node
    }

    public subscript(endpoint: UInt16, cluster: UInt32, attribute: UInt32) -> JSON? {
        attributes[MatterPath(endpoint: endpoint, cluster: cluster, attribute: attribute)]
    }

    /// The endpoints the node has, ascending (those any attribute names).
    public var endpoints: [UInt16] { Set(attributes.keys.map(\.endpoint)).sorted() }

    /// Descriptor `DeviceTypeList` (29/0): each entry `{"0": type, "1": revision}`.
    public func deviceTypes(on endpoint: UInt16) -> [UInt32] {
        (self[endpoint, MatterCluster.descriptor, 0]?.elements ?? []).compactMap { entry in
            entry["0"]?.uint64.flatMap { UInt32(exactly: $0) }
        }
    }

    /// Descriptor `ServerList` (29/1): the clusters the endpoint serves.
    public func serverClusters(on endpoint: UInt16) -> [UInt32] {
        (self[endpoint, MatterCluster.descriptor, 1]?.elements ?? []).compactMap {
            $0.uint64.flatMap { UInt32(exactly: $0) }
        }
    }

    /// Descriptor `PartsList` (29/3): the endpoints below this one.
    public func parts(of endpoint: UInt16) -> [UInt16] {
        (self[endpoint, MatterCluster.descriptor, 3]?.elements ?? []).compactMap {
            $0.uint64.flatMap { UInt16(exactly: $0) }
        }
    }
}

/// The cluster and device type ids the Matter source reads for structure rather than as traits.
public enum MatterCluster {
    public static let descriptor: UInt32 = 0x001D
    public static let basicInformation: UInt32 = 0x0028
    public static let bridgedDeviceBasicInformation: UInt32 = 0x0039
    /// Read for identity, name and reachability; never presented as traits.
    static let structural: Set<UInt32> = [descriptor, basicInformation, bridgedDeviceBasicInformation]
    /// The node's plumbing (commissioning, credentials, diagnostics, OTA, localization, groups,
    /// labels): no trait in the model, by design, so not reported as missing from the catalog.
    static let infrastructure: Set<UInt32> = [
        0x0004, 0x0005, 0x001E, 0x001F, 0x0029, 0x002A, 0x002B, 0x002C, 0x002D, 0x002E, 0x0030, 0x0031, 0x0032,
        0x0033, 0x0034, 0x0035, 0x0036, 0x0037, 0x0038, 0x003C, 0x003E, 0x003F, 0x0040, 0x0041, 0x0046, 0x0062,
    ]
}

/// Matter device types that describe a node's structure, not what it does: never presented.
public enum MatterStructuralType {
    public static let rootNode: UInt32 = 0x0016
    public static let aggregator: UInt32 = 0x000E
    public static let bridgedNode: UInt32 = 0x0013
    /// With their names, for what is reported.
    static let names: [UInt32: String] = [
        rootNode: "Root Node", aggregator: "Aggregator", bridgedNode: "Bridged Node",
        0x0012: "OTA Requestor", 0x0014: "OTA Provider",
    ]
}
