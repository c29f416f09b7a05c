/// The 27-bit setup passcode of Matter Core §5.1.1.6 and §5.1.7.1: the secret a user copies from the
/// device's QR code or manual pairing code into a commissioner. It exists as a type so that only a valid
/// passcode can reach a ``SetupPayload`` or a verifier, and so that printing, dumping or logging one
/// never shows its digits.
///
/// Valid passcodes are 00000001...99999998 except the trivial ones §5.1.7.1 lists (00000000, 11111111,
/// ..., 99999999, 12345678, 87654321); connectedhomeip `SetupPayload::IsValidSetupPIN` checks the same.
public struct SetupPasscode: Sendable, Hashable {
    /// The passcodes §5.1.1.6 allows.
    public static let validRange: ClosedRange<UInt32> = 1...99_999_998
    /// §5.1.7.1: passcodes a device shall not use, although they are in range or next to it.
    public static let trivialPasscodes: Set<UInt32> = [
        0, 11_111_111, 22_222_222, 33_333_333, 44_444_444, 55_555_555, 66_666_666, 77_777_777, 88_888_888,
        99_999_999, 12_345_678, 87_654_321,
    ]

    /// The passcode as a number; what PBKDF2 takes (as 4 little-endian bytes) and the codes carry.
    public let value: UInt32

    /// A passcode that is in range and not trivial.
    /// - Throws: ``SetupPayloadError/invalidPasscode``, which does not carry the value.
    public init(_ value: UInt32) throws(SetupPayloadError) {
        guard Self.isValid(value) else { throw .invalidPasscode }
        self.value = value
    }

    /// Whether `value` may be used as a passcode.
    public static func isValid(_ value: UInt32) -> Bool {
        validRange.contains(value) && !trivialPasscodes.contains(value)
    }

    /// A uniformly drawn valid passcode, for a device that generates its own at manufacture or reset.
    /// Pass `SystemRandomNumberGenerator` (a CSPRNG) outside tests.
    public static func random(using generator: inout some RandomNumberGenerator) -> SetupPasscode {
        while true {
            let candidate = UInt32.random(in: validRange, using: &generator)
            if isValid(candidate) { return SetupPasscode(checked: candidate) }
        }
    }

    private init(checked value: UInt32) { self.value = value }
}

extension SetupPasscode: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Never the digits.
    public var description: String { "SetupPasscode(redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
