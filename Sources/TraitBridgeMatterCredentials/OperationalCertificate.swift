internal import TraitBridgeMatterCodec

/// A Matter operational certificate — a root (RCAC), an intermediate (ICAC) or a node's (NOC) — in
/// the compact TLV form Matter sends them in (Matter Core §6.5), decoded strictly and converted to
/// X.509 DER exactly as the spec's conversion algorithm (Matter Core §6.5) and the SDK's
/// `CHIPCertToX509.cpp` do. The conversion matters beyond display: the issuer signed the DER
/// TBSCertificate, so the signature can only be checked over a byte-exact reconstruction.
///
/// Decoding accepts what the SDK's `ChipCertificateSet::LoadCert` accepts and nothing else: an
/// anonymous structure with tags 1–11 in order, ECDSA-SHA256 over P-256 only, a 65-byte point on
/// the curve, both key identifiers, a 64-byte raw signature. `tlv` keeps the bytes as received,
/// since a device returns its NOC and ICAC exactly as the commissioner sent them.
public struct OperationalCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate as received (at most 400 bytes, Matter Core §6.5.2 "Certificate Sizes").
    public let tlv: [UInt8]
    /// serial-num (1): the DER INTEGER content bytes, 1 to 20 of them.
    public let serialNumber: [UInt8]
    /// issuer (3).
    public let issuer: DistinguishedName
    /// not-before (4).
    public let notBefore: MatterTime
    /// not-after (5); 0 is "no well-defined expiration".
    public let notAfter: MatterTime
    /// subject (6).
    public let subject: DistinguishedName
    /// ec-pub-key (9): the uncompressed P-256 point, 65 bytes starting 0x04.
    public let publicKey: [UInt8]
    /// extensions (10), in the certificate's order.
    public let extensions: [CertificateExtension]
    /// signature (11): ECDSA-SHA256, raw r ‖ s, 64 bytes.
    public let signature: [UInt8]
    /// The X.509 TBSCertificate in DER: what `signature` signs.
    public let tbsCertificateDER: [UInt8]

    /// The largest TLV certificate Matter allows (Matter Core §6.5.2), as the SDK's `kMaxCHIPCertLength`.
    public static let maximumTLVLength = 400

    /// Decodes and converts `tlv`; throws which field is wrong and how.
    public init(tlv: [UInt8]) throws(DecodeError) {
        guard tlv.count <= Self.maximumTLVLength else {
            throw DecodeError(.certificate, .wrongLength(expected: "at most 400", found: tlv.count))
        }
        let fields = try Self.decodeFields(tlv)
        self.tlv = tlv
        serialNumber = fields.serialNumber
        issuer = fields.issuer
        notBefore = fields.notBefore
        notAfter = fields.notAfter
        subject = fields.subject
        publicKey = fields.publicKey
        extensions = fields.extensions
        signature = fields.signature
        tbsCertificateDER = try X509Writer.tbsCertificate(fields)
    }

    /// The whole certificate in X.509 DER: TBSCertificate, ecdsa-with-SHA256, and the signature as
    /// a DER Ecdsa-Sig-Value (RFC 3279 §2.2.3) in a BIT STRING.
    public var derEncoded: [UInt8] {
        // The signature was checked to be 64 bytes when decoding, so this conversion cannot fail.
        (try? X509Writer.certificate(tbs: tbsCertificateDER, rawSignature: signature)) ?? []
    }

    /// basic-cnstr's cA; false when the extension is absent (X.509's default).
    public var isCA: Bool {
        extensions.contains { if case .basicConstraints(true, _) = $0 { true } else { false } }
    }

    /// basic-cnstr's pathLenConstraint, if any.
    public var pathLengthConstraint: UInt8? {
        for case .basicConstraints(_, let length?) in extensions { return length }
        return nil
    }

    /// key-usage, or nil when absent.
    public var keyUsage: KeyUsage? {
        for case .keyUsage(let usage) in extensions { return usage }
        return nil
    }

    /// extended-key-usage, or nil when absent.
    public var extendedKeyUsage: [KeyPurpose]? {
        for case .extendedKeyUsage(let purposes) in extensions { return purposes }
        return nil
    }

    /// subject-key-id (always present: decoding requires it).
    public var subjectKeyID: [UInt8] {
        for case .subjectKeyID(let id) in extensions { return id }
        return []
    }

    /// authority-key-id (always present: decoding requires it).
    public var authorityKeyID: [UInt8] {
        for case .authorityKeyID(let id) in extensions { return id }
        return []
    }

    /// Whether a future-extension is marked critical, which chain validation refuses.
    public var hasCriticalFutureExtension: Bool {
        extensions.contains { if case .future(_, true) = $0 { true } else { false } }
    }

    /// `subject ← issuer, not-before…not-after`: names and times, no key material.
    public var description: String { "[\(subject)] issued by [\(issuer)], \(notBefore) … \(notAfter)" }
}

/// The decoded fields, before the X.509 conversion.
struct CertificateFields {
    var serialNumber: [UInt8]
    var issuer: DistinguishedName
    var notBefore: MatterTime
    var notAfter: MatterTime
    var subject: DistinguishedName
    var publicKey: [UInt8]
    var extensions: [CertificateExtension]
    var signature: [UInt8]
}
