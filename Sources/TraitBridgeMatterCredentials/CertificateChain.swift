internal import Crypto

/// A verified operational chain — NOC, optional ICAC, RCAC — and what a fabric is built from: the
/// node and fabric ids, the CATs, the root key and the compressed fabric id. The device verifies its
/// own chain at AddNOC and a peer's in CASE Sigma2/Sigma3; both go through `verify`.
///
/// The checks are the SDK's (`FabricTable::VerifyCredentials` over `ChipCertificateSet::ValidateCert`
/// and `ValidateChipRCAC`), each failure a `ChainError` naming the certificate and the check.
public struct CertificateChain: Sendable, Hashable {
    public let noc: OperationalCertificate
    public let icac: OperationalCertificate?
    public let rcac: OperationalCertificate
    /// The NOC's matter-node-id.
    public let nodeID: UInt64
    /// The NOC's matter-fabric-id.
    public let fabricID: UInt64
    /// The NOC's CASE Authenticated Tags (at most 3).
    public let caseAuthenticatedTags: [UInt32]
    /// The fabric's compressed id (Matter Core §4.3.2.2), from the root key and `fabricID`.
    public let compressedFabricID: UInt64

    /// The root public key, 65 bytes.
    public var rootPublicKey: [UInt8] { rcac.publicKey }

    /// Verifies the chain: every signature over its reconstructed TBSCertificate with the issuer's
    /// key (the RCAC's with its own), names and key ids linking each certificate to its issuer,
    /// certificate kinds, basic constraints, key usages, path lengths, fabric ids, and times under
    /// `policy`. Checks run NOC first, so the first failure is the one nearest the leaf.
    public static func verify(
        noc: OperationalCertificate, icac: OperationalCertificate?, rcac: OperationalCertificate,
        policy: ValidityPolicy
    ) throws(ChainError) -> CertificateChain {
        let nodeID = try checkNOC(noc, policy: policy)
        let issuerOfNOC = icac.map { ($0, ChainError.Role.icac) } ?? (rcac, .rcac)
        try checkLink(noc, .noc, issuer: issuerOfNOC.0)
        if let icac {
            try checkCA(icac, .icac, depth: 1, policy: policy)
            try checkLink(icac, .icac, issuer: rcac)
        }
        try checkCA(rcac, .rcac, depth: icac == nil ? 1 : 2, policy: policy)
        try checkRoot(rcac)

        guard let fabricID = noc.subject.fabricID else { throw ChainError(.noc, .missingFabricID) }
        for (certificate, role) in [(icac, ChainError.Role.icac), (rcac, .rcac)] {
            if let found = certificate?.subject.fabricID, found != fabricID {
                throw ChainError(role, .fabricMismatch(nocFabricID: fabricID, found: found))
            }
        }
        // Decoding checked the root key is a 65-byte point, the one thing the derivation needs.
        let compressed = (try? FabricIdentifiers.compressedFabricID(rootPublicKey: rcac.publicKey, fabricID: fabricID))
        return CertificateChain(
            noc: noc, icac: icac, rcac: rcac, nodeID: nodeID, fabricID: fabricID,
            caseAuthenticatedTags: noc.subject.caseAuthenticatedTags, compressedFabricID: compressed ?? 0)
    }

    private static func checkNOC(_ noc: OperationalCertificate, policy: ValidityPolicy) throws(ChainError) -> UInt64 {
        let nodeID = try kind(of: noc, as: .noc)
        guard !noc.isCA else { throw ChainError(.noc, .basicConstraints("a NOC must not be a CA")) }
        try common(noc, .noc, policy: policy)
        if let missing = missingUsage(noc, .digitalSignature) { throw ChainError(.noc, .keyUsage(missing: missing)) }
        guard noc.extendedKeyUsage?.contains(.serverAuth) == true else { throw ChainError(.noc, .extendedKeyUsage) }
        let cats = noc.subject.caseAuthenticatedTags
        guard cats.count <= 3, Set(cats.map { $0 >> 16 }).count == cats.count else {
            throw ChainError(.noc, .caseAuthenticatedTags)
        }
        return nodeID
    }

