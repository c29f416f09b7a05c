import TraitBridgeJSON
import TraitBridgeModel

/// What the catalog cannot know in advance: a manufacturer's own clusters and device types. They
/// become vendor-namespaced definitions built from the node itself (`vendor.matter-<vendor>.Cluster<id>`,
/// `vendor.matter.DeviceType<id>`), so nothing a node serves is dropped; their attributes are read-only
/// and typed from the values the node reports.
extension MatterSource {
    /// A manufacturer-specific cluster id: a vendor prefix in the upper 16 bits, 0xFC00–0xFFFE below.
    public static func isManufacturerSpecific(_ cluster: UInt32) -> Bool {
        cluster >> 16 != 0 && (0xFC00...0xFFFE).contains(cluster & 0xFFFF)
    }

    /// The trait of a manufacturer-specific cluster, with the attributes the node has for it.
    func vendorTrait(_ cluster: UInt32, endpoint: UInt16, in node: MatterNode) -> TraitDefinition {
        let digits = String(cluster >> 16, radix: 16)
        let vendor = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        let local = Self.hex(cluster & 0xFFFF).dropFirst(2)
        var attributes: [AttributeDefinition] = []
        for (path, value) in node.attributes where path.endpoint == endpoint && path.cluster == cluster {
            guard !(0xFFF8...0xFFFF).contains(path.attribute) else { continue }  // global: structure, not state
            attributes.append(
                AttributeDefinition(
                    name: "attribute" + Self.hex(path.attribute).dropFirst(2), id: path.attribute,
                    metadata: Self.metadata(of: value)))
        }
        attributes.sort { ($0.id ?? 0) < ($1.id ?? 0) }
        return TraitDefinition(
            id: TraitID(namespace: .vendor("matter-" + vendor), name: "Cluster" + local),
            displayName: "Manufacturer cluster \(Self.hex(cluster))", clusterID: cluster,
            homeAPIsID: "home.matter.\(vendor).clusters.\(local.lowercased())",
            attributes: attributes,
            specReference: "read from the node: a manufacturer-specific cluster no mappings file describes")
    }

    /// A device type the catalog lacks, kept under `vendor.matter` with its Matter id.
    func vendorDeviceType(_ matterID: UInt32) -> DeviceTypeDefinition {
        DeviceTypeDefinition(
            id: DeviceTypeID(namespace: .vendor("matter"), name: "DeviceType" + Self.hex(matterID).dropFirst(2)),
            displayName: "Matter device type \(Self.hex(matterID))", matterID: matterID, requiredTraits: [],
            optionalTraits: [], specReference: "read from the node: a device type the catalog does not have")
    }

    /// Read-only metadata for a value of an unknown attribute, from the value's kind.
    static func metadata(of value: JSON) -> AttributeMetadata {
        let format: AttributeFormat =
            switch value.kind {
            case .bool: .bool
            case .number: value.isInteger ? (value.int64 != nil ? .int64 : .uint64) : .float
            case .string: .string
            case .array: .list
            case .object: .structure
            case .null: .string
            }
        return AttributeMetadata(format: format, isWritable: false, isNullable: true)
    }
}
