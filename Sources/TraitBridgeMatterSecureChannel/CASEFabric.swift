public import Crypto
public import TraitBridgeMatterCredentials

/// What CASE needs of one installed fabric: the device's verified chain (root, NOC, ICAC, node and
/// fabric IDs), the fabric's IPK (the operational group key derived from AddNOC's IPK epoch key), the
/// key pair the NOC certifies, and the fabric index. It exists so the responder does not depend on the
/// fabric table: the table builds these values and hands the list in. Printing shows no key.
public struct CASEFabric: Sendable, CustomStringConvertible {
    /// Why a fabric's parts do not fit together; sizes and names only.
    public enum InputError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The IPK is not 16 bytes.
        case ipkLength(Int)
        /// The key pair's public key is not the NOC's.
        case keyDoesNotMatchNOC

        public var description: String {
            switch self {
            case .ipkLength(let count): "CASE fabric: IPK of \(count) bytes, expected 16 — derive it from the epoch key"
            case .keyDoesNotMatchNOC: "CASE fabric: the operational key pair is not the one the NOC certifies"
            }
        }
    }

    /// The fabric index (1...254) sessions on this fabric carry.
    public let fabricIndex: UInt8
    /// The device's own chain on this fabric, verified when installed.
    public let chain: CertificateChain
    public let operationalKey: OperationalKeyPair
    /// The IPK as bytes (swift-crypto's SymmetricKey is not Sendable).
    private let ipkMaterial: [UInt8]

    public var ipk: SymmetricKey { SymmetricKey(data: ipkMaterial) }
    public var fabricID: UInt64 { chain.fabricID }
    public var nodeID: UInt64 { chain.nodeID }
    public var rootPublicKey: [UInt8] { chain.rootPublicKey }

    /// - Throws: ``InputError`` when the IPK is not 16 bytes or the key pair is not the NOC's.
    public init(
        fabricIndex: UInt8, chain: CertificateChain, ipk: SymmetricKey, operationalKey: OperationalKeyPair
    ) throws(InputError) {
        guard ipk.bitCount == 128 else { throw .ipkLength(ipk.bitCount / 8) }
        guard operationalKey.publicKey == chain.noc.publicKey else { throw .keyDoesNotMatchNOC }
        self.fabricIndex = fabricIndex
        self.chain = chain
        self.operationalKey = operationalKey
        self.ipkMaterial = ipk.withUnsafeBytes { Array($0) }
    }

    /// Whether Sigma1's destination ID names this fabric and node (HMAC compared in constant time).
    func isDestination(_ destinationID: [UInt8], initiatorRandom: [UInt8]) -> Bool {
        FabricIdentifiers.isDestinationID(
            destinationID, ipk: ipk, initiatorRandom: initiatorRandom, rootPublicKey: rootPublicKey,
            fabricID: fabricID, nodeID: nodeID)
    }

    public var description: String {
        "CASEFabric(index \(fabricIndex), fabric \(hex(fabricID)), node \(hex(nodeID)))"
    }
}
