internal import Crypto
internal import SwiftASN1
internal import TraitBridgeMatterCodec

/// Strict decoding of the TLV form, field by field, in the order of Matter Core §6.5.2 (and of the
/// SDK's `DecodeConvertTBSCert`, which reads each member with `reader.Next(type, tag)`).
extension OperationalCertificate {
    static func decodeFields(_ tlv: [UInt8]) throws(DecodeError) -> CertificateFields {
        let element: TLVElement
        do { element = try TLVElement(decoding: tlv) } catch { throw DecodeError(.certificate, .notTLV(error)) }
        guard element.tag == .anonymous, case .structure(let members) = element.value else {
            throw DecodeError(.certificate, .wrongType(expected: .structure, found: element.value.type))
        }
        let order: [DecodeError.Field] = [
            .serialNumber, .signatureAlgorithm, .issuer, .notBefore, .notAfter, .subject, .publicKeyAlgorithm,
            .ellipticCurve, .publicKey, .extensions, .signature,
        ]
        for (index, field) in order.enumerated() {
            let tag = TLVTag.context(UInt8(index + 1))
            guard index < members.count, members[index].tag == tag else {
                let isElsewhere = members.contains { $0.tag == tag }
                throw DecodeError(field, isElsewhere ? .unexpectedMember("out of the spec's order") : .missing)
            }
        }
        if members.count > order.count {
            throw DecodeError(.certificate, .unexpectedMember("tag \(members[order.count].tag) after signature"))
        }
        let values = members.map(\.value)
        let serial = try octets(values[0], .serialNumber, allowed: 1...20)
        try expectOne(values[1], .signatureAlgorithm, meaning: "ecdsa-with-SHA256 (1)")
        let notBefore = MatterTime(secondsSince2000: try uint32(values[3], .notBefore))
        let notAfter = MatterTime(secondsSince2000: try uint32(values[4], .notAfter))
        try expectOne(values[6], .publicKeyAlgorithm, meaning: "EC public key (1)")
        try expectOne(values[7], .ellipticCurve, meaning: "prime256v1 (1)")
        let publicKey = try octets(values[8], .publicKey, allowed: 65...65)
        guard (try? P256.Signing.PublicKey(x963Representation: publicKey)) != nil else {
            throw DecodeError(.publicKey, .invalidValue("not an uncompressed P-256 point on the curve"))
        }
        return CertificateFields(
            serialNumber: serial, issuer: try decodeName(values[2], .issuer), notBefore: notBefore,
            notAfter: notAfter, subject: try decodeName(values[5], .subject), publicKey: publicKey,
            extensions: try decodeExtensions(values[9]), signature: try octets(values[10], .signature, allowed: 64...64)
        )
    }

    // MARK: Names

    private static func decodeName(
        _ value: TLVValue, _ field: DecodeError.Field
    ) throws(DecodeError) -> DistinguishedName {
        guard case .list(let members) = value else {
            throw DecodeError(field, .wrongType(expected: .list, found: value.type))
        }
        // The SDK holds at most CHIP_CONFIG_CERT_MAX_RDN_ATTRIBUTES (5) and refuses an empty name.
        guard (1...5).contains(members.count) else {
            throw DecodeError(field, .wrongLength(expected: "1 to 5 attributes", found: members.count))
        }
        var attributes: [DistinguishedName.Attribute] = []
        for member in members {
            guard case .context(let tag) = member.tag else {
                throw DecodeError(field, .unexpectedMember("attribute with non-context tag \(member.tag)"))
            }
            attributes.append(try decodeAttribute(tag: tag, member.value, field))
        }
        return DistinguishedName(attributes)
    }

