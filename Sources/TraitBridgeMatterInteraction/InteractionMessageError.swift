public import TraitBridgeMatterCodec

/// Why an Interaction Model payload was refused: which message, which field (a path from the message,
/// `ReadRequest.AttributeRequests[2].Endpoint`), the byte where that field starts, and what was wrong.
/// Matched by `kind`; a receiver answers it with a StatusResponse of ``status`` (INVALID_ACTION).
public struct InteractionMessageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: Sendable, Equatable {
        /// The payload is not one well-formed TLV element.
        case malformedTLV(TLVDecoder.DecodeError.Kind)
        /// A field the schema requires is absent (`offset`: the container that lacks it).
        case missing
        /// A field or container is of another TLV type than the schema's (a path as a structure, not a list).
        case wrongType(expected: TLVType, found: TLVType)
        /// An integer does not fit the field's width.
        case outOfRange(value: String, expected: String)
        /// A value of the right type that the spec does not allow.
        case notAllowed(String)
    }

    /// The message, `ReadRequest`.
    public var message: String
    /// The field from the message down, `ReadRequest.AttributeRequests[0].Cluster`; the message alone for
    /// its envelope.
    public var field: String
    /// The byte, from the start of the payload, where the field (or the malformed TLV) is.
    public var offset: Int
    public var kind: Kind

    public init(message: String, field: String, offset: Int, kind: Kind) {
        self.message = message
        self.field = field
        self.offset = offset
        self.kind = kind
    }

    /// The status a receiver answers with: INVALID_ACTION for every malformed request (Matter Core §8.9.1).
    public var status: StatusCode { .invalidAction }

    public var description: String { "\(field), byte \(offset): \(explanation)" }

    private static func article(_ type: TLVType) -> String {
        switch type {
        case .unsignedInteger, .octetString, .array: "an \(type)"
        case .null: "null"
        default: "a \(type)"
        }
    }

    private var explanation: String {
        switch kind {
        case .malformedTLV(let kind):
            "\(TLVDecoder.DecodeError(kind: kind, offset: offset, path: "").description) — not a well-formed "
                + "\(message)"
        case .missing:
            "missing — the spec requires it; is the opcode right, or the sender pre-Matter-1.0?"
        case .wrongType(let expected, let found):
            "is \(Self.article(found)), expected \(Self.article(expected))"
        case .outOfRange(let value, let expected):
            "is \(value), which does not fit \(expected)"
        case .notAllowed(let reason):
            reason
        }
    }
}
