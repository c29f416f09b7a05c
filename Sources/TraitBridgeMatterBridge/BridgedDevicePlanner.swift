public import TraitBridgeMapping
import TraitBridgeMatterCodec
public import TraitBridgeMatterDevice
public import TraitBridgeModel

/// One endpoint a unified device needs, before it has a number: a device with one application type
/// is one endpoint; a composed one (a climate sensor: temperature and humidity) is a top endpoint
/// (Bridged Node) with a child per application type, as the Core spec's bridge pattern composes them.
public struct PlannedEndpoint: Sendable, Equatable {
    /// The device id, or `<device id>/<device type key>` for a composed device's child: what its number
    /// and UniqueID are kept under.
    public var key: String
    /// The composed device's top, for a child.
    public var parent: String?
    /// The device type instance the endpoint serves (nil for a composed device's top).
    public var deviceTypeKey: String?
    public var deviceTypes: [DeviceTypeRevision]
    public var clusters: [BridgedEndpoint.Cluster]
    /// Bridged Device Basic Information's sources, on the endpoint a controller shows as the device.
    public var information: BridgedInformation?
}

/// What Bridged Device Basic Information (0x0039) says of a device: its name and origin from the
/// unified device, Reachable from its connectivity, the UniqueID the registry keeps.
public struct BridgedInformation: Sendable, Equatable {
    public static let clusterID: UInt32 = 0x0039
    public static let revision: UInt16 = 5
    /// The attributes' ids (Core §9.13).
    public enum Attribute {
        public static let vendorName: UInt32 = 0x01, vendorID: UInt32 = 0x02, productName: UInt32 = 0x03
        public static let productID: UInt32 = 0x04, nodeLabel: UInt32 = 0x05, hardwareVersionString: UInt32 = 0x08
        public static let softwareVersionString: UInt32 = 0x0A, serialNumber: UInt32 = 0x0F
        public static let reachable: UInt32 = 0x11, uniqueID: UInt32 = 0x12
    }

    public var name: String
    public var vendorName: String?
    public var vendorID: UInt16?
    public var productName: String?
    public var productID: UInt16?
    public var hardwareVersion: String?
    public var softwareVersion: String?
    public var serialNumber: String?
    public var isReachable: Bool

    /// The cluster with `uniqueID`; strings cut to the 32 bytes the specification allows.
    public func cluster(uniqueID: String) -> BridgedEndpoint.Cluster {
        func text(_ value: String) -> TLVValue { .string(MatterValues.truncated(value, toBytes: 32)) }
        var values: [UInt32: TLVValue] = [
            Attribute.nodeLabel: text(name), Attribute.reachable: .bool(isReachable),
            Attribute.uniqueID: text(uniqueID),
        ]
        if let vendorName { values[Attribute.vendorName] = text(vendorName) }
        if let vendorID { values[Attribute.vendorID] = .unsigned(UInt64(vendorID)) }
        if let productName { values[Attribute.productName] = text(productName) }
        if let productID { values[Attribute.productID] = .unsigned(UInt64(productID)) }
        if let hardwareVersion { values[Attribute.hardwareVersionString] = text(hardwareVersion) }
        if let softwareVersion { values[Attribute.softwareVersionString] = text(softwareVersion) }
        // SerialNumber must differ from UniqueID (it does: ours is drawn at random).
        if let serialNumber { values[Attribute.serialNumber] = text(serialNumber) }
        // A NodeLabel a controller writes renames the device (as the SDK's bridge example does).
        return BridgedEndpoint.Cluster(
            ClusterDescription(id: Self.clusterID, revision: Self.revision), values: values,
            forwardedWrites: [Attribute.nodeLabel])
    }
}

/// Turns unified devices into the endpoints of a Matter bridge, by the catalog (clusters, attribute
/// and command ids, formats, conformance) and `mappings/matter/clusters.json` (revisions, features,
/// constants for mandatory attributes the model lacks, commands and the unified commands they become).
/// Pure: the same device gives the same plan.
public struct BridgedDevicePlanner: Sendable {
    public static let bridgedNode = DeviceTypeRevision(0x0013, revision: 3)
    public static let aggregator = DeviceTypeRevision(0x000E, revision: 2)
    static let identify = TraitID.matter("Identify")