    /// A CA at `depth` (1 for the NOC's issuer): cA set, keyCertSign, and a path length constraint,
    /// when present, of at least the intermediates below it (`depth - 1`).
    private static func checkCA(
        _ ca: OperationalCertificate, _ role: ChainError.Role, depth: Int, policy: ValidityPolicy
    ) throws(ChainError) {
        _ = try kind(of: ca, as: role)
        guard ca.isCA else { throw ChainError(role, .basicConstraints("a CA must have cA set")) }
        try common(ca, role, policy: policy)
        if let missing = missingUsage(ca, .keyCertSign) { throw ChainError(role, .keyUsage(missing: missing)) }
        if let limit = ca.pathLengthConstraint, depth - 1 > Int(limit) { throw ChainError(role, .pathLength(limit)) }
    }

    /// The RCAC: self-issued, a path length constraint of at most 1, self-signed (`ValidateChipRCAC`).
    private static func checkRoot(_ rcac: OperationalCertificate) throws(ChainError) {
        guard rcac.issuer == rcac.subject, rcac.authorityKeyID == rcac.subjectKeyID else {
            throw ChainError(.rcac, .notSelfIssued)
        }
        if let limit = rcac.pathLengthConstraint, limit > 1 { throw ChainError(.rcac, .pathLength(limit)) }
        guard isSigned(rcac, by: rcac) else { throw ChainError(.rcac, .signature) }
    }

    private static func common(
        _ certificate: OperationalCertificate, _ role: ChainError.Role, policy: ValidityPolicy
    ) throws(ChainError) {
        guard !certificate.hasCriticalFutureExtension else { throw ChainError(role, .criticalFutureExtension) }
        if let violation = policy.violation(of: certificate) { throw ChainError(role, violation) }
    }

    private static func checkLink(
        _ certificate: OperationalCertificate, _ role: ChainError.Role, issuer: OperationalCertificate
    ) throws(ChainError) {
        guard certificate.issuer == issuer.subject else {
            throw ChainError(role, .issuerMismatch(issuer: certificate.issuer, expected: issuer.subject))
        }
        guard certificate.authorityKeyID == issuer.subjectKeyID else { throw ChainError(role, .authorityKeyIDMismatch) }
        guard isSigned(certificate, by: issuer) else { throw ChainError(role, .signature) }
    }

    /// The subject names exactly one kind — `role`'s — and CATs only in a NOC; returns the NOC's node id.
    private static func kind(of certificate: OperationalCertificate, as role: ChainError.Role) throws(ChainError)
        -> UInt64
    {
        let kinds = certificate.subject.attributes.compactMap { attribute -> String? in
            switch attribute {
            case .nodeID: ChainError.Role.noc.rawValue
            case .icacID: ChainError.Role.icac.rawValue
            case .rcacID: ChainError.Role.rcac.rawValue
            case .firmwareSigningID: "firmware-signing"
            default: nil
            }
        }
        guard kinds == [role.rawValue] else {
            let found = kinds.isEmpty ? "none" : kinds.joined(separator: ", ")
            throw ChainError(role, .wrongCertificateType("needs exactly one \(role.rawValue) id; has \(found)"))
        }
        guard role == .noc || certificate.subject.caseAuthenticatedTags.isEmpty else {
            throw ChainError(role, .wrongCertificateType("only a NOC may carry CATs"))
        }
        if role == .noc, certificate.subject.fabricID == nil { throw ChainError(.noc, .missingFabricID) }
        return certificate.subject.nodeID ?? 0
    }

    private static func missingUsage(_ certificate: OperationalCertificate, _ needed: KeyUsage) -> KeyUsage? {
        let present = certificate.keyUsage ?? []
        return present.isSuperset(of: needed) ? nil : needed.subtracting(present)
    }

    /// ECDSA-SHA256 of `certificate`'s TBSCertificate under `issuer`'s public key (swift-crypto).
    static func isSigned(_ certificate: OperationalCertificate, by issuer: OperationalCertificate) -> Bool {
        guard let key = try? P256.Signing.PublicKey(x963Representation: issuer.publicKey),
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: certificate.signature)
        else { return false }
        return key.isValidSignature(signature, for: certificate.tbsCertificateDER)
    }
}
