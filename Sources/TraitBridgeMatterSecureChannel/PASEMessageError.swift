public import TraitBridgeMatterCodec

/// Why a PASE or CASE message's payload was refused: which message, which field, and what was wrong. Matched
/// by pattern; the descriptions name fields and sizes, never their bytes (shares and confirmations are
/// not secret, but nothing here needs them).
public enum PASEMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The payload is not one well-formed TLV element (truncated, trailing bytes, too deep, ...).
    case malformedTLV(message: String, TLVDecoder.DecodeError)
    /// The payload is TLV, but not the anonymous structure every PASE message is.
    case notAnonymousStructure(message: String, found: String)
    /// A member with a tag that is not a context tag, or out of the ascending tag order the spec's
    /// `STRUCTURE [ tag-order ]` requires (connectedhomeip reads the members in order and fails otherwise).
    case memberOutOfOrder(message: String, tag: TLVTag)
    /// A field missing, of the wrong type, too wide or of the wrong length.
    case invalidField(message: String, field: String, TLVValue.AccessError)
    /// A field of the right type whose value the spec does not allow.
    case valueNotAllowed(message: String, field: String, reason: String)

    public var description: String {
        switch self {
        case .malformedTLV(let message, let error):
            "\(message): \(error)"
        case .notAnonymousStructure(let message, let found):
            "\(message): the payload is \(found), expected an anonymous structure — is this the right opcode?"
        case .memberOutOfOrder(let message, let tag):
            "\(message): member \(tag) is out of place — members are context-tagged, in ascending tag order"
        case .invalidField(let message, let field, let error):
            "\(message).\(field): \(error)"
        case .valueNotAllowed(let message, let field, let reason):
            "\(message).\(field): \(reason)"
        }
    }
}

/// One PASE payload opened for reading: the checks every message shares (one bounded TLV element, an
/// anonymous structure, context tags in ascending order; members with higher unknown tags are ignored
/// as connectedhomeip ignores them), then fields read with errors that name them.
struct MessageReader {
    /// PASE messages nest two structures deep and hold a dozen members; these bounds leave room for
    /// future members and nothing more.
    static let limits = TLVDecoder.Limits(maxDepth: 4, maxElements: 64)

    let message: String
    let root: TLVValue

    init(_ payload: [UInt8], message: String) throws(PASEMessageError) {
        self.message = message
        let element: TLVElement
        do { element = try TLVElement(decoding: payload, limits: Self.limits) } catch {
            throw .malformedTLV(message: message, error)
        }
        guard element.tag == .anonymous, case .structure(let members) = element.value else {
            let found = "\(element.value.type)" + (element.tag == .anonymous ? "" : " tagged \(element.tag)")
            throw .notAnonymousStructure(message: message, found: found)
        }
        try Self.checkOrder(members, message: message)
        root = element.value
    }

    /// Context tags only, strictly ascending (the decoder already refused repeats).
    static func checkOrder(_ members: [TLVElement], message: String) throws(PASEMessageError) {
        var previous = -1
        for member in members {
            guard case .context(let number) = member.tag, Int(number) > previous else {
                throw .memberOutOfOrder(message: message, tag: member.tag)
            }
            previous = Int(number)
        }
    }

    /// `read(value)` of the structure, its access error named `field`.
    func field<T>(_ field: String, _ read: (TLVValue) throws(TLVValue.AccessError) -> T) throws(PASEMessageError) -> T {
        do { return try read(root) } catch { throw .invalidField(message: message, field: field, error) }
    }

    /// The optional structure member `tag`; nil when absent. With `checkingOrder`, its members must be
    /// in tag order too (connectedhomeip is strict for the PBKDF parameters, lenient for session parameters).
    func optionalStructure(
        _ tag: UInt8, field name: String, checkingOrder: Bool
    ) throws(PASEMessageError) -> TLVValue? {
        guard root[tag] != nil else { return nil }
        let value = try field(name) { value throws(TLVValue.AccessError) in try value.structure(tag) }
        if checkingOrder { try Self.checkOrder(value.members ?? [], message: "\(message).\(name)") }
        return value
    }
}

extension TLVElement {
    /// An anonymous structure of context-tagged members, nil ones left out, encoded.
    static func encodedStructure(_ members: KeyValuePairs<UInt8, TLVValue?>) -> [UInt8] {
        TLVElement(value: .contextStructure(members)).encoded
    }
}
