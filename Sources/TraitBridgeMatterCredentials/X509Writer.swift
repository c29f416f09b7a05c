internal import Crypto
internal import SwiftASN1

/// The conversion of Matter Core §6.5's "Conversion to X.509" and the SDK's `CHIPCertToX509.cpp`,
/// written with swift-asn1's DER serializer. Every choice below is the SDK's, and the signatures of
/// the SDK's test certificates check only because of them:
/// - version v3; the serial number's INTEGER content copied as it is;
/// - names: one RDN per attribute, in TLV order; Matter ids as UTF8String upper-case hex, 16 digits
///   (8 for a CAT); other attributes UTF8String, PrintableString when the tag has 0x80, and
///   domain-component always IA5String;
/// - times: UTCTime before 2050, GeneralizedTime from 2050, and 0 as 99991231235959Z;
/// - extensions in TLV order; basic constraints, key usage and extended key usage critical; cA
///   written only when true (DER leaves out a DEFAULT); a future-extension copied verbatim.
enum X509Writer {
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    static let prime256v1: ASN1ObjectIdentifier = [1, 2, 840, 10045, 3, 1, 7]

    static func tbsCertificate(_ fields: CertificateFields) throws(OperationalCertificate.DecodeError) -> [UInt8] {
        var der = DER.Serializer()
        do {
            try der.appendConstructedNode(identifier: .sequence) { tbs in
                try tbs.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { try $0.serialize(2) }
                tbs.appendPrimitiveNode(identifier: .integer) { $0.append(contentsOf: fields.serialNumber) }
                try tbs.appendConstructedNode(identifier: .sequence) { try $0.serialize(ecdsaWithSHA256) }
                try name(fields.issuer, into: &tbs)
                try tbs.appendConstructedNode(identifier: .sequence) { validity in
                    try time(fields.notBefore, into: &validity)
                    try time(fields.notAfter, into: &validity)
                }
                try name(fields.subject, into: &tbs)
                try tbs.appendConstructedNode(identifier: .sequence) { info in
                    try info.appendConstructedNode(identifier: .sequence) { algorithm in
                        try algorithm.serialize(ecPublicKey)
                        try algorithm.serialize(prime256v1)
                    }
                    try info.serialize(ASN1BitString(bytes: fields.publicKey[...]))
                }
                try tbs.serialize(explicitlyTaggedWithTagNumber: 3, tagClass: .contextSpecific) { tagged in
                    try tagged.appendConstructedNode(identifier: .sequence) { list in
                        for item in fields.extensions { try self.extension(item, into: &list) }
                    }
                }
            }
        } catch {
            throw OperationalCertificate.DecodeError(
                .certificate, .invalidValue("cannot be written as X.509: \(error)"))
        }
        return der.serializedBytes
    }

    /// Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }.
    static func certificate(tbs: [UInt8], rawSignature: [UInt8]) throws -> [UInt8] {
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: rawSignature).derRepresentation
        var der = DER.Serializer()
        try der.appendConstructedNode(identifier: .sequence) { certificate in
            certificate.serializeRawBytes(tbs)
            try certificate.appendConstructedNode(identifier: .sequence) { try $0.serialize(ecdsaWithSHA256) }
            try certificate.serialize(ASN1BitString(bytes: ArraySlice(signature)))
        }
        return der.serializedBytes
    }

    private static func name(_ name: DistinguishedName, into der: inout DER.Serializer) throws {
        try der.appendConstructedNode(identifier: .sequence) { sequence in
            for attribute in name.attributes {
                let (arcs, tag, value) = encoding(of: attribute)
                try sequence.appendConstructedNode(identifier: .set) { set in
                    try set.appendConstructedNode(identifier: .sequence) { pair in
                        try pair.serialize(ASN1ObjectIdentifier(elements: arcs))
                        pair.appendPrimitiveNode(identifier: tag) { $0.append(contentsOf: value.utf8) }
                    }
                }
            }
        }
    }

    private static func encoding(of attribute: DistinguishedName.Attribute) -> ([UInt], ASN1Identifier, String) {
        let matter: [UInt] = [1, 3, 6, 1, 4, 1, 37244, 1]
        switch attribute {
        case .nodeID(let v): return (matter + [1], .utf8String, hex(v, digits: 16))
        case .firmwareSigningID(let v): return (matter + [2], .utf8String, hex(v, digits: 16))
        case .icacID(let v): return (matter + [3], .utf8String, hex(v, digits: 16))
        case .rcacID(let v): return (matter + [4], .utf8String, hex(v, digits: 16))
        case .fabricID(let v): return (matter + [5], .utf8String, hex(v, digits: 16))
        case .caseAuthenticatedTag(let v): return (matter + [6], .utf8String, hex(UInt64(v), digits: 8))
        case .text(let type, let value, let isPrintable):
            let tag: ASN1Identifier =
                type == .domainComponent ? .ia5String : isPrintable ? .printableString : .utf8String
            return (type.oid, tag, value)
        }
    }

    private static func time(_ time: MatterTime, into der: inout DER.Serializer) throws {
        if time.isNoWellDefinedExpiration {
            try der.serialize(
                GeneralizedTime(
                    year: 9999, month: 12, day: 31, hours: 23, minutes: 59, seconds: 59, fractionalSeconds: 0))
            return
        }
        let c = time.utc
        if c.year < 2050 {
            try der.serialize(
                UTCTime(year: c.year, month: c.month, day: c.day, hours: c.hour, minutes: c.minute, seconds: c.second))
        } else {
            try der.serialize(
                GeneralizedTime(
                    year: c.year, month: c.month, day: c.day, hours: c.hour, minutes: c.minute, seconds: c.second,
                    fractionalSeconds: 0))
        }
    }

    private static func `extension`(_ item: CertificateExtension, into der: inout DER.Serializer) throws {
        var value = DER.Serializer()
        let oid: ASN1ObjectIdentifier
        var isCritical = false
        switch item {
        case .basicConstraints(let isCA, let length):
            (oid, isCritical) = ([2, 5, 29, 19], true)
            try value.appendConstructedNode(identifier: .sequence) { constraints in
                if isCA { try constraints.serialize(true) }
                if let length { try constraints.serialize(Int(length)) }
            }
        case .keyUsage(let usage):
            (oid, isCritical) = ([2, 5, 29, 15], true)
            let bits = usage.bitString
            try value.serialize(ASN1BitString(bytes: bits.bytes[...], paddingBits: bits.paddingBits))
        case .extendedKeyUsage(let purposes):
            (oid, isCritical) = ([2, 5, 29, 37], true)
            try value.appendConstructedNode(identifier: .sequence) { list in
                for purpose in purposes { try list.serialize(ASN1ObjectIdentifier(elements: purpose.oid)) }
            }
        case .subjectKeyID(let id):
            oid = [2, 5, 29, 14]
            try value.serialize(ASN1OctetString(contentBytes: id[...]))
        case .authorityKeyID(let id):
            oid = [2, 5, 29, 35]
            value.appendConstructedNode(identifier: .sequence) { identifier in
                identifier.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific))
                {
                    $0.append(contentsOf: id)
                }
            }
        case .future(let verbatim, _):
            der.serializeRawBytes(verbatim)
            return
        }
        try der.appendConstructedNode(identifier: .sequence) { ext in
            try ext.serialize(oid)
            if isCritical { try ext.serialize(true) }
            ext.appendPrimitiveNode(identifier: .octetString) { $0.append(contentsOf: value.serializedBytes) }
        }
    }
}
