import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// Matter nodes (as the Matter Server sends them) to devices: near-lossless, since the model is
/// Matter's own. Each endpoint's Descriptor device types become device types, its server
/// clusters traits, its attribute ids the catalog's attribute names. A node is one device; a
/// bridge's bridged endpoints (Bridged Node device type, with their parts) are one device each.
///
/// Pure: tested from the corpus's node dumps with no server and no engine.
public struct MatterSource: Sendable {
    public static let family = "matter"
    public let catalog: Catalog
    public let instance: String
    /// Catalog traits by cluster id, attribute names by (cluster, attribute id), types by Matter id.
    let traitsByCluster: [UInt32: TraitDefinition]
    let attributeNames: [UInt32: [UInt32: String]]
    let typesByMatterID: [UInt32: DeviceTypeDefinition]

    public init(catalog: Catalog, instance: String = "default") {
        self.catalog = catalog
        self.instance = instance
        var traits: [UInt32: TraitDefinition] = [:]
        var names: [UInt32: [UInt32: String]] = [:]
        for trait in catalog.traits.values where trait.id.namespace == .matter {
            guard let cluster = trait.clusterID else { continue }
            traits[cluster] = trait
            for attribute in trait.attributes {
                if let id = attribute.id { names[cluster, default: [:]][id] = attribute.name }
            }
        }
        var types: [UInt32: DeviceTypeDefinition] = [:]
        for type in catalog.deviceTypes.values where type.id.namespace == .matter {
            if let id = type.matterID { types[id] = type }
        }
        traitsByCluster = traits
        attributeNames = names
        typesByMatterID = types
    }

    /// Where one attribute's value goes.
    public struct Target: Sendable, Hashable {
        public var device: DeviceID
        public var address: TraitAddress
        public var attribute: String
    }

    /// What one node becomes.
    public struct Mapping: Sendable {
        /// Its devices, each with the node endpoint whose reachability it follows (bridged) or nil.
        public var devices: [(device: Device, reachability: UInt16?)] = []
        /// Every attribute a trait reads, by path.
        public var targets: [MatterPath: Target] = [:]
        /// Each device's endpoints: which device a command on an endpoint goes to.
        public var endpoints: [DeviceID: [String: UInt16]] = [:]
        /// What was not presented, and why (unknown device types and clusters, missing traits).
        public var problems: [String] = []
        /// Vendor-namespaced definitions made from the node (manufacturer clusters, unknown types).
        public var traitDefinitions: [TraitDefinition] = []
        public var deviceTypeDefinitions: [DeviceTypeDefinition] = []
    }

    /// The device id of a node (or of one of its bridged endpoints).
    public func deviceID(node: UInt64, endpoint: UInt16? = nil) -> DeviceID {
        let instancePart = instance == "default" ? "" : instance + "-"
        let endpointPart = endpoint.map { "-\($0)" } ?? ""
        return DeviceID.derived(source: Self.family, nativeID: "\(instancePart)\(node)\(endpointPart)")
    }

    public func reference(node: UInt64, endpoint: UInt16? = nil) -> SourceReference {
        SourceReference(
            family: Self.family, instance: instance, nativeID: endpoint.map { "\(node)/\($0)" } ?? "\(node)")
    }

    /// What a TraitBridge Matter bridge's Basic Information UniqueID starts with.
    public static let ownBridgePrefix = "TRAITBRIDGE-"

