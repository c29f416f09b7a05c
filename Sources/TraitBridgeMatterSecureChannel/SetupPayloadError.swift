/// Why an onboarding payload could not be made or a QR code could not be read. No case carries the
/// passcode or the code's text, so the descriptions are safe to log.
public enum SetupPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The passcode is outside 00000001...99999998 or a trivial one §5.1.7.1 forbids.
    case invalidPasscode
    /// A discriminator above 12 bits.
    case discriminatorOutOfRange(UInt16)
    /// The text does not start with `MT:`.
    case missingPrefix
    /// The text is longer than any QR code this reads; nothing of it was decoded.
    case tooLong(byteCount: Int, limit: Int)
    /// The text joins several payloads with `*` (a multi-device QR code).
    case multiplePayloads
    /// A character outside the base-38 alphabet (`0-9`, `A-Z`, `-`, `.`), at `offset` after `MT:`.
    case invalidCharacter(Character, offset: Int)
    /// A base-38 length that no whole number of bytes gives (5 characters per 3 bytes, 4 per 2, 2 per 1).
    case invalidLength(Int)
    /// A base-38 chunk, at `offset` after `MT:`, whose value does not fit the bytes it stands for.
    case chunkOutOfRange(offset: Int)
    /// Fewer than the 11 bytes of the fixed fields.
    case truncated(byteCount: Int)
    /// TLV data (serial number, vendor data) after the 11 fixed bytes, which this reader does not take.
    case optionalDataUnsupported(byteCount: Int)
    /// A payload version other than 0.
    case unsupportedVersion(UInt8)
    /// Commissioning flow 3, which the spec reserves.
    case reservedCommissioningFlow
    /// The 4 padding bits after the passcode are not zero.
    case nonZeroPadding

    public var description: String {
        switch self {
        case .invalidPasscode:
            "the setup passcode is outside 00000001...99999998 or a trivial one Matter forbids (§5.1.7.1: "
                + "00000000, 11111111, ..., 99999999, 12345678, 87654321) — choose another, e.g. SetupPasscode.random"
        case .discriminatorOutOfRange(let value):
            "discriminator \(value) does not fit 12 bits — use 0...4095"
        case .missingPrefix:
            "not a Matter QR code: it must start with \"MT:\" — scan it again or check it is the onboarding code"
        case .tooLong(let byteCount, let limit):
            "QR code text of \(byteCount) bytes is longer than the \(limit) this reads — it is not an onboarding code"
        case .multiplePayloads:
            "the QR code joins several payloads with '*' — read one device's code at a time"
        case .invalidCharacter(let character, let offset):
            "character \(character.debugDescription) at \(offset) after \"MT:\" is not base-38 (0-9, A-Z, '-', '.')"
                + " — the code was mistyped or mis-scanned"
        case .invalidLength(let count):
            "\(count) base-38 characters cannot be whole bytes (5 per 3 bytes, 4 per 2, 2 per 1) — a character was"
                + " lost or added"
        case .chunkOutOfRange(let offset):
            "the base-38 chunk at \(offset) after \"MT:\" is larger than its bytes can hold — the code is corrupt"
        case .truncated(let byteCount):
            "the QR code holds \(byteCount) bytes, fewer than the 11 of an onboarding payload — it was cut short"
        case .optionalDataUnsupported(let byteCount):
            "the QR code carries \(byteCount) bytes of optional TLV data after the 11-byte payload — this reader "
                + "takes only the fixed fields; use the manual pairing code or a code without extensions"
        case .unsupportedVersion(let version):
            "payload version \(version): only version 0 is defined — this code is from a newer specification"
        case .reservedCommissioningFlow:
            "commissioning flow 3 is reserved — the code is corrupt or from a newer specification"
        case .nonZeroPadding:
            "the 4 padding bits after the passcode are not zero — the code is corrupt"
        }
    }
}
