public import TraitBridgeMatterCodec
public import TraitBridgeMatterCommissioning
public import TraitBridgeMatterInteraction

/// An endpoint made from data: the aggregator, a bridged device, a composed device's part. The
/// bridge describes each one (device types, parts, clusters with their values) and gives a new
/// description whenever the device changes; the node serves it as it is. Commands and writes the
/// device must carry out are *forwarded*: answered here at once and handed to the bridge, whose
/// device's echo is what changes the values. Identify is answered here: the bridge has no light of
/// its own to blink.
public struct BridgedEndpoint: ApplicationEndpoint, Equatable {
    /// One served cluster: what its global attributes say, its values, what it does with writes and
    /// commands.
    public struct Cluster: Sendable, Equatable {
        public var description: ClusterDescription
        /// Non-global attribute values by id.
        public var values: [UInt32: TLVValue]
        /// Attributes a controller may write and this endpoint keeps (Identify's IdentifyTime).
        public var localWrites: Set<UInt32>
        /// Attributes a controller may write that the device carries out (kept here until it echoes).
        public var forwardedWrites: Set<UInt32>
        /// Accepted commands no device can carry out: answered FAILURE (the log says why).
        public var failingCommands: Set<UInt32>

        public init(
            _ description: ClusterDescription, values: [UInt32: TLVValue], localWrites: Set<UInt32> = [],
            forwardedWrites: Set<UInt32> = [], failingCommands: Set<UInt32> = []
        ) {
            self.description = description
            self.values = values
            self.localWrites = localWrites
            self.forwardedWrites = forwardedWrites
            self.failingCommands = failingCommands
        }
    }

    static let identify: UInt32 = 0x0003

    public let id: UInt16
    public var deviceTypes: [DeviceTypeRevision]
    public var parts: [UInt16]
    /// The served clusters by id (Descriptor is the data model's).
    public private(set) var slots: [UInt32: Cluster]

    public init(id: UInt16, deviceTypes: [DeviceTypeRevision], parts: [UInt16] = [], clusters: [Cluster] = []) {
        precondition(id != 0 && id != 0xFFFF, "endpoint 0 is the root's; 0xFFFF is no endpoint")
        self.id = id
        self.deviceTypes = deviceTypes
        self.parts = parts
        var slots: [UInt32: Cluster] = [:]
        for cluster in clusters where cluster.description.id != ClusterDescription.descriptor.id {
            slots[cluster.description.id] = cluster
        }
        self.slots = slots
    }

    public var clusters: [ClusterDescription] { slots.values.map(\.description).sorted { $0.id < $1.id } }

    public func attributes(of cluster: UInt32) -> [UInt32: TLVValue] { slots[cluster]?.values ?? [:] }

    public func forwards(cluster: UInt32, command: UInt32) -> Bool {
        cluster != Self.identify && slots[cluster]?.failingCommands.contains(command) == false
    }

    public func forwards(cluster: UInt32, attribute: UInt32) -> Bool {
        slots[cluster]?.forwardedWrites.contains(attribute) == true
    }

    public mutating func write(cluster: UInt32, attribute: UInt32, value: TLVValue) -> StatusCode {
        guard let slot = slots[cluster], let current = slot.values[attribute] else { return .unsupportedAttribute }
        guard slot.localWrites.contains(attribute) || slot.forwardedWrites.contains(attribute) else {
            return .unsupportedWrite
        }
        guard Self.sameKind(current, value) else { return .constraintError }
        slots[cluster]?.values[attribute] = value
        return .success
    }

    public mutating func invoke(cluster: UInt32, command: UInt32, fields: TLVValue) -> RootEndpoint.InvokeResult {
        guard let slot = slots[cluster] else { return .status(.unsupportedCluster) }
        if cluster == Self.identify {
            switch command {
            case 0x00:
                guard let time = try? fields.uint(0, as: UInt16.self) else { return .status(.invalidCommand) }
                if slot.values[0x0000] != nil { slots[cluster]?.values[0x0000] = .unsigned(UInt64(time)) }
                return .status(.success)
            case 0x40:
                // TriggerEffect(EffectIdentifier, EffectVariant): accepted, nothing to show.
                guard (try? fields.uint(0, as: UInt8.self)) != nil, (try? fields.uint(1, as: UInt8.self)) != nil
                else { return .status(.invalidCommand) }
                return .status(.success)
            default: return .status(.unsupportedCommand)
            }
        }
        if slot.failingCommands.contains(command) { return .status(.failure) }
        guard case .structure = fields else { return .status(.invalidCommand) }
        return .status(.success)
    }

    /// Whether a written value may replace the stored one: the same kind (any integer for an integer,
    /// null for a nullable one, which the bridge marks by storing null or a value); the range is the
    /// device's to check (a refusal re-reports the device's value).
    private static func sameKind(_ current: TLVValue, _ new: TLVValue) -> Bool {
        switch (current, new) {
        case (.null, _), (_, .null): true
        case (.unsigned, .unsigned), (.signed, .signed), (.unsigned, .signed), (.signed, .unsigned): true
        case (.bool, .bool), (.string, .string), (.octets, .octets), (.float, .float), (.double, .double): true
        default: false
        }
    }
}