    /// Maps a node: its own device (unless it is only a bridge), then one per bridged endpoint. A
    /// TraitBridge Matter bridge (its UniqueID says so) is not: its devices are a bridge's own,
    /// imported back they would be every device twice.
    public func map(_ node: MatterNode) -> Mapping {
        var mapping = Mapping()
        if let unique = node[0, MatterCluster.basicInformation, 18]?.string, unique.hasPrefix(Self.ownBridgePrefix) {
            mapping.problems.append(
                "node \(node.nodeID) is a TraitBridge Matter bridge (UniqueID \(unique)): its devices are not imported")
            return mapping
        }
        let endpoints = node.endpoints
        // Bridged devices: an endpoint with the Bridged Node type, with every endpoint below it.
        var bridgedRoots: [UInt16] = []
        var owner: [UInt16: UInt16] = [:]  // endpoint → the bridged root it belongs to
        for endpoint in endpoints where node.deviceTypes(on: endpoint).contains(MatterStructuralType.bridgedNode) {
            bridgedRoots.append(endpoint)
        }
        for root in bridgedRoots {
            var queue = [root]
            while let next = queue.popLast() {
                guard owner[next] == nil else { continue }
                owner[next] = root
                for part in node.parts(of: next) where owner[part] == nil && !bridgedRoots.contains(part) {
                    queue.append(part)
                }
            }
        }
        let own = endpoints.filter { owner[$0] == nil }
        if let device = makeDevice(node, endpoints: own, bridged: nil, into: &mapping) {
            mapping.devices.append((device, nil))
        }
        for root in bridgedRoots {
            let members = endpoints.filter { owner[$0] == root }
            if let device = makeDevice(node, endpoints: members, bridged: root, into: &mapping) {
                mapping.devices.append((device, root))
            }
        }
        return mapping
    }

