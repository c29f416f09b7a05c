public import TraitBridgeMatterCodec

/// EventPathIB (Matter Core §10.6.8): which events a read or subscribe asks for; missing fields are
/// wildcards. A TLV list `{0 Node u64, 1 Endpoint u16, 2 Cluster u32, 3 Event u32, 4 IsUrgent bool}`
/// (connectedhomeip `EventPathIB.h`). python-matter-server subscribes with `[{4: true}]`: every event, urgent.
public struct EventPath: Sendable, Hashable {
    public var node: UInt64?
    public var endpoint: UInt16?
    public var cluster: UInt32?
    public var event: UInt32?
    public var isUrgent: Bool?

    public init(
        endpoint: UInt16? = nil, cluster: UInt32? = nil, event: UInt32? = nil, isUrgent: Bool? = nil,
        node: UInt64? = nil
    ) {
        self.node = node
        self.endpoint = endpoint
        self.cluster = cluster
        self.event = event
        self.isUrgent = isUrgent
    }

    public var tlv: TLVValue {
        .tagList([
            0: node.map { .unsigned($0) }, 1: endpoint.map { .unsigned(UInt64($0)) },
            2: cluster.map { .unsigned(UInt64($0)) }, 3: event.map { .unsigned(UInt64($0)) },
            4: isUrgent.map { .bool($0) },
        ])
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let path = try reader.expect(.list)
        node = try path.optional(0, "Node").uint(UInt64.self)
        endpoint = try path.optional(1, "Endpoint").uint(UInt16.self)
        cluster = try path.optional(2, "Cluster").uint(UInt32.self)
        event = try path.optional(3, "Event").uint(UInt32.self)
        isUrgent = try path.optional(4, "IsUrgent").bool()
    }
}

/// EventFilterIB (Matter Core §10.6.6): "only events numbered from `eventMinimum` on", so a resubscribing
/// client does not get events twice. A structure `{0 Node u64 (optional), 1 EventMin u64}`.
public struct EventFilter: Sendable, Hashable {
    public var node: UInt64?
    public var eventMinimum: UInt64

    public init(eventMinimum: UInt64, node: UInt64? = nil) {
        self.node = node
        self.eventMinimum = eventMinimum
    }

    public var tlv: TLVValue { .contextStructure([0: node.map { .unsigned($0) }, 1: .unsigned(eventMinimum)]) }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let filter = try reader.expect(.structure)
        node = try filter.optional(0, "Node").uint(UInt64.self)
        eventMinimum = try filter.required(1, "EventMin").uint(UInt64.self)
    }
}

/// ClusterPathIB (Matter Core §10.6.7): one cluster instance, as a data version filter names it. A TLV
/// list `{0 Node u64 (optional), 1 Endpoint u16, 2 Cluster u32}`.
public struct ClusterPath: Sendable, Hashable {
    public var node: UInt64?
    public var endpoint: UInt16
    public var cluster: UInt32

    public init(endpoint: UInt16, cluster: UInt32, node: UInt64? = nil) {
        self.node = node
        self.endpoint = endpoint
        self.cluster = cluster
    }

    public var tlv: TLVValue {
        .tagList([0: node.map { .unsigned($0) }, 1: .unsigned(UInt64(endpoint)), 2: .unsigned(UInt64(cluster))])
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let path = try reader.expect(.list)
        node = try path.optional(0, "Node").uint(UInt64.self)
        endpoint = try path.required(1, "Endpoint").uint(UInt16.self)
        cluster = try path.required(2, "Cluster").uint(UInt32.self)
    }
}

/// DataVersionFilterIB (Matter Core §10.6.3): "I hold this cluster at this data version", so the server
/// leaves the cluster's attributes out of the report when its version has not moved. A structure
/// `{0 Path ClusterPathIB, 1 DataVersion u32}`.
public struct DataVersionFilter: Sendable, Hashable {
    public var path: ClusterPath
    public var dataVersion: UInt32

    public init(path: ClusterPath, dataVersion: UInt32) {
        self.path = path
        self.dataVersion = dataVersion
    }

    public var tlv: TLVValue { .contextStructure([0: path.tlv, 1: .unsigned(UInt64(dataVersion))]) }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let filter = try reader.expect(.structure)
        path = try ClusterPath(reading: try filter.required(0, "Path"))
        dataVersion = try filter.required(1, "DataVersion").uint(UInt32.self)
    }
}

/// CommandPathIB (Matter Core §10.6.11): the command an invoke names. A TLV list `{0 Endpoint u16,
/// 1 Cluster u32, 2 Command u32}`; the endpoint is absent only in group invokes, which a unicast node refuses.
public struct CommandPath: Sendable, Hashable, CustomStringConvertible {
    public var endpoint: UInt16?
    public var cluster: UInt32
    public var command: UInt32

    public init(endpoint: UInt16?, cluster: UInt32, command: UInt32) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.command = command
    }

    public var tlv: TLVValue {
        .tagList([
            0: endpoint.map { .unsigned(UInt64($0)) }, 1: .unsigned(UInt64(cluster)), 2: .unsigned(UInt64(command)),
        ])
    }

    public var description: String {
        "\(endpoint.map { String($0) } ?? "*")/0x\(String(cluster, radix: 16))/command 0x\(String(command, radix: 16))"
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let path = try reader.expect(.list)
        endpoint = try path.optional(0, "Endpoint").uint(UInt16.self)
        cluster = try path.required(1, "Cluster").uint(UInt32.self)
        command = try path.required(2, "Command").uint(UInt32.self)
    }
}

extension TLVValue {
    /// A TLV list of context-tagged members in the order given, nil ones left out (the IM's paths are lists).
    static func tagList(_ members: KeyValuePairs<UInt8, TLVValue?>) -> TLVValue {
        .list(members.compactMap { tag, value in value.map { TLVElement(tag: .context(tag), value: $0) } })
    }
}