    let catalog: Catalog
    let table: MatterClusterTable
    /// Cluster id → its trait, for commands and writes coming back.
    let traitsByCluster: [UInt32: TraitID]

    public init(catalog: Catalog, table: MatterClusterTable) {
        self.catalog = catalog
        self.table = table
        traitsByCluster = Dictionary(table.clusters.values.map { ($0.clusterID, $0.trait) }) { first, _ in first }
    }

    /// The device's endpoints, top first; empty when none of its types is one the table serves.
    public func plan(_ device: Device) -> [PlannedEndpoint] {
        let ordered = (device.primaryType.map { [$0] } ?? []) + device.deviceTypes.filter { !$0.isPrimaryType }
        var applications:
            [(instance: DeviceTypeInstance, type: DeviceTypeRevision, clusters: [BridgedEndpoint.Cluster])]
        applications = []
        for instance in ordered where !applications.contains(where: { $0.instance.key == instance.key }) {
            guard let definition = catalog.deviceType(instance.typeID), !definition.isUtilityType,
                let matterID = definition.matterID, let revision = table.deviceTypeRevisions[instance.typeID]
            else { continue }
            let clusters = instance.traits.compactMap { cluster($0, deviceType: instance.typeID) }
            guard !clusters.isEmpty else { continue }
            applications.append((instance, DeviceTypeRevision(matterID, revision: revision), clusters))
        }
        guard !applications.isEmpty else { return [] }
        let information = Self.information(device, traits: applications.flatMap(\.instance.traits))
        let key = device.id.rawValue
        if applications.count == 1, let only = applications.first {
            return [
                PlannedEndpoint(
                    key: key, parent: nil, deviceTypeKey: only.instance.key,
                    deviceTypes: [only.type, Self.bridgedNode], clusters: [identifyCluster()] + only.clusters,
                    information: information)
            ]
        }
        let top = PlannedEndpoint(
            key: key, parent: nil, deviceTypeKey: nil, deviceTypes: [Self.bridgedNode], clusters: [],
            information: information)
        return [top]
            + applications.map {
                PlannedEndpoint(
                    key: "\(key)/\($0.instance.key)", parent: key, deviceTypeKey: $0.instance.key,
                    deviceTypes: [$0.type], clusters: [identifyCluster()] + $0.clusters, information: nil)
            }
    }

    /// Reachable over the exposed traits: true when one is online; false when none is and one is
    /// offline or lost (broker gone, stale, link failed); true while all are undecided (never heard,
    /// imported from a cloud), as the specification's default and other bridges start.
    public static func isReachable(_ traits: [TraitInstance]) -> Bool {
        var isDown = false
        for trait in traits {
            switch trait.connectivity.state {
            case .online: return true
            case .offline: isDown = true
            case .unknown:
                switch trait.connectivity.reason {
                case .brokerDisconnected?, .stale?, .linkFailed?, .sourceBridgeOffline?: isDown = true
                default: break
                }
            }
        }
        return !isDown
    }

    static func information(_ device: Device, traits: [TraitInstance]) -> BridgedInformation {
        BridgedInformation(
            name: device.name, vendorName: device.info.manufacturer, vendorID: device.identity.vendorID,
            productName: device.info.model, productID: device.identity.productID,
            hardwareVersion: device.info.hardwareVersion, softwareVersion: device.info.softwareVersion,
            serialNumber: device.identity.serialNumber, isReachable: isReachable(traits))
    }

    /// Identify, answered by the bridge itself (IdentifyType 0: nothing visible).
    func identifyCluster() -> BridgedEndpoint.Cluster {
        BridgedEndpoint.Cluster(
            ClusterDescription(
                id: 0x0003, revision: table.clusters[Self.identify]?.revision ?? 5, accepted: [0x00, 0x40]),
            values: [0x0000: .unsigned(0), 0x0001: .unsigned(0)], localWrites: [0x0000])
    }