    private static func decodeAttribute(
        tag: UInt8, _ value: TLVValue, _ field: DecodeError.Field
    ) throws(DecodeError) -> DistinguishedName.Attribute {
        let type = tag & 0x7F
        let isPrintable = tag & 0x80 != 0
        if let standard = StandardAttribute(rawValue: type) {
            guard case .string(let text) = value else {
                throw DecodeError(field, .wrongType(expected: .utf8String, found: value.type))
            }
            return .text(standard, text, isPrintableString: isPrintable)
        }
        guard (17...22).contains(type), !isPrintable else {
            throw DecodeError(field, .unexpectedMember("attribute tag \(tag) is no Matter DN attribute"))
        }
        guard case .unsigned(let number) = value else {
            throw DecodeError(field, .wrongType(expected: .unsignedInteger, found: value.type))
        }
        switch type {
        case 17:
            // Operational node ids are 0x0000_0000_0000_0001...0xFFFF_FFEF_FFFF_FFFF (Matter Core §2.5.5.1).
            guard (1...0xFFFF_FFEF_FFFF_FFFF).contains(number) else {
                throw DecodeError(field, .invalidValue("node id \(hex(number, digits: 16)) is not operational"))
            }
            return .nodeID(number)
        case 18: return .firmwareSigningID(number)
        case 19: return .icacID(number)
        case 20: return .rcacID(number)
        case 21:
            guard number != 0 else { throw DecodeError(field, .invalidValue("fabric id 0 is reserved")) }
            return .fabricID(number)
        default:
            // A CAT is 32 bits whose low 16 (the version) are never 0 (Matter Core §6.6.2.1.2).
            guard let tag = UInt32(exactly: number), tag & 0xFFFF != 0 else {
                throw DecodeError(field, .invalidValue("CASE Authenticated Tag \(number) is not valid"))
            }
            return .caseAuthenticatedTag(tag)
        }
    }

    // MARK: Extensions

    private static func decodeExtensions(_ value: TLVValue) throws(DecodeError) -> [CertificateExtension] {
        guard case .list(let members) = value else {
            throw DecodeError(.extensions, .wrongType(expected: .list, found: value.type))
        }
        var extensions: [CertificateExtension] = []
        var seen: Set<UInt8> = []
        for member in members {
            guard case .context(let tag) = member.tag, (1...6).contains(tag) else {
                throw DecodeError(.extensions, .unexpectedMember("tag \(member.tag)"))
            }
            // X.509 allows each extension once (RFC 5280 §4.2); future-extension may repeat.
            guard tag == 6 || seen.insert(tag).inserted else {
                throw DecodeError(.extensions, .unexpectedMember("extension \(tag) appears twice"))
            }
            extensions.append(try decodeExtension(tag: tag, member.value))
        }
        guard seen.contains(4) else { throw DecodeError(.subjectKeyID, .missing) }
        guard seen.contains(5) else { throw DecodeError(.authorityKeyID, .missing) }
        return extensions
    }

    private static func decodeExtension(tag: UInt8, _ value: TLVValue) throws(DecodeError) -> CertificateExtension {
        switch tag {
        case 1:
            guard case .structure(let members) = value else {
                throw DecodeError(.basicConstraints, .wrongType(expected: .structure, found: value.type))
            }
            guard members.first?.tag == .context(1), case .bool(let isCA)? = members.first?.value else {
                throw DecodeError(.basicConstraints, .invalidValue("is-ca (1) must come first, a boolean"))
            }
            guard members.count <= 2, members.count == 1 || members[1].tag == .context(2) else {
                throw DecodeError(.basicConstraints, .unexpectedMember("only is-ca (1) and path-len (2) belong"))
            }
            let length = members.count == 2 ? UInt8(try uint32(members[1].value, .basicConstraints, max: 255)) : nil
            return .basicConstraints(isCA: isCA, pathLengthConstraint: length)
        case 2:
            let bits = UInt16(try uint32(value, .keyUsage, max: 0xFFFF))
            guard KeyUsage.all.isSuperset(of: KeyUsage(rawValue: bits)) else {
                throw DecodeError(.keyUsage, .invalidValue("bits 0x\(String(bits, radix: 16)) outside RFC 5280's"))
            }
            return .keyUsage(KeyUsage(rawValue: bits))
        case 3:
            guard case .array(let elements) = value, !elements.isEmpty else {
                throw DecodeError(.extendedKeyUsage, .wrongType(expected: .array, found: value.type))
            }
            var purposes: [KeyPurpose] = []
            for element in elements {
                let number = try uint32(element, .extendedKeyUsage, max: 255)
                guard let purpose = KeyPurpose(rawValue: UInt8(number)) else {
                    throw DecodeError(.extendedKeyUsage, .invalidValue("key purpose \(number) is not 1...6"))
                }
                purposes.append(purpose)
            }
            return .extendedKeyUsage(purposes)
        case 4: return .subjectKeyID(try octets(value, .subjectKeyID, allowed: 20...20))
        case 5: return .authorityKeyID(try octets(value, .authorityKeyID, allowed: 20...20))
        default: return try decodeFutureExtension(value)
        }
    }