    /// One device from a set of endpoints; nil when none of them does anything the catalog presents.
    private func makeDevice(
        _ node: MatterNode, endpoints: [UInt16], bridged root: UInt16?, into mapping: inout Mapping
    ) -> Device? {
        let id = deviceID(node: node.nodeID, endpoint: root)
        let reference = reference(node: node.nodeID, endpoint: root)
        var types: [DeviceTypeInstance] = []
        var keys: [String: UInt16] = [:]
        var targets: [MatterPath: Target] = [:]
        let where_ = root.map { "node \(node.nodeID) bridged endpoint \($0)" } ?? "node \(node.nodeID)"
        for endpoint in endpoints {
            let servers = node.serverClusters(on: endpoint)
            var unclaimed = servers.filter { !MatterCluster.structural.contains($0) && traitsByCluster[$0] != nil }
            var onEndpoint: [DeviceTypeInstance] = []
            for matterType in node.deviceTypes(on: endpoint) where MatterStructuralType.names[matterType] == nil {
                guard let definition = typesByMatterID[matterType] else {
                    // Kept as a vendor type holding what the endpoint serves, and said.
                    let vendor = vendorDeviceType(matterType)
                    if !mapping.deviceTypeDefinitions.contains(where: { $0.id == vendor.id }) {
                        mapping.deviceTypeDefinitions.append(vendor)
                    }
                    mapping.problems.append(
                        "\(where_) endpoint \(endpoint): device type \(Self.hex(matterType)) is not in the catalog: "
                            + "kept as \(vendor.id)")
                    let key = onEndpoint.isEmpty ? "ep\(endpoint)" : "ep\(endpoint)-\(onEndpoint.count + 1)"
                    onEndpoint.append(
                        DeviceTypeInstance(
                            key: key, typeID: vendor.id, isPrimaryType: false,
                            traits: unclaimed.map { TraitInstance(traitID: traitsByCluster[$0]!.id) }))
                    keys[key] = endpoint
                    unclaimed = []
                    continue
                }
                let allowed = Set(definition.requiredTraits + definition.optionalTraits)
                let mine = unclaimed.filter { allowed.contains(traitsByCluster[$0]!.id) }
                unclaimed.removeAll { mine.contains($0) }
                let key = onEndpoint.isEmpty ? "ep\(endpoint)" : "ep\(endpoint)-\(onEndpoint.count + 1)"
                let traitIDs = mine.map { traitsByCluster[$0]!.id }
                do {
                    let instance = try catalog.makeDeviceType(
                        key: key, type: definition.id, isPrimaryType: false, traits: traitIDs)
                    onEndpoint.append(instance)
                    keys[key] = endpoint
                } catch {
                    // Matter relaxes Identify on bridged endpoints (the bridge identifies for them).
                    let missing = definition.requiredTraits.filter { !traitIDs.contains($0) }
                    if root != nil, missing == [.matter("Identify")] {
                        onEndpoint.append(
                            DeviceTypeInstance(
                                key: key, typeID: definition.id, isPrimaryType: false,
                                traits: traitIDs.map { TraitInstance(traitID: $0) }))
                        keys[key] = endpoint
                    } else {
                        mapping.problems.append(
                            "\(where_) endpoint \(endpoint): \(definition.id) not presented: \(error)")
                    }
                }
            }
            // Clusters no type lists (an air-quality sensor's OnOff) go to the endpoint's first type.
            if !unclaimed.isEmpty, !onEndpoint.isEmpty {
                for cluster in unclaimed {
                    onEndpoint[0].traits.append(TraitInstance(traitID: traitsByCluster[cluster]!.id))
                }
                unclaimed = []
            }
            // A manufacturer's own clusters become vendor traits of the endpoint's first type.
            var vendorTargets: [MatterPath: Target] = [:]
            if !onEndpoint.isEmpty {
                for cluster in servers where Self.isManufacturerSpecific(cluster) && traitsByCluster[cluster] == nil {
                    let trait = vendorTrait(cluster, endpoint: endpoint, in: node)
                    mapping.traitDefinitions.append(trait)
                    onEndpoint[0].traits.append(TraitInstance(traitID: trait.id))
                    for attribute in trait.attributes {
                        guard let attributeID = attribute.id else { continue }
                        vendorTargets[MatterPath(endpoint: endpoint, cluster: cluster, attribute: attributeID)] =
                            Target(
                                device: id, address: TraitAddress(deviceTypeKey: onEndpoint[0].key, traitID: trait.id),
                                attribute: attribute.name)
                    }
                }
            }
            targets.merge(vendorTargets) { first, _ in first }
            let unknown = servers.filter {
                !MatterCluster.structural.contains($0) && !MatterCluster.infrastructure.contains($0)
                    && traitsByCluster[$0] == nil && !(Self.isManufacturerSpecific($0) && !onEndpoint.isEmpty)
            }
            if !unknown.isEmpty {
                mapping.problems.append(
                    "\(where_) endpoint \(endpoint): clusters not in the catalog, not presented: "
                        + unknown.map(Self.hex).joined(separator: ", "))
            }
            if !unclaimed.isEmpty {
                mapping.problems.append(
                    "\(where_) endpoint \(endpoint): clusters with no device type to carry them: "
                        + unclaimed.map(Self.hex).joined(separator: ", "))
            }
            for index in onEndpoint.indices {
                for traitIndex in onEndpoint[index].traits.indices {
                    onEndpoint[index].traits[traitIndex].source = reference
                    let trait = onEndpoint[index].traits[traitIndex].traitID
                    guard let cluster = catalog.trait(trait)?.clusterID else { continue }
                    for (attributeID, name) in attributeNames[cluster] ?? [:] {
                        let path = MatterPath(endpoint: endpoint, cluster: cluster, attribute: attributeID)
                        guard node.attributes[path] != nil else { continue }
                        targets[path] = Target(
                            device: id, address: TraitAddress(deviceTypeKey: onEndpoint[index].key, traitID: trait),
                            attribute: name)
                    }
                }
            }
            types += onEndpoint
        }
        guard !types.isEmpty else {
            if root != nil || !node.isBridge {
                mapping.problems.append("\(where_): nothing the catalog presents; no device made")
            }
            return nil
        }
        // The Home APIs' primary type: the first application (non-utility) type, by endpoint.
        let primary =
            types.first { catalog.deviceType($0.typeID)?.isUtilityType == false && keys[$0.key] != 0 }
            ?? types.first { catalog.deviceType($0.typeID)?.isUtilityType == false } ?? types[0]
        guard var device = try? Device(id: id, name: name(node, bridged: root), sources: [reference]) else {
            return nil
        }
        device.identity = identity(node, bridged: root)
        device.info = info(node, bridged: root)
        device.isMatterDevice = true
        for var type in types {
            type.isPrimaryType = type.key == primary.key
            try? device.addDeviceType(type)
        }
        mapping.targets.merge(targets) { first, _ in first }
        mapping.endpoints[id] = keys
        return device
    }

