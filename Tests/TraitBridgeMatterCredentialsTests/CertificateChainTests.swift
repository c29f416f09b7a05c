import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterCredentials

/// Chain verification over connectedhomeip's test chain (Node01_01 → ICA01 → Root01, and Node01_02 →
/// Root01), and one failure per check, each naming its certificate.
@Suite("Certificate chains")
struct CertificateChainTests {
    static let root = try! OperationalCertificate(tlv: MatterTestCertificates.root01TLV)
    static let ica = try! OperationalCertificate(tlv: MatterTestCertificates.ica01TLV)
    static let node = try! OperationalCertificate(tlv: MatterTestCertificates.node0101TLV)
    static let directNode = try! OperationalCertificate(tlv: MatterTestCertificates.node0102TLV)

    /// 2021-01-01, 2019-01-01 and 2041-01-01, midnight UTC.
    static let in2021 = MatterTime(unixSeconds: 1_609_459_200)!
    static let in2019 = MatterTime(unixSeconds: 1_546_300_800)!
    static let in2041 = MatterTime(unixSeconds: 2_240_524_800)!

    @Test("Node01_01 → ICA01 → Root01 verifies and yields the NOC's ids")
    func verifiesWithICAC() throws {
        let chain = try CertificateChain.verify(
            noc: Self.node, icac: Self.ica, rcac: Self.root, policy: .currentTime(Self.in2021))
        #expect(chain.nodeID == 0xDEDE_DEDE_0001_0001)
        #expect(chain.fabricID == 0xFAB0_0000_0000_001D)
        #expect(chain.caseAuthenticatedTags.isEmpty)
        #expect(chain.rootPublicKey == Self.root.publicKey)
        let compressed = try FabricIdentifiers.compressedFabricID(
            rootPublicKey: Self.root.publicKey, fabricID: chain.fabricID)
        #expect(chain.compressedFabricID == compressed)
    }

    @Test("Node01_02 → Root01 verifies without an ICAC")
    func verifiesWithoutICAC() throws {
        let chain = try CertificateChain.verify(
            noc: Self.directNode, icac: nil, rcac: Self.root, policy: .currentTime(Self.in2021))
        #expect(chain.nodeID == 0xDEDE_DEDE_0001_0002)
    }

    struct Failure: Sendable, CustomStringConvertible {
        var description: String
        var noc: OperationalCertificate
        var icac: OperationalCertificate?
        var rcac: OperationalCertificate
        var policy: ValidityPolicy
        var expected: ChainError
    }

    static var failures: [Failure] {
        let now = ValidityPolicy.currentTime(in2021)
        return [
            Failure(
                description: "a flipped byte in the NOC's signature", noc: flipped(node), icac: ica, rcac: root,
                policy: now, expected: ChainError(.noc, .signature)),
            Failure(
                description: "a flipped byte in the ICAC's signature", noc: node, icac: flipped(ica), rcac: root,
                policy: now, expected: ChainError(.icac, .signature)),
            Failure(
                description: "a flipped byte in the RCAC's signature", noc: node, icac: ica, rcac: flipped(root),
                policy: now, expected: ChainError(.rcac, .signature)),
            Failure(
                description: "the NOC's issuer is not the RCAC (ICAC left out)", noc: node, icac: nil, rcac: root,
                policy: now, expected: ChainError(.noc, .issuerMismatch(issuer: node.issuer, expected: root.subject))),
            Failure(
                description: "the NOC's issuer is not the ICAC given", noc: directNode, icac: ica, rcac: root,
                policy: now, expected: ChainError(.noc, .issuerMismatch(issuer: root.subject, expected: ica.subject))),
            Failure(
                description: "expired under the current time", noc: node, icac: ica, rcac: root,
                policy: .currentTime(in2041), expected: ChainError(.noc, .expired(notAfter: node.notAfter, now: in2041))
            ),
            Failure(
                description: "not yet valid under the current time", noc: node, icac: ica, rcac: root,
                policy: .currentTime(in2019),
                expected: ChainError(.noc, .notYetValid(notBefore: node.notBefore, now: in2019))),
            Failure(
                description: "expired at the last known good time", noc: node, icac: ica, rcac: root,
                policy: .lastKnownGoodTime(in2041),
                expected: ChainError(.noc, .expired(notAfter: node.notAfter, now: in2041))),
            Failure(
                description: "an ICAC given as the NOC", noc: ica, icac: nil, rcac: root, policy: now,
                expected: ChainError(.noc, .wrongCertificateType("needs exactly one NOC id; has ICAC"))),
            Failure(
                description: "a NOC given as the root", noc: directNode, icac: nil, rcac: directNode, policy: now,
                expected: ChainError(.noc, .issuerMismatch(issuer: root.subject, expected: directNode.subject))),
            Failure(
                description: "an ICAC given as the root", noc: node, icac: ica, rcac: ica, policy: now,
                expected: ChainError(.icac, .issuerMismatch(issuer: root.subject, expected: ica.subject))),
        ]
    }

    @Test("each broken chain fails with its certificate and check", arguments: failures)
    func refuses(failure: Failure) {
        #expect(throws: failure.expected) {
            _ = try CertificateChain.verify(
                noc: failure.noc, icac: failure.icac, rcac: failure.rcac, policy: failure.policy)
        }
    }

    @Test("without real time, not-before is not checked; ignoring time checks neither")
    func timePolicies() throws {
        _ = try CertificateChain.verify(
            noc: Self.node, icac: Self.ica, rcac: Self.root, policy: .lastKnownGoodTime(Self.in2019))
        _ = try CertificateChain.verify(noc: Self.node, icac: Self.ica, rcac: Self.root, policy: .ignoringTime)
    }

    @Test("errors say which certificate and which check, and what to do")
    func errorText() {
        let text = ChainError(.icac, .signature).description
        #expect(text.contains("ICAC") && text.contains("signature") && text.contains("commissioner must issue"))
    }

    /// `certificate` with the first byte of its signature's r flipped; the TLV stays well-formed.
    static func flipped(_ certificate: OperationalCertificate) -> OperationalCertificate {
        var tlv = certificate.tlv
        tlv[tlv.count - 65] ^= 0x01
        return try! OperationalCertificate(tlv: tlv)
    }
}