    /// An X.509 `Extension` SEQUENCE {extnID, critical DEFAULT FALSE, extnValue} in DER, whose OID is
    /// none of the five the TLV form has its own tags for (the SDK's `DecodeConvertFutureExtension`).
    private static func decodeFutureExtension(_ value: TLVValue) throws(DecodeError) -> CertificateExtension {
        let der = try octets(value, .futureExtension, allowed: 1...400)
        do {
            let node = try DER.parse(der)
            guard node.identifier == .sequence, case .constructed(let children) = node.content else {
                throw DecodeError(.futureExtension, .invalidValue("not a DER SEQUENCE"))
            }
            var iterator = children.makeIterator()
            guard let first = iterator.next() else { throw DecodeError(.futureExtension, .missing) }
            let oid = try ASN1ObjectIdentifier(derEncoded: first)
            let known: [ASN1ObjectIdentifier] = [
                [2, 5, 29, 19], [2, 5, 29, 15], [2, 5, 29, 37], [2, 5, 29, 14], [2, 5, 29, 35],
            ]
            guard !known.contains(oid) else {
                throw DecodeError(.futureExtension, .invalidValue("\(oid) has its own TLV tag"))
            }
            var next = iterator.next()
            var isCritical = false
            if let node = next, node.identifier == .boolean {
                isCritical = try Bool(derEncoded: node)
                next = iterator.next()
            }
            guard let content = next, content.identifier == .octetString, iterator.next() == nil else {
                throw DecodeError(.futureExtension, .invalidValue("extnValue OCTET STRING missing or followed"))
            }
            return .future(der: der, isCritical: isCritical)
        } catch let error as DecodeError {
            throw error
        } catch {
            throw DecodeError(.futureExtension, .invalidValue("not a DER X.509 Extension"))
        }
    }

    // MARK: Typed fields

    private static func octets(
        _ value: TLVValue, _ field: DecodeError.Field, allowed: ClosedRange<Int>
    ) throws(DecodeError) -> [UInt8] {
        guard case .octets(let bytes) = value else {
            throw DecodeError(field, .wrongType(expected: .octetString, found: value.type))
        }
        guard allowed.contains(bytes.count) else {
            let expected =
                allowed.count == 1 ? "\(allowed.lowerBound)" : "\(allowed.lowerBound) to \(allowed.upperBound)"
            throw DecodeError(field, .wrongLength(expected: expected, found: bytes.count))
        }
        return bytes
    }

    private static func uint32(
        _ value: TLVValue, _ field: DecodeError.Field, max: UInt32 = .max
    ) throws(DecodeError) -> UInt32 {
        guard case .unsigned(let number) = value else {
            throw DecodeError(field, .wrongType(expected: .unsignedInteger, found: value.type))
        }
        guard number <= UInt64(max) else { throw DecodeError(field, .invalidValue("\(number) exceeds \(max)")) }
        return UInt32(number)
    }

    private static func expectOne(
        _ value: TLVValue, _ field: DecodeError.Field, meaning: String
    ) throws(DecodeError) {
        guard try uint32(value, field) == 1 else {
            throw DecodeError(field, .invalidValue("only \(meaning) is defined; found \(value)"))
        }
    }
}
