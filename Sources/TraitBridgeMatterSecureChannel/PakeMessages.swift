import TraitBridgeMatterCodec
public import TraitBridgeMatterCrypto

/// Sizes and ranges the PASE messages share (Matter Core chapter 3, Cryptographic Primitives;
/// connectedhomeip `kPBKDFParamRandomNumberSize`, `kMAX_Point_Length`, `kMAX_Hash_Length`, `kSpake2p_Min/Max_PBKDF_*`).
enum PASEConstants {
    static let randomByteCount = 32
    /// An uncompressed P-256 point: 0x04, x, y.
    static let pointByteCount = 65
    /// An HMAC-SHA256 confirmation.
    static let confirmationByteCount = 32
    static let saltByteCounts = Verifier.saltByteCounts
    static let iterationCounts = Verifier.iterationCounts
}

/// Pake1 (opcode 0x22), the commissioner's SPAKE2+ share: `{1 pA octets[65]}`. It exists so the
/// responder reads the share with its length checked before any curve arithmetic.
public struct Pake1: Sendable, Hashable {
    static let name = "Pake1"

    /// X = x·P + w0·M, uncompressed.
    public var pA: [UInt8]

    public init(pA: [UInt8]) { self.pA = pA }

    /// - Throws: ``PASEMessageError``; a pA of another length than 65 is
    ///   ``PASEMessageError/invalidField(message:field:_:)``.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(pA: try reader.octets(1, "pA", count: PASEConstants.pointByteCount))
    }

    public var encoded: [UInt8] { TLVElement.encodedStructure([1: .octets(pA)]) }
}

/// Pake2 (opcode 0x23), the device's share and confirmation: `{1 pB octets[65], 2 cB octets[32]}`.
/// The type is ``TraitBridgeMatterCrypto/Pake2``, which ``VerifierHandshake`` returns.
extension Pake2 {
    static let name = "Pake2"

    /// - Throws: ``PASEMessageError`` naming pB or cB.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(
            pB: try reader.octets(1, "pB", count: PASEConstants.pointByteCount),
            cB: try reader.octets(2, "cB", count: PASEConstants.confirmationByteCount))
    }

    public var encoded: [UInt8] { TLVElement.encodedStructure([1: .octets(pB), 2: .octets(cB)]) }
}

/// Pake3 (opcode 0x24), the commissioner's confirmation: `{1 cA octets[32]}`.
public struct Pake3: Sendable, Hashable {
    static let name = "Pake3"

    /// HMAC-SHA256(KcA, pB).
    public var cA: [UInt8]

    public init(cA: [UInt8]) { self.cA = cA }

    /// - Throws: ``PASEMessageError``; a cA of another length than 32 is
    ///   ``PASEMessageError/invalidField(message:field:_:)``.
    public init(decoding payload: [UInt8]) throws(PASEMessageError) {
        let reader = try MessageReader(payload, message: Self.name)
        self.init(cA: try reader.octets(1, "cA", count: PASEConstants.confirmationByteCount))
    }

    public var encoded: [UInt8] { TLVElement.encodedStructure([1: .octets(cA)]) }
}
