public import Foundation
internal import Crypto
internal import SwiftASN1
internal import TraitBridgeMatterCodec
internal import X509

/// A product's device attestation credentials (Matter Core §6.2) as files give them — the DAC and
/// PAI in X.509 DER, the CMS-signed Certification Declaration, the DAC's private key in PEM or DER
/// (PKCS#8 or SEC1) — checked as far as a device can check them before it serves: sizes within the
/// SDK's buffers, the key is the one the DAC certifies, the PAI signs the DAC, and the DAC's vendor
/// and product ids are the ones the CD declares. The PAA and the CD's signer are the commissioner's
/// to trust (the DCL, the CSA's CD signing keys), so neither is checked here.
///
/// Printing it shows the ids and sizes only, never the key.
public struct CheckedAttestation: Sendable, CustomStringConvertible {
    /// Which input a ``Failure`` is about.
    public enum Part: Sendable, Hashable {
        case dac
        case dacKey
        case pai
        case certificationDeclaration
    }

    /// Why the credentials cannot be used: the input and what is wrong with it, never key material.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let part: Part
        public let reason: String
        public var description: String { reason }
    }

    /// The SDK's `kMaxDERCertLength`: a DAC or PAI longer than this does not fit its buffers.
    public static let maximumCertificateLength = 600
    /// The SDK's `kMaxCMSSignedCDMessage`.
    public static let maximumDeclarationLength = 800
    /// A key file (PEM with comments included) longer than this is not a P-256 key.
    public static let maximumKeyLength = 4096

    public let dacCertificate: [UInt8]
    public let paiCertificate: [UInt8]
    public let certificationDeclaration: [UInt8]
    /// The DAC's private key as the raw P-256 scalar (32 bytes).
    public let dacPrivateKey: [UInt8]
    /// The DAC subject's Matter vendor id (1.3.6.1.4.1.37244.2.1).
    public let vendorID: UInt16
    /// The DAC subject's Matter product id (1.3.6.1.4.1.37244.2.2).
    public let productID: UInt16
    /// The product ids the CD declares for `vendorID`.
    public let declaredProductIDs: [UInt16]

    /// Checks `dac`, `pai`, `certificationDeclaration` and `dacKey` (the bytes of a PEM or DER file);
    /// the DAC and PAI must be valid `at` (a commissioner refuses an expired one).
    /// - Throws: ``Failure`` naming the input and the check.
    public init(
        dac: [UInt8], pai: [UInt8], certificationDeclaration: [UInt8], dacKey: [UInt8], at now: Date = Date()
    ) throws(Failure) {
        let dacCertificate = try Self.certificate(dac, .dac)
        let paiCertificate = try Self.certificate(pai, .pai)
        for (certificate, part, name) in [(dacCertificate, Part.dac, "DAC"), (paiCertificate, .pai, "PAI")] {
            if certificate.notValidAfter < now {
                throw Failure(
                    part: part,
                    reason: "the \(name) expired on \(Self.day(certificate.notValidAfter)): controllers refuse it; "
                        + "give one that is valid now")
            }
            if certificate.notValidBefore > now {
                throw Failure(
                    part: part,
                    reason: "the \(name) is valid only from \(Self.day(certificate.notValidBefore)), and this "
                        + "machine's clock says \(Self.day(now)): check the clock, or give one that is valid now")
            }
        }
        let key = try Self.privateKey(dacKey)
        guard let certified = P256.Signing.PublicKey(dacCertificate.publicKey) else {
            throw Failure(part: .dac, reason: "the DAC's public key is not P-256, as Matter requires")
        }
        guard key.publicKey.x963Representation == certified.x963Representation else {
            throw Failure(
                part: .dacKey,
                reason: "this is not the DAC's private key (its public key is not the one the DAC certifies): give "
                    + "the key the DAC was issued for")
        }
        guard dacCertificate.issuer == paiCertificate.subject,
            paiCertificate.publicKey.isValidSignature(dacCertificate.signature, for: dacCertificate)
        else {
            throw Failure(
                part: .pai, reason: "the PAI did not issue the DAC (issuer or signature differ): give the DAC's own PAI"
            )
        }
        guard case .isCertificateAuthority(_)? = try? paiCertificate.extensions.basicConstraints else {
            throw Failure(part: .pai, reason: "the PAI is not a CA certificate (basicConstraints cA)")
        }
        let vendor = try Self.matterID(dacCertificate.subject, 1, .dac)
        let product = try Self.matterID(dacCertificate.subject, 2, .dac)
        guard let vendor, let product else {
            throw Failure(
                part: .dac,
                reason: "the DAC's subject lacks a Matter vendor id or product id (1.3.6.1.4.1.37244.2.1/.2)")
        }
        if let paiVendor = try Self.matterID(paiCertificate.subject, 1, .pai), paiVendor != vendor {
            throw Failure(part: .pai, reason: "the PAI is for vendor \(hex4(paiVendor)), the DAC for \(hex4(vendor))")
        }
        let declared = try Self.declaration(certificationDeclaration)
        guard declared.vendorID == vendor else {
            throw Failure(
                part: .certificationDeclaration,
                reason:
                    "the CD declares vendor \(hex4(declared.vendorID)), the DAC is vendor \(hex4(vendor)): give the CD "
                    + "the CSA issued for this product")
        }
        guard declared.productIDs.contains(product) else {
            throw Failure(
                part: .certificationDeclaration,
                reason: "the CD does not declare the DAC's product \(hex4(product)): give the CD the CSA issued for it")
        }
        self.dacCertificate = dac
        self.paiCertificate = pai
        self.certificationDeclaration = certificationDeclaration
        dacPrivateKey = Array(key.rawRepresentation)
        vendorID = vendor
        productID = product
        declaredProductIDs = declared.productIDs
    }

    public var description: String {
        "attestation: vendor \(hex4(vendorID)), product \(hex4(productID)); DAC \(dacCertificate.count) B, PAI "
            + "\(paiCertificate.count) B, CD \(certificationDeclaration.count) B"
    }

    /// `2026-11-30`, in UTC.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        func two(_ value: Int?) -> String { (value ?? 0) < 10 ? "0\(value ?? 0)" : "\(value ?? 0)" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
    }

    private static func certificate(_ bytes: [UInt8], _ part: Part) throws(Failure) -> Certificate {
        guard bytes.count <= maximumCertificateLength else {
            throw Failure(
                part: part, reason: "\(bytes.count) bytes; a Matter certificate is at most \(maximumCertificateLength)")
        }
        do { return try Certificate(derEncoded: bytes) } catch {
            throw Failure(
                part: part, reason: "not an X.509 certificate in DER (convert PEM with openssl x509 -outform der)")
        }
    }

    /// PEM ("PRIVATE KEY" or "EC PRIVATE KEY") when the bytes are text with a PEM header, DER otherwise.
    private static func privateKey(_ bytes: [UInt8]) throws(Failure) -> P256.Signing.PrivateKey {
        guard bytes.count <= maximumKeyLength else {
            throw Failure(
                part: .dacKey, reason: "\(bytes.count) bytes; a P-256 key file is at most \(maximumKeyLength)")
        }
        let text = String(validating: bytes, as: UTF8.self)
        do {
            if let text, text.contains("-----BEGIN") { return try P256.Signing.PrivateKey(pemRepresentation: text) }
            return try P256.Signing.PrivateKey(derRepresentation: bytes)
        } catch {
            throw Failure(part: .dacKey, reason: "not a P-256 private key in PEM or DER (PKCS#8 or SEC1)")
        }
    }

    /// The Matter vendor (1) or product (2) id attribute of `name`: four hex digits; nil when absent.
    private static func matterID(_ name: X509.DistinguishedName, _ arc: UInt, _ part: Part) throws(Failure) -> UInt16? {
        let oid: ASN1ObjectIdentifier = arc == 1 ? [1, 3, 6, 1, 4, 1, 37244, 2, 1] : [1, 3, 6, 1, 4, 1, 37244, 2, 2]
        for attributes in name {
            for attribute in attributes where attribute.type == oid {
                guard let text = String(attribute.value), text.utf8.count == 4, let id = UInt16(text, radix: 16) else {
                    throw Failure(part: part, reason: "the Matter id attribute \(oid) is not four hex digits")
                }
                return id
            }
        }
        return nil
    }

    /// The CD's vendor_id (tag 1) and product_id_array (tag 2), from the TLV the CMS SignedData holds.
    private static func declaration(_ cms: [UInt8]) throws(Failure) -> (vendorID: UInt16, productIDs: [UInt16]) {
        let part = Part.certificationDeclaration
        guard cms.count <= maximumDeclarationLength else {
            throw Failure(part: part, reason: "\(cms.count) bytes; a CD is at most \(maximumDeclarationLength)")
        }
        guard let content = try? encapsulatedContent(cms) else {
            throw Failure(part: part, reason: "not a CMS SignedData in DER (the CD as the CSA signs it)")
        }
        do {
            let element = try TLVElement(decoding: content)
            let products = try element.value.array(2).map { value -> UInt16? in
                if case .unsigned(let id) = value { UInt16(exactly: id) } else { nil }
            }
            let vendor = try element.value.uint(1, as: UInt16.self)
            guard !products.isEmpty, products.allSatisfy({ $0 != nil }) else {
                throw Failure(part: part, reason: "the CD's product_id_array is empty or not 16-bit ids")
            }
            return (vendor, products.compactMap { $0 })
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                part: part, reason: "the CD's content is not a Matter certification declaration (TLV): \(error)")
        }
    }

    /// ContentInfo { signedData, [0] SignedData { version, digests, EncapsulatedContentInfo { type,
    /// [0] OCTET STRING } … } }: the OCTET STRING's bytes.
    private static func encapsulatedContent(_ cms: [UInt8]) throws -> [UInt8] {
        func children(_ node: ASN1Node) -> [ASN1Node] {
            if case .constructed(let nodes) = node.content { Array(nodes) } else { [] }
        }
        let root = try DER.parse(cms)
        let info = children(root)
        guard root.identifier == .sequence, info.count == 2,
            try ASN1ObjectIdentifier(derEncoded: info[0]) == [1, 2, 840, 113_549, 1, 7, 2],
            let signed = children(info[1]).first, signed.identifier == .sequence
        else { throw ASN1Error.invalidASN1Object(reason: "not a CMS SignedData") }
        let fields = children(signed)
        guard fields.count >= 3 else { throw ASN1Error.invalidASN1Object(reason: "SignedData too short") }
        let encapsulated = children(fields[2])
        guard encapsulated.count == 2, let octets = children(encapsulated[1]).first,
            octets.identifier == .octetString, case .primitive(let bytes) = octets.content
        else { throw ASN1Error.invalidASN1Object(reason: "no encapsulated content") }
        return Array(bytes)
    }
}

/// "0xFFF1": a vendor or product id as Matter documents print them.
private func hex4(_ value: UInt16) -> String { "0x" + hex(UInt64(value), digits: 4) }
