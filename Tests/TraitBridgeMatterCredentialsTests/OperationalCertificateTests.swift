import Crypto
import SwiftASN1
import Testing
import TraitBridgeMatterCodec
import X509
import TraitBridgeTesting

@testable import TraitBridgeMatterCredentials

/// The TLV form against connectedhomeip's own test certificates: decoding, and the conversion to X.509
/// that must reproduce the SDK's DER byte for byte (the issuers signed those bytes).
@Suite("Operational certificates: TLV and X.509")
struct OperationalCertificateTests {
    struct Pair: Sendable, CustomStringConvertible {
        var description: String
        var tlv: [UInt8]
        var der: [UInt8]
    }

    static let pairs = [
        Pair(description: "Root01", tlv: MatterTestCertificates.root01TLV, der: MatterTestCertificates.root01DER),
        Pair(description: "ICA01", tlv: MatterTestCertificates.ica01TLV, der: MatterTestCertificates.ica01DER),
        Pair(
            description: "Node01_01", tlv: MatterTestCertificates.node0101TLV, der: MatterTestCertificates.node0101DER),
        Pair(
            description: "Node01_02", tlv: MatterTestCertificates.node0102TLV, der: MatterTestCertificates.node0102DER),
    ]

    @Test("TLV → X.509 DER reproduces connectedhomeip's sTestCert_*_DER byte for byte", arguments: pairs)
    func convertsToTheSDKsDER(pair: Pair) throws {
        let certificate = try OperationalCertificate(tlv: pair.tlv)
        #expect(certificate.derEncoded.hex == pair.der.hex)
        #expect(certificate.tlv == pair.tlv)
    }

    @Test("the TLV re-encodes to the same bytes (the SDK writes shortest forms)", arguments: pairs)
    func tlvRoundTrips(pair: Pair) throws {
        #expect(try TLVElement(decoding: pair.tlv).encoded == pair.tlv)
    }

    @Test("swift-certificates parses the converted DER, and its TBS is ours")
    func swiftCertificatesAgrees() throws {
        let noc = try OperationalCertificate(tlv: MatterTestCertificates.node0101TLV)
        let ica = try OperationalCertificate(tlv: MatterTestCertificates.ica01TLV)
        let parsed = try Certificate(derEncoded: noc.derEncoded)
        let issuer = try Certificate(derEncoded: ica.derEncoded)
        #expect(issuer.publicKey.isValidSignature(parsed.signature, for: parsed))
        #expect(Array(parsed.tbsCertificateBytes) == noc.tbsCertificateDER)
        #expect(parsed.serialNumber.bytes == [0x18, 0xe9, 0x69, 0xba, 0x0e, 0x08, 0x9e, 0x23])
    }

    @Test("Node01_01's fields: ids, times, key usages, key ids")
    func decodesNode01_01() throws {
        let noc = try OperationalCertificate(tlv: MatterTestCertificates.node0101TLV)
        #expect(noc.subject.nodeID == 0xDEDE_DEDE_0001_0001)
        #expect(noc.subject.fabricID == 0xFAB0_0000_0000_001D)
        #expect(noc.issuer == DistinguishedName([.icacID(0xCACA_CACA_0000_0003)]))
        #expect(noc.notBefore.description == "2020-10-15T14:23:43Z (656087023)")
        #expect(noc.notAfter.description == "2040-10-15T14:23:42Z (1287239022)")
        #expect(!noc.isCA)
        #expect(noc.keyUsage == .digitalSignature)
        #expect(noc.extendedKeyUsage == [.clientAuth, .serverAuth])
        #expect(noc.subjectKeyID.hex == "6967c912f8a3e689556f899b65d76f53fa65c7b6")
        #expect(noc.authorityKeyID.hex == "440cc69231c4cb5b37942426f81bbe24b7ef345c")
        #expect(noc.description.contains("node-id=DEDEDEDE00010001"))
    }

    @Test("a not-after of 0 becomes 99991231235959Z, a year from 2050 on a GeneralizedTime")
    func timeEncodings() throws {
        let root = try TLVElement(decoding: MatterTestCertificates.root01TLV)
        let never = try OperationalCertificate(tlv: Self.replacing(5, in: root, with: .unsigned(0)).encoded)
        #expect(never.tbsCertificateDER.hex.contains("180f" + Array("99991231235959Z".utf8).hex))
        let late = MatterTime(unixSeconds: 2_556_144_000)!  // 2051-01-01T00:00:00Z
        let in2051 = try OperationalCertificate(
            tlv: Self.replacing(5, in: root, with: .unsigned(UInt64(late.secondsSince2000))).encoded)
        #expect(in2051.tbsCertificateDER.hex.contains("180f" + Array("20510101000000Z".utf8).hex))
    }

    struct Malformed: Sendable, CustomStringConvertible {
        var description: String
        var tlv: [UInt8]
        var field: OperationalCertificate.DecodeError.Field
    }

    static var malformed: [Malformed] {
        let root = (try? TLVElement(decoding: MatterTestCertificates.root01TLV)) ?? TLVElement(value: .null)
        func with(_ tag: UInt8, _ value: TLVValue?) -> [UInt8] { replacing(tag, in: root, with: value).encoded }
        return [
            Malformed(
                description: "cut short", tlv: Array(MatterTestCertificates.root01TLV.dropLast(3)),
                field: .certificate),
            Malformed(description: "sig-algo 2", tlv: with(2, .unsigned(2)), field: .signatureAlgorithm),
            Malformed(
                description: "63-byte signature", tlv: with(11, .octets([UInt8](repeating: 1, count: 63))),
                field: .signature),
            Malformed(description: "serial as a string", tlv: with(1, .string("1")), field: .serialNumber),
            Malformed(description: "no curve id", tlv: with(8, nil), field: .ellipticCurve),
            Malformed(
                description: "a point off the curve", tlv: with(9, .octets([4] + [UInt8](repeating: 1, count: 64))),
                field: .publicKey),
            Malformed(description: "issuer as a structure", tlv: with(3, .structure([])), field: .issuer),
            Malformed(
                description: "node id 0", tlv: with(6, .list([TLVElement(tag: .context(17), value: .unsigned(0))])),
                field: .subject),
            Malformed(
                description: "no subject key id",
                tlv: with(10, .list([TLVElement(tag: .context(5), value: .octets([UInt8](repeating: 0, count: 20)))])),
                field: .subjectKeyID),
            Malformed(
                description: "a member after the signature",
                tlv: TLVElement(
                    value: .structure(
                        (root.value.members ?? []) + [
                            TLVElement(tag: .context(12), value: .null)
                        ])
                ).encoded,
                field: .certificate),
        ]
    }

    @Test("malformed certificates are refused, naming the field", arguments: malformed)
    func refusesMalformed(malformed: Malformed) {
        #expect {
            _ = try OperationalCertificate(tlv: malformed.tlv)
        } throws: { error in
            guard let error = error as? OperationalCertificate.DecodeError else { return false }
            return error.field == malformed.field && error.description.contains(malformed.field.rawValue)
        }
    }

    /// `root` with member `tag` set to `value` (nil: removed), keeping the order.
    static func replacing(_ tag: UInt8, in root: TLVElement, with value: TLVValue?) -> TLVElement {
        let members = (root.value.members ?? []).compactMap { member -> TLVElement? in
            guard member.tag == .context(tag) else { return member }
            return value.map { TLVElement(tag: member.tag, value: $0) }
        }
        return TLVElement(value: .structure(members))
    }
}
