public import TraitBridgeMatterCodec

extension OperationalCertificate {
    /// Why bytes are not a Matter operational certificate (Matter Core §6.5, the compact TLV form):
    /// which field (`field`, the spec's name and TLV tag) and what was wrong with it (`reason`, to match
    /// on). Certificates come from the commissioner (AddTrustedRootCertificate, AddNOC) and from peers
    /// in CASE, so every byte is untrusted; nothing here carries a key or any other secret.
    public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A field of the certificate, named as Matter Core §6.5.2 names it, with its context tag.
        public enum Field: String, Sendable, CaseIterable {
            case certificate = "certificate"
            case serialNumber = "serial-num (1)"
            case signatureAlgorithm = "sig-algo (2)"
            case issuer = "issuer (3)"
            case notBefore = "not-before (4)"
            case notAfter = "not-after (5)"
            case subject = "subject (6)"
            case publicKeyAlgorithm = "pub-key-algo (7)"
            case ellipticCurve = "ec-curve-id (8)"
            case publicKey = "ec-pub-key (9)"
            case extensions = "extensions (10)"
            case basicConstraints = "basic-cnstr (10.1)"
            case keyUsage = "key-usage (10.2)"
            case extendedKeyUsage = "extended-key-usage (10.3)"
            case subjectKeyID = "subject-key-id (10.4)"
            case authorityKeyID = "authority-key-id (10.5)"
            case futureExtension = "future-extension (10.6)"
            case signature = "signature (11)"
        }

        /// What was wrong.
        public enum Reason: Sendable, Equatable {
            /// The bytes are not one well-formed TLV element.
            case notTLV(TLVDecoder.DecodeError)
            /// A required field is absent.
            case missing
            /// The field is of another TLV type.
            case wrongType(expected: TLVType, found: TLVType)
            /// An octet string, list or array of the wrong size; `expected` says what the spec allows.
            case wrongLength(expected: String, found: Int)
            /// A value the spec does not allow here (an algorithm other than ECDSA-SHA256, node id 0, ...).
            case invalidValue(String)
            /// A member the certificate's schema has no place for, or one out of the spec's order.
            case unexpectedMember(String)
        }

        public var field: Field
        public var reason: Reason

        public init(_ field: Field, _ reason: Reason) {
            self.field = field
            self.reason = reason
        }

        public var description: String {
            let what: String
            switch reason {
            case .notTLV(let error): what = "not Matter TLV — \(error)"
            case .missing: what = "missing — the commissioner's certificate is incomplete; it must be reissued"
            case .wrongType(let expected, let found): what = "is a \(found), expected a \(expected)"
            case .wrongLength(let expected, let found): what = "has \(found) bytes or elements, expected \(expected)"
            case .invalidValue(let detail): what = detail
            case .unexpectedMember(let detail): what = "unexpected member: \(detail)"
            }
            return "Matter operational certificate, \(field.rawValue): \(what)"
        }
    }
}
