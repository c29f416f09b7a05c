public import TraitBridgeMatterCodec

/// AttributePathIB (Matter Core §10.6.2): which attributes a read, subscribe, write or report is about.
/// Every field is optional and a missing one is a wildcard (Node aside, which means "this node"). A TLV
/// list: `{0 EnableTagCompression bool, 1 Node u64, 2 Endpoint u16, 3 Cluster u32, 4 Attribute u32,
/// 5 ListIndex u16 or null, 6 WildcardPathFlags u32}` (connectedhomeip `AttributePathIB.h`, matter.js
/// `TlvAttributePath`, CircuitMatter `AttributePathIB`; tag 6 since Interaction Model revision 12).
public struct AttributePath: Sendable, Hashable, CustomStringConvertible {
    /// Which list element a path names: an index (reads and writes of one element, rarely used), or null,
    /// meaning "append" — how a chunked report or write carries a list after its first part.
    public enum ListIndex: Sendable, Hashable {
        case index(UInt16)
        case append
    }

    /// Read but not acted on: omitted fields are wildcards whatever it says, as in connectedhomeip.
    public var enableTagCompression: Bool?
    public var node: UInt64?
    public var endpoint: UInt16?
    public var cluster: UInt32?
    public var attribute: UInt32?
    public var listIndex: ListIndex?
    public var wildcardFlags: WildcardPathFlags?

    public init(
        endpoint: UInt16? = nil, cluster: UInt32? = nil, attribute: UInt32? = nil, listIndex: ListIndex? = nil,
        node: UInt64? = nil, wildcardFlags: WildcardPathFlags? = nil, enableTagCompression: Bool? = nil
    ) {
        self.enableTagCompression = enableTagCompression
        self.node = node
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
        self.listIndex = listIndex
        self.wildcardFlags = wildcardFlags
    }

    /// The path of one concrete attribute (what reports carry).
    public init(_ concrete: ConcreteAttributePath, listIndex: ListIndex? = nil) {
        self.init(
            endpoint: concrete.endpoint, cluster: concrete.cluster, attribute: concrete.attribute, listIndex: listIndex)
    }

    /// Whether any of endpoint, cluster and attribute is a wildcard.
    public var isWildcard: Bool { endpoint == nil || cluster == nil || attribute == nil }

    /// Endpoint, cluster and attribute when none is a wildcard.
    public var concrete: ConcreteAttributePath? {
        guard let endpoint, let cluster, let attribute else { return nil }
        return ConcreteAttributePath(endpoint: endpoint, cluster: cluster, attribute: attribute)
    }

    /// The TLV list, members in tag order, absent ones left out.
    public var tlv: TLVValue {
        let listIndexValue: TLVValue? = listIndex.map {
            switch $0 {
            case .index(let index): .unsigned(UInt64(index))
            case .append: .null
            }
        }
        let members: KeyValuePairs<UInt8, TLVValue?> = [
            0: enableTagCompression.map { .bool($0) }, 1: node.map { .unsigned($0) },
            2: endpoint.map { .unsigned(UInt64($0)) }, 3: cluster.map { .unsigned(UInt64($0)) },
            4: attribute.map { .unsigned(UInt64($0)) }, 5: listIndexValue,
            6: wildcardFlags.map { .unsigned(UInt64($0.rawValue)) },
        ]
        return .tagList(members)
    }

    /// `*/0x1D/*`-style: endpoint/cluster/attribute in hex, `*` for a wildcard, `[n]` or `[append]` after.
    public var description: String {
        func hex<T: BinaryInteger>(_ value: T?) -> String { value.map { "0x" + String($0, radix: 16) } ?? "*" }
        let suffix: String =
            switch listIndex {
            case .none: ""
            case .index(let index): "[\(index)]"
            case .append: "[append]"
            }
        return "\(endpoint.map { String($0) } ?? "*")/\(hex(cluster))/\(hex(attribute))" + suffix
    }

    init(reading reader: FieldReader) throws(InteractionMessageError) {
        let path = try reader.expect(.list)
        enableTagCompression = try path.optional(0, "EnableTagCompression").bool()
        node = try path.optional(1, "Node").uint(UInt64.self)
        endpoint = try path.optional(2, "Endpoint").uint(UInt16.self)
        cluster = try path.optional(3, "Cluster").uint(UInt32.self)
        attribute = try path.optional(4, "Attribute").uint(UInt32.self)
        if let index = path.optional(5, "ListIndex") {
            listIndex = index.value.isNull ? .append : .index(try index.uint(UInt16.self))
        }
        wildcardFlags = try path.optional(6, "WildcardPathFlags").uint(UInt32.self).map(WildcardPathFlags.init)
    }
}

/// One attribute of one cluster instance: what a wildcard path expands to and a report names.
public struct ConcreteAttributePath: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var endpoint: UInt16
    public var cluster: UInt32
    public var attribute: UInt32

    public init(endpoint: UInt16, cluster: UInt32, attribute: UInt32) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.attribute = attribute
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.endpoint, lhs.cluster, lhs.attribute) < (rhs.endpoint, rhs.cluster, rhs.attribute)
    }

    public var description: String { AttributePath(self).description }
}

/// WildcardPathFlags (Matter Core §10.6.2.1, Interaction Model revision 12): what a wildcard read asks the
/// server to leave out. Bits as matter.js `WildcardPathFlagsBitmap` and connectedhomeip name them.
public struct WildcardPathFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Skip endpoint 0 (the root node) when the endpoint is a wildcard.
    public static let skipRootNode = WildcardPathFlags(rawValue: 1 << 0)
    /// Skip the global attributes (0xF000...0xFFFE) when the attribute is a wildcard.
    public static let skipGlobalAttributes = WildcardPathFlags(rawValue: 1 << 1)
    /// Skip AttributeList (0xFFFB).
    public static let skipAttributeList = WildcardPathFlags(rawValue: 1 << 2)
    /// Skip AcceptedCommandList (0xFFF9) and GeneratedCommandList (0xFFF8).
    public static let skipCommandLists = WildcardPathFlags(rawValue: 1 << 4)
    /// Skip manufacturer-specific clusters and attributes (a non-zero vendor prefix in the upper 16 bits).
    public static let skipCustomElements = WildcardPathFlags(rawValue: 1 << 5)
    /// Skip Fixed (F) attributes. Not applied: ``NodeLayout`` carries no qualities.
    public static let skipFixedAttributes = WildcardPathFlags(rawValue: 1 << 6)
    /// Skip Changes Omitted (C) attributes. Not applied, as above.
    public static let skipChangesOmittedAttributes = WildcardPathFlags(rawValue: 1 << 7)
    /// Skip Diagnostics (K) clusters. Not applied, as above.
    public static let skipDiagnosticsClusters = WildcardPathFlags(rawValue: 1 << 8)
}
