internal import TraitBridgeMatterCodec

/// The NOCSRElements of a CSRResponse (Matter Core §11.18.5.6): the CSR and the commissioner's
/// CSRNonce in TLV, and the bytes the device's DAC signs for the attestation signature,
/// NOCSRElements ‖ AttestationChallenge. The signing itself belongs to attestation (a later step).
public enum NOCSR {
    /// Why the elements cannot be built; sizes only.
    public enum InputError: Error, Sendable, Equatable, CustomStringConvertible {
        /// CSRNonce must be 32 bytes (the CSRRequest's, echoed).
        case nonce(byteCount: Int)
        /// The encoded elements exceed RESP_MAX (900 bytes, §11.18.5.6).
        case tooLong(byteCount: Int)
        /// The attestation challenge must be 16 bytes (from the session keys).
        case attestationChallenge(byteCount: Int)

        public var description: String {
            switch self {
            case .nonce(let count): "CSRNonce of \(count) bytes: echo the CSRRequest's 32"
            case .tooLong(let count): "NOCSRElements of \(count) bytes exceed RESP_MAX (900): shorten vendor data"
            case .attestationChallenge(let count): "attestation challenge of \(count) bytes: it is 16"
            }
        }
    }

    /// RESP_MAX, the largest NOCSRElements (and AttestationElements) allowed.
    public static let maximumLength = 900

    /// `{1: csr, 2: CSRNonce, 3–5: vendor reserved (optional)}` as an anonymous TLV structure.
    public static func nocsrElements(
        csr: [UInt8], nonce: [UInt8], vendorReserved: [[UInt8]] = []
    ) throws(InputError) -> [UInt8] {
        guard nonce.count == 32 else { throw .nonce(byteCount: nonce.count) }
        var members = [
            TLVElement(tag: .context(1), value: .octets(csr)), TLVElement(tag: .context(2), value: .octets(nonce)),
        ]
        for (index, data) in vendorReserved.prefix(3).enumerated() {
            members.append(TLVElement(tag: .context(UInt8(3 + index)), value: .octets(data)))
        }
        let bytes = TLVElement(value: .structure(members)).encoded
        guard bytes.count <= maximumLength else { throw .tooLong(byteCount: bytes.count) }
        return bytes
    }

    /// NOCSRElements ‖ AttestationChallenge: what the DAC signs into the CSRResponse's
    /// AttestationSignature.
    public static func attestationTBS(elements: [UInt8], attestationChallenge: [UInt8]) throws(InputError) -> [UInt8] {
        guard attestationChallenge.count == 16 else {
            throw .attestationChallenge(byteCount: attestationChallenge.count)
        }
        return elements + attestationChallenge
    }
}
