public import Crypto
public import TraitBridgeMatterCredentials

/// One installed fabric, what AddNOC leaves in the fabric table: the verified chain, the ids CASE and
/// operational discovery need, the IPK, and the node's operational key for this fabric. Printing it
/// shows ids and the label only, never the key or IPK.
public struct Fabric: Sendable, CustomStringConvertible {
    /// The fabric index, 1…254, local to this device.
    public let index: UInt8
    /// The verified NOC → (ICAC) → RCAC chain.
    public let chain: CertificateChain
    /// The IPK epoch key as AddNOC's IPKValue gave it (16 bytes); group key set 0.
    public let ipkEpochKey: [UInt8]
    /// The operational key pair the NOC certifies.
    public let operationalKey: OperationalKeyPair
    /// AdminVendorId of AddNOC.
    public let vendorID: UInt16
    /// The fabric label (UpdateFabricLabel), at most 32 bytes; empty after AddNOC.
    public var label: String

    public init(
        index: UInt8, chain: CertificateChain, ipkEpochKey: [UInt8], operationalKey: OperationalKeyPair,
        vendorID: UInt16, label: String = ""
    ) {
        self.index = index
        self.chain = chain
        self.ipkEpochKey = ipkEpochKey
        self.operationalKey = operationalKey
        self.vendorID = vendorID
        self.label = label
    }

    public var fabricID: UInt64 { chain.fabricID }
    public var nodeID: UInt64 { chain.nodeID }
    public var compressedFabricID: UInt64 { chain.compressedFabricID }
    /// The root public key, 65 bytes.
    public var rootPublicKey: [UInt8] { chain.rootPublicKey }

    /// The operational IPK CASE uses: the epoch key derived with the compressed fabric id
    /// (`FabricIdentifiers.operationalGroupKey`); nil only if the stored epoch key is not 16 bytes.
    public var ipk: SymmetricKey? {
        try? FabricIdentifiers.operationalGroupKey(
            epochKey: SymmetricKey(data: ipkEpochKey), compressedFabricID: compressedFabricID)
    }

    public var description: String {
        "fabric \(index): fabric id \(hex(fabricID)), node id \(hex(nodeID)), vendor \(vendorID),"
            + " label \"\(label)\""
    }
}

/// An Access Control entry (Access Control cluster `AccessControlEntryStruct`, Matter Core §9.10.5.5).
/// AddNOC installs the first one: Administer over CASE for the CaseAdminSubject; an administrator writes
/// the rest (``CommissioningState/writeAccessControl(_:append:fabricIndex:)``).
public struct AccessControlEntry: Sendable, Hashable {
    /// Privilege: 1 View, 2 ProxyView, 3 Operate, 4 Manage, 5 Administer.
    public var privilege: UInt8
    /// AuthMode: 1 PASE, 2 CASE, 3 Group.
    public var authMode: UInt8
    /// Subjects (node ids or CATs); nil means any subject.
    public var subjects: [UInt64]?
    /// What the entry covers; nil means every endpoint and cluster.
    public var targets: [AccessControlTarget]?
    /// The fabric the entry belongs to.
    public var fabricIndex: UInt8

    public static let administer: UInt8 = 5
    public static let caseAuthMode: UInt8 = 2
    public static let groupAuthMode: UInt8 = 3

    public init(
        privilege: UInt8, authMode: UInt8, subjects: [UInt64]?, targets: [AccessControlTarget]? = nil,
        fabricIndex: UInt8
    ) {
        self.privilege = privilege
        self.authMode = authMode
        self.subjects = subjects
        self.targets = targets
        self.fabricIndex = fabricIndex
    }
}

/// One target of an entry (`AccessControlTargetStruct`): a cluster, an endpoint or a device type, or a
/// cluster on an endpoint or on endpoints of a device type (never an endpoint and a device type both).
public struct AccessControlTarget: Sendable, Hashable {
    public var cluster: UInt32?
    public var endpoint: UInt16?
    public var deviceType: UInt32?

    public init(cluster: UInt32? = nil, endpoint: UInt16? = nil, deviceType: UInt32? = nil) {
        self.cluster = cluster
        self.endpoint = endpoint
        self.deviceType = deviceType
    }

    /// Whether the target covers `cluster` on `endpoint`, whose device types are `deviceTypes`.
    public func covers(endpoint: UInt16, cluster: UInt32, deviceTypes: [UInt32]) -> Bool {
        (self.cluster.map { $0 == cluster } ?? true) && (self.endpoint.map { $0 == endpoint } ?? true)
            && (deviceType.map { deviceTypes.contains($0) } ?? true)
    }
}
