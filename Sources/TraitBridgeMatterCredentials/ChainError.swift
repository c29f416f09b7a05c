/// Why an operational certificate chain (NOC → optional ICAC → RCAC) is not acceptable: which
/// certificate and which check, so a log line says which certificate the commissioner must reissue.
/// Carries names, ids and times only, never key material.
public struct ChainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A certificate's place in the chain.
    public enum Role: String, Sendable, CaseIterable {
        case noc = "NOC"
        case icac = "ICAC"
        case rcac = "RCAC"
    }

    /// The check that failed.
    public enum Check: Sendable, Equatable {
        /// The issuer's key did not sign this certificate's TBSCertificate.
        case signature
        /// The issuer name is not the next certificate's subject.
        case issuerMismatch(issuer: DistinguishedName, expected: DistinguishedName)
        /// authority-key-id is not the next certificate's subject-key-id.
        case authorityKeyIDMismatch
        /// The RCAC is not self-issued (issuer = subject, authority key id = subject key id).
        case notSelfIssued
        /// The subject does not name exactly one certificate kind of the right one (rcac-id, icac-id,
        /// node-id), or carries CATs outside a NOC (the SDK's `ChipDN::GetCertType`).
        case wrongCertificateType(String)
        /// basic-cnstr: a CA without cA, or a NOC with it.
        case basicConstraints(String)
        /// A path length constraint the chain exceeds, or an RCAC's above 1.
        case pathLength(UInt8)
        /// key-usage lacks what the role needs (keyCertSign for CAs, digitalSignature for a NOC).
        case keyUsage(missing: KeyUsage)
        /// extended-key-usage lacks serverAuth (the SDK's requirement for a NOC).
        case extendedKeyUsage
        /// A future-extension marked critical, which the SDK refuses.
        case criticalFutureExtension
        /// The NOC has no fabric id.
        case missingFabricID
        /// A CA names another fabric than the NOC.
        case fabricMismatch(nocFabricID: UInt64, found: UInt64)
        /// More than three CATs, or two with one identifier (Matter Core §6.6.2.1.2).
        case caseAuthenticatedTags
        /// not-before is later than the policy's time.
        case notYetValid(notBefore: MatterTime, now: MatterTime)
        /// not-after is earlier than the policy's time.
        case expired(notAfter: MatterTime, now: MatterTime)
    }

    public var certificate: Role
    public var check: Check

    public init(_ certificate: Role, _ check: Check) {
        self.certificate = certificate
        self.check = check
    }

    public var description: String {
        let what: String
        switch check {
        case .signature: what = "its signature does not verify with the issuer's public key"
        case .issuerMismatch(let issuer, let expected): what = "issuer [\(issuer)] is not [\(expected)]"
        case .authorityKeyIDMismatch: what = "authority-key-id is not the issuer's subject-key-id"
        case .notSelfIssued: what = "is not self-issued (issuer = subject, authority = subject key id)"
        case .wrongCertificateType(let detail): what = "subject is not a valid \(certificate.rawValue): \(detail)"
        case .basicConstraints(let detail): what = "basic constraints: \(detail)"
        case .pathLength(let limit): what = "path length constraint \(limit) is exceeded or too large"
        case .keyUsage(let missing): what = "key usage lacks 0x\(String(missing.rawValue, radix: 16))"
        case .extendedKeyUsage: what = "extended key usage lacks serverAuth"
        case .criticalFutureExtension: what = "has a critical extension Matter does not define"
        case .missingFabricID: what = "has no fabric id"
        case .fabricMismatch(let noc, let found):
            what = "names fabric \(hex(found, digits: 16)), the NOC \(hex(noc, digits: 16))"
        case .caseAuthenticatedTags: what = "more than 3 CATs, or one identifier twice"
        case .notYetValid(let notBefore, let now): what = "not valid before \(notBefore); now is \(now)"
        case .expired(let notAfter, let now): what = "expired at \(notAfter); now is \(now)"
        }
        return "Matter certificate chain, \(certificate.rawValue): \(what)"
            + " — the commissioner must issue a valid chain"
    }
}