    /// The values of a node's attributes that traits read, as updates (one per known attribute).
    public func updates(_ node: MatterNode, targets: [MatterPath: Target]) -> [DeviceID: [AttributeUpdate]] {
        var updates: [DeviceID: [AttributeUpdate]] = [:]
        for (path, target) in targets.sorted(by: { $0.key < $1.key }) {
            guard let value = node.attributes[path] else { continue }
            updates[target.device, default: []].append(
                AttributeUpdate(
                    address: target.address, attribute: target.attribute, value: AttributeValue(json: value)))
        }
        return updates
    }

    private func name(_ node: MatterNode, bridged root: UInt16?) -> String {
        if let root {
            let info = MatterCluster.bridgedDeviceBasicInformation
            for attribute: UInt32 in [5, 3] {  // NodeLabel, ProductName
                if let text = node[root, info, attribute]?.string, !text.isEmpty { return String(text.prefix(64)) }
            }
            return "Matter node \(node.nodeID) endpoint \(root)"
        }
        for attribute: UInt32 in [5, 3] {
            if let text = node[0, MatterCluster.basicInformation, attribute]?.string, !text.isEmpty {
                return String(text.prefix(64))
            }
        }
        return "Matter node \(node.nodeID)"
    }

    /// Basic Information (or Bridged Device Basic Information): vendor, product, unique id, serial.
    /// A redacted or empty unique id or serial is left out: identity never merges on a placeholder.
    private func identity(_ node: MatterNode, bridged root: UInt16?) -> DeviceIdentity {
        let (endpoint, cluster) =
            root.map { ($0, MatterCluster.bridgedDeviceBasicInformation) }
            ?? (0, MatterCluster.basicInformation)
        func number(_ attribute: UInt32) -> UInt16? {
            node[endpoint, cluster, attribute]?.uint64.flatMap(UInt16.init(exactly:))
        }
        func text(_ attribute: UInt32) -> String? { node[endpoint, cluster, attribute]?.string.flatMap(Self.usableID) }
        return DeviceIdentity(vendorID: number(2), productID: number(4), uniqueID: text(18), serialNumber: text(15))
    }

    private func info(_ node: MatterNode, bridged root: UInt16?) -> DeviceInfo {
        let (endpoint, cluster) =
            root.map { ($0, MatterCluster.bridgedDeviceBasicInformation) }
            ?? (0, MatterCluster.basicInformation)
        func text(_ attribute: UInt32) -> String? {
            node[endpoint, cluster, attribute]?.string.flatMap { $0.isEmpty ? nil : String($0.prefix(64)) }
        }
        return DeviceInfo(manufacturer: text(1), model: text(3), hardwareVersion: text(8), softwareVersion: text(10))
    }

    /// An id worth matching on: not empty, not a placeholder (`**REDACTED**`, `****************`, `redacted`).
    public static func usableID(_ text: String) -> String? {
        let trimmed = String(text.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        guard !trimmed.isEmpty, trimmed.utf8.count <= 128 else { return nil }
        if trimmed.allSatisfy({ $0 == "*" || $0 == "0" }) { return nil }
        if trimmed.lowercased().contains("redacted") { return nil }
        return trimmed
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Whether a node endpoint's reachability (Bridged Device Basic Information `Reachable`) says so.
    public func isReachable(_ node: MatterNode, endpoint: UInt16) -> Bool {
        node[endpoint, MatterCluster.bridgedDeviceBasicInformation, 17]?.bool ?? true
    }
}
