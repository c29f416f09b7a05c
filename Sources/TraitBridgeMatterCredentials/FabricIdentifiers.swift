public import Crypto

/// The identifiers and keys a fabric derives from its root key, fabric id and IPK epoch key: the
/// compressed fabric id of operational discovery (Matter Core §4.3.2.2), the operational group key
/// that serves as the CASE IPK (§4.17.2, "GroupKey v1.0"), and the CASE destination id (§4.14.2.4)
/// by which an initiator's Sigma1 names the fabric and node it wants without naming them in clear.
/// HKDF-SHA256 and HMAC-SHA256 are swift-crypto's; keys stay `SymmetricKey`, which never prints.
public enum FabricIdentifiers {
    /// Why an input has the wrong size; the sizes are not secret.
    public enum InputError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A root public key that is not 65 bytes starting 0x04 (uncompressed P-256).
        case rootPublicKey(byteCount: Int)
        /// An epoch key or IPK that is not 16 bytes.
        case symmetricKey(byteCount: Int)
        /// An initiator random that is not 32 bytes.
        case initiatorRandom(byteCount: Int)

        public var description: String {
            switch self {
            case .rootPublicKey(let count): "root public key of \(count) bytes: expected 65, uncompressed (0x04 first)"
            case .symmetricKey(let count): "key of \(count) bytes: Matter's epoch keys and IPK are 16"
            case .initiatorRandom(let count): "initiator random of \(count) bytes: Sigma1's is 32"
            }
        }
    }

    /// HKDF-SHA256(ikm: the root key's x ‖ y, salt: `fabricID` big-endian, info: "CompressedFabric"),
    /// 8 bytes, read big-endian (as `_matter._tcp` instance names print it).
    public static func compressedFabricID(rootPublicKey: [UInt8], fabricID: UInt64) throws(InputError) -> UInt64 {
        guard rootPublicKey.count == 65, rootPublicKey.first == 0x04 else {
            throw .rootPublicKey(byteCount: rootPublicKey.count)
        }
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: rootPublicKey.dropFirst()), salt: bigEndian(fabricID),
            info: Array("CompressedFabric".utf8), outputByteCount: 8)
        return derived.withUnsafeBytes { $0.reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// The operational group key of `epochKey` on the fabric `compressedFabricID`:
    /// HKDF-SHA256(ikm: epoch key, salt: compressed fabric id big-endian, info: "GroupKey v1.0"),
    /// 16 bytes. For the IPK epoch key of AddNOC's IPKValue this is the IPK CASE uses.
    public static func operationalGroupKey(
        epochKey: SymmetricKey, compressedFabricID: UInt64
    ) throws(InputError) -> SymmetricKey {
        guard epochKey.bitCount == 128 else { throw .symmetricKey(byteCount: epochKey.bitCount / 8) }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: epochKey, salt: bigEndian(compressedFabricID), info: Array("GroupKey v1.0".utf8),
            outputByteCount: 16)
    }

    /// HMAC-SHA256(key: IPK, initiatorRandom ‖ root public key ‖ fabric id LE ‖ node id LE), 32 bytes.
    public static func destinationID(
        ipk: SymmetricKey, initiatorRandom: [UInt8], rootPublicKey: [UInt8], fabricID: UInt64, nodeID: UInt64
    ) throws(InputError) -> [UInt8] {
        let message = try destinationMessage(ipk, initiatorRandom, rootPublicKey, fabricID, nodeID)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: ipk))
    }

    /// Whether `candidate` (Sigma1's destinationId) is this fabric and node's destination id, compared
    /// in constant time (swift-crypto's `isValidAuthenticationCode`). A responder asks this of each
    /// installed fabric; false for inputs of the wrong size.
    public static func isDestinationID(
        _ candidate: [UInt8], ipk: SymmetricKey, initiatorRandom: [UInt8], rootPublicKey: [UInt8], fabricID: UInt64,
        nodeID: UInt64
    ) -> Bool {
        guard candidate.count == SHA256.byteCount,
            let message = try? destinationMessage(ipk, initiatorRandom, rootPublicKey, fabricID, nodeID)
        else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(candidate, authenticating: message, using: ipk)
    }

    private static func destinationMessage(
        _ ipk: SymmetricKey, _ random: [UInt8], _ rootPublicKey: [UInt8], _ fabricID: UInt64, _ nodeID: UInt64
    ) throws(InputError) -> [UInt8] {
        guard ipk.bitCount == 128 else { throw .symmetricKey(byteCount: ipk.bitCount / 8) }
        guard random.count == 32 else { throw .initiatorRandom(byteCount: random.count) }
        guard rootPublicKey.count == 65, rootPublicKey.first == 0x04 else {
            throw .rootPublicKey(byteCount: rootPublicKey.count)
        }
        return random + rootPublicKey + littleEndian(fabricID) + littleEndian(nodeID)
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }
    private static func littleEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
