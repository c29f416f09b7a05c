public import TraitBridgeMatterCodec
public import TraitBridgeMatterCommissioning
public import TraitBridgeMatterInteraction

/// An endpoint above the root (a light, later each bridged device): its device types and
/// application clusters, attribute values by id, writes and commands. It exists so the node's
/// data model serves any endpoint the same way: the Descriptor cluster and the global attributes
/// (AttributeList, the command lists, FeatureMap, ClusterRevision) are made from what the endpoint
/// says here, never written by each endpoint again.
public protocol ApplicationEndpoint: Sendable {
    /// The endpoint number (1…0xFFFE).
    var id: UInt16 { get }
    /// Descriptor DeviceTypeList.
    var deviceTypes: [DeviceTypeRevision] { get }
    /// Descriptor PartsList: the endpoints below this one (an aggregator's bridged devices, a
    /// composed device's children); empty for a leaf.
    var parts: [UInt16] { get }
    /// The application clusters served, without Descriptor (the data model adds it).
    var clusters: [ClusterDescription] { get }
    /// The non-global attribute values of `cluster`; empty for one not served.
    func attributes(of cluster: UInt32) -> [UInt32: TLVValue]
    /// Writes one attribute: SUCCESS, or the status of the refusal.
    mutating func write(cluster: UInt32, attribute: UInt32, value: TLVValue) -> StatusCode
    /// Runs one command (the cluster and command exist: the data model checked).
    mutating func invoke(cluster: UInt32, command: UInt32, fields: TLVValue) -> RootEndpoint.InvokeResult
    /// Whether a command this endpoint accepted is the device's to carry out (the node hands it on).
    func forwards(cluster: UInt32, command: UInt32) -> Bool
    /// Whether a write this endpoint accepted is the device's to carry out (the node hands it on).
    func forwards(cluster: UInt32, attribute: UInt32) -> Bool
}

/// A controller's command or write for a device behind an application endpoint: what the bridge
/// hands to the device (the endpoint answered it already).
public struct EndpointRequest: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case invoke(command: UInt32, fields: TLVValue)
        case write(attribute: UInt32, value: TLVValue)
    }

    public var endpoint: UInt16
    public var cluster: UInt32
    public var action: Action
    /// Set when the controller's answer waits for the device's: give it to
    /// ``MatterNode/completeInvoke(_:status:now:)`` (nil: the node answered already).
    public var token: UInt64?

    public init(endpoint: UInt16, cluster: UInt32, action: Action, token: UInt64? = nil) {
        self.endpoint = endpoint
        self.cluster = cluster
        self.action = action
        self.token = token
    }
}

/// A device type an endpoint is, with the revision it implements (Descriptor DeviceTypeStruct).
public struct DeviceTypeRevision: Sendable, Hashable {
    public var deviceType: UInt32
    public var revision: UInt16

    public init(_ deviceType: UInt32, revision: UInt16) {
        self.deviceType = deviceType
        self.revision = revision
    }
}

/// What the global attributes of a cluster report: its revision, features and commands.
public struct ClusterDescription: Sendable, Hashable {
    public var id: UInt32
    public var revision: UInt16
    public var featureMap: UInt32
    /// AcceptedCommandList, ascending.
    public var accepted: [UInt32]
    /// GeneratedCommandList, ascending.
    public var generated: [UInt32]

    public init(id: UInt32, revision: UInt16, featureMap: UInt32 = 0, accepted: [UInt32] = [], generated: [UInt32] = [])
    {
        self.id = id
        self.revision = revision
        self.featureMap = featureMap
        self.accepted = accepted
        self.generated = generated
    }

    /// Descriptor (0x001D), revision 3 (Matter 1.4), served on every application endpoint.
    public static let descriptor = ClusterDescription(id: ClusterID.descriptor, revision: 3)
}

extension ApplicationEndpoint {
    public var parts: [UInt16] { [] }
    public func forwards(cluster: UInt32, command: UInt32) -> Bool { false }
    public func forwards(cluster: UInt32, attribute: UInt32) -> Bool { false }

    /// The Descriptor's attributes: device types, the clusters served (Descriptor first among them), no
    /// client clusters, the parts below.
    var descriptorAttributes: [UInt32: TLVValue] {
        let served = ([ClusterDescription.descriptor.id] + clusters.map(\.id)).sorted()
        return [
            0x0000: .array(
                deviceTypes.map {
                    .contextStructure([0: .unsigned(UInt64($0.deviceType)), 1: .unsigned(UInt64($0.revision))])
                }),
            0x0001: .array(served.map { .unsigned(UInt64($0)) }),
            0x0002: .array([]),
            0x0003: .array(parts.map { .unsigned(UInt64($0)) }),
        ]
    }

    /// Every cluster served with its description, Descriptor included, ascending.
    var servedClusters: [ClusterDescription] { ([ClusterDescription.descriptor] + clusters).sorted { $0.id < $1.id } }

    /// The non-global attributes of any served cluster, Descriptor included.
    func values(of cluster: UInt32) -> [UInt32: TLVValue] {
        cluster == ClusterID.descriptor ? descriptorAttributes : attributes(of: cluster)
    }
}