    /// Attributes that say which features the cluster has, worked out from them when the device does
    /// not say (a constant would be wrong for some devices): Color Control's capabilities and mode,
    /// Window Covering's ConfigStatus, Thermostat's ControlSequenceOfOperation.
    static func derived(cluster: UInt32, attribute: UInt32, features: Set<String>, map: UInt32) -> TLVValue? {
        switch (cluster, attribute) {
        case (0x0300, 0x400A): return .unsigned(UInt64(map & 0x1F))  // ColorCapabilities = HS, EHUE, CL, XY, CT bits
        case (0x0300, 0x0008), (0x0300, 0x4001):  // ColorMode, EnhancedColorMode: 0 hue/sat, 1 XY, 2 temperature
            if features.contains("CT") { return .unsigned(2) }
            if features.contains("XY") { return .unsigned(1) }
            return features.contains("HS") ? .unsigned(0) : nil
        case (0x0102, 0x0007):  // ConfigStatus: Operational, LiftPositionAware (bit 3), TiltPositionAware (bit 4)
            return .unsigned(1 | (features.contains("PA_LF") ? 8 : 0) | (features.contains("PA_TL") ? 16 : 0))
        case (0x0201, 0x001B):  // ControlSequenceOfOperation: 0 cooling only, 2 heating only, 4 both
            switch (features.contains("HEAT"), features.contains("COOL")) {
            case (true, true): return .unsigned(4)
            case (false, true): return .unsigned(0)
            case (true, false): return .unsigned(2)
            case (false, false): return nil
            }
        default: return nil
        }
    }

    /// The cluster a trait instance is, or nil when the table does not serve its trait.
    func cluster(_ trait: TraitInstance, deviceType: DeviceTypeID) -> BridgedEndpoint.Cluster? {
        guard trait.traitID != Self.identify, let row = table.clusters[trait.traitID],
            let definition = catalog.trait(trait.traitID)
        else { return nil }
        var features = Set<String>()
        var featureMap: UInt32 = 0
        for rule in row.features where (0..<32).contains(rule.bit) {
            let holds =
                switch rule.condition {
                case .always: true
                case .whenAttribute(let name): trait.attributes[name] != nil
                case .whenDeviceType(let types): types.contains(deviceType)
                }
            if holds {
                features.insert(rule.code)
                featureMap |= 1 << UInt32(rule.bit)
            }
        }
        var values: [UInt32: TLVValue] = [:]
        var localWrites: Set<UInt32> = []
        var forwardedWrites: Set<UInt32> = []
        for attribute in definition.attributes {
            guard let id = attribute.id else { continue }
            let conformance = Conformance(attribute.conformance, features: features)
            guard conformance != .disallowed else { continue }
            if let value = trait.attributes[attribute.name], let tlv = MatterValues.tlv(value, as: attribute.metadata) {
                values[id] = tlv
                if attribute.metadata.isWritable { forwardedWrites.insert(id) }
            } else if let derived = Self.derived(
                cluster: row.clusterID, attribute: id, features: features, map: featureMap)
            {
                values[id] = derived
            } else if let constant = row.constants[attribute.name],
                let tlv = MatterValues.tlv(constant, as: attribute.metadata)
            {
                values[id] = tlv
                if attribute.metadata.isWritable { localWrites.insert(id) }
            } else if conformance == .mandatory, let fallback = attribute.metadata.defaultValue,
                let tlv = MatterValues.tlv(fallback, as: attribute.metadata)
            {
                values[id] = tlv  // not heard yet: the specification's default until the device says
            } else if conformance == .mandatory, attribute.metadata.isNullable {
                values[id] = .null
            }
        }
        var accepted: [UInt32] = []
        var failing: Set<UInt32> = []
        for (name, unified) in row.commands {
            guard let command = definition.command(named: name), let id = command.id,
                Conformance(command.conformance, features: features) != .disallowed
            else { continue }
            accepted.append(id)
            if unified == nil { failing.insert(id) }
        }
        let description = ClusterDescription(
            id: row.clusterID, revision: row.revision, featureMap: featureMap, accepted: accepted.sorted())
        return BridgedEndpoint.Cluster(
            description, values: values, localWrites: localWrites, forwardedWrites: forwardedWrites,
            failingCommands: failing)
    }
}
