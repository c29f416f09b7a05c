internal import Crypto
internal import TraitBridgeMatterCodec
internal import TraitBridgeMatterCredentials

/// The device's attestation identity (Matter Core §6.2): DAC, PAI, Certification Declaration and the
/// DAC key, and the two things a commissioner asks of them — AttestationResponse and CSRResponse, each
/// a TLV blob with the DAC's signature over blob ‖ attestation challenge. A commissioner refuses a
/// device whose chain it cannot trust, so without these commissioning stops at AttestationVerification.
/// Printing it shows the certificates' sizes, never the key.
public struct DeviceAttestation: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Why an attestation reply cannot be built; sizes only.
    public enum InputError: Error, Sendable, Hashable, CustomStringConvertible {
        /// AttestationNonce and CSRNonce are 32 bytes.
        case nonce(byteCount: Int)
        /// The attestation challenge is 16 bytes.
        case attestationChallenge(byteCount: Int)
        /// The elements exceed RESP_MAX (900 bytes).
        case tooLong(byteCount: Int)
        /// The DAC key is not a P-256 scalar matching the DAC, or signing failed.
        case key

        public var description: String {
            switch self {
            case .nonce(let count): "nonce of \(count) bytes: attestation and CSR nonces are 32"
            case .attestationChallenge(let count): "attestation challenge of \(count) bytes: it is 16"
            case .tooLong(let count):
                "attestation elements of \(count) bytes exceed 900: shorten the CD or firmware info"
            case .key: "the DAC private key is not a P-256 key for this DAC — provision a matching pair"
            }
        }
    }

    /// The DAC, X.509 DER (CertificateChainRequest type 1).
    public let dacCertificate: [UInt8]
    /// The PAI, X.509 DER (CertificateChainRequest type 2).
    public let paiCertificate: [UInt8]
    /// The CMS-signed Certification Declaration.
    public let certificationDeclaration: [UInt8]
    /// AttestationElements' firmware_information (tag 4), when the device has any.
    public let firmwareInformation: [UInt8]?
    private let dacPrivateKey: [UInt8]

    /// Credentials provisioned for this device; `dacPrivateKey` is the 32-byte P-256 scalar.
    public init(
        dacCertificate: [UInt8], paiCertificate: [UInt8], certificationDeclaration: [UInt8], dacPrivateKey: [UInt8],
        firmwareInformation: [UInt8]? = nil
    ) {
        self.dacCertificate = dacCertificate
        self.paiCertificate = paiCertificate
        self.certificationDeclaration = certificationDeclaration
        self.dacPrivateKey = dacPrivateKey
        self.firmwareInformation = firmwareInformation
    }

    /// connectedhomeip's public test credentials for vendor 0xFFF1, product 0x8001 (development only;
    /// see `TestAttestationCredentials` for the sources). A commissioner must trust the test PAA.
    public static let sdkTestCredentials = DeviceAttestation(
        dacCertificate: TestAttestationCredentials.dacCertificate,
        paiCertificate: TestAttestationCredentials.paiCertificate,
        certificationDeclaration: TestAttestationCredentials.certificationDeclaration,
        dacPrivateKey: TestAttestationCredentials.dacPrivateKey)

    /// The test PAA (Chip-Test-PAA-FFF1) in DER, the anchor of `sdkTestCredentials`: what goes into
    /// python-matter-server's PAA directory as `Chip-Test-PAA-FFF1-Cert.der`.
    public static let sdkTestPAACertificate = TestAttestationCredentials.paaCertificate

    /// CertificateChainRequest: the DAC for type 1, the PAI for type 2, nil for any other type.
    public func certificate(type: UInt8) -> [UInt8]? {
        switch type {
        case 1: dacCertificate
        case 2: paiCertificate
        default: nil
        }
    }

    /// AttestationResponse: AttestationElements `{1 CD, 2 nonce, 3 timestamp 0, 4 firmware info?}` and
    /// the DAC's signature (raw r ‖ s) over elements ‖ challenge.
    public func attestationResponse(
        nonce: [UInt8], attestationChallenge: [UInt8]
    ) throws(InputError) -> (elements: [UInt8], signature: [UInt8]) {
        guard nonce.count == 32 else { throw .nonce(byteCount: nonce.count) }
        let elements = TLVElement(
            value: .contextStructure([
                1: .octets(certificationDeclaration), 2: .octets(nonce), 3: .unsigned(0),
                4: firmwareInformation.map { .octets($0) },
            ])
        ).encoded
        guard elements.count <= NOCSR.maximumLength else { throw .tooLong(byteCount: elements.count) }
        return (elements, try sign(elements, attestationChallenge: attestationChallenge))
    }

    /// CSRResponse: NOCSRElements `{1 csr, 2 nonce}` (built by `NOCSR`) and the DAC's signature over
    /// elements ‖ challenge.
    public func csrResponse(
        csr: [UInt8], nonce: [UInt8], attestationChallenge: [UInt8]
    ) throws(InputError) -> (elements: [UInt8], signature: [UInt8]) {
        let elements: [UInt8]
        do { elements = try NOCSR.nocsrElements(csr: csr, nonce: nonce) } catch {
            switch error {
            case .nonce(let count): throw .nonce(byteCount: count)
            case .tooLong(let count): throw .tooLong(byteCount: count)
            case .attestationChallenge(let count): throw .attestationChallenge(byteCount: count)
            }
        }
        return (elements, try sign(elements, attestationChallenge: attestationChallenge))
    }

    /// ECDSA-SHA256 with the DAC key over `message ‖ attestationChallenge`, raw r ‖ s.
    private func sign(_ message: [UInt8], attestationChallenge: [UInt8]) throws(InputError) -> [UInt8] {
        guard attestationChallenge.count == 16 else {
            throw .attestationChallenge(byteCount: attestationChallenge.count)
        }
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: dacPrivateKey),
            let signature = try? key.signature(for: message + attestationChallenge)
        else { throw .key }
        return Array(signature.rawRepresentation)
    }

    public var description: String {
        "device attestation: DAC \(dacCertificate.count) B, PAI \(paiCertificate.count) B,"
            + " CD \(certificationDeclaration.count) B"
    }

    public var debugDescription: String { description }
}
