public import Crypto
internal import SwiftASN1
internal import X509

/// The node's operational key pair (Matter Core §6.4, P-256 on swift-crypto), made for a CSRRequest
/// during commissioning and then held for the fabric: it signs CASE Sigma2/Sigma3 and is what the
/// NOC certifies. Printing it shows the public key only.
///
/// `@unchecked Sendable`: its one property, `P256.Signing.PrivateKey`, is an immutable value that
/// swift-crypto 3.12 has not yet declared `Sendable`.
public struct OperationalKeyPair: @unchecked Sendable, CustomStringConvertible {
    /// The private key; keep it out of logs (it has no description of its own).
    public let privateKey: P256.Signing.PrivateKey

    /// A fresh key pair from the system's random source.
    public init() { privateKey = P256.Signing.PrivateKey() }

    /// A stored key pair.
    public init(privateKey: P256.Signing.PrivateKey) { self.privateKey = privateKey }

    /// The public key, uncompressed (65 bytes, 0x04 first), as certificates and CASE carry it.
    public var publicKey: [UInt8] { Array(privateKey.publicKey.x963Representation) }

    /// ECDSA-SHA256 over `message`, raw r ‖ s (64 bytes), as Matter's TBS signatures are.
    public func sign(_ message: [UInt8]) throws -> [UInt8] {
        Array(try privateKey.signature(for: message).rawRepresentation)
    }

    /// A PKCS#10 CertificationRequest (RFC 2986) in DER for this key, signed with it, shaped as the
    /// SDK's `GenerateCertificateSigningRequest` shapes it: subject OU=CSA (UTF8String, a placeholder
    /// the commissioner ignores), an extensionRequest attribute with no extensions, ecdsa-with-SHA256.
    /// Built and signed by swift-certificates.
    public func certificateSigningRequest() throws -> [UInt8] {
        let subject = X509.DistinguishedName([
            RelativeDistinguishedName(
                RelativeDistinguishedName.Attribute(type: .RDNAttributeType.organizationalUnitName, utf8String: "CSA"))
        ])
        let request = ExtensionRequest(extensions: Certificate.Extensions())
        let csr = try CertificateSigningRequest(
            version: .v1, subject: subject, privateKey: Certificate.PrivateKey(privateKey),
            attributes: CertificateSigningRequest.Attributes([CertificateSigningRequest.Attribute(request)]),
            signatureAlgorithm: .ecdsaWithSHA256)
        var der = DER.Serializer()
        try der.serialize(csr)
        return der.serializedBytes
    }

    public var description: String {
        "operational key pair, public key " + publicKey.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
