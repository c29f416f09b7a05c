/// The manual pairing code (Core §5.1.4.1): digits a user types when the QR code cannot be scanned.
/// It carries the passcode and only the short (4-bit) discriminator; vendor and product only when the
/// commissioning flow is custom (connectedhomeip `ManualSetupPayloadGenerator`: long form exactly when
/// the flow is custom, whatever vendor and product are).
extension SetupPayload {
    /// 11 digits (21 when the flow is custom), the last a Verhoeff check digit, e.g. `34970112332`.
    /// Display groupings vary between ecosystems, so none is applied.
    public var manualPairingCode: String {
        let vendorAndProduct = commissioningFlow == .custom ? (vendorID, productID) : nil
        return Self.manualCode(
            discriminator: discriminator, passcode: passcode.value, vendorAndProduct: vendorAndProduct)
    }

    /// The code for raw fields, unchecked (the SDK's vectors use passcodes no device may use):
    /// - digit 1: `vendorAndProduct present << 2 | discriminator >> 10` (the short discriminator's top 2 bits),
    /// - digits 2–6: `(discriminator >> 8 & 3) << 14 | passcode & 0x3FFF`, zero-padded to 5,
    /// - digits 7–10: `passcode >> 14`, zero-padded to 4,
    /// - long form only: vendor ID then product ID, 5 digits each,
    /// - then the Verhoeff check digit of all the digits before it.
    static func manualCode(discriminator: UInt16, passcode: UInt32, vendorAndProduct: (UInt16, UInt16)?) -> String {
        let first = (vendorAndProduct == nil ? 0 : 4) | UInt32(discriminator >> 10)
        var digits = String(first)
        digits += padded(UInt32(discriminator >> 8 & 3) << 14 | passcode & 0x3FFF, to: 5)
        digits += padded(passcode >> 14, to: 4)
        if let (vendorID, productID) = vendorAndProduct {
            digits += padded(UInt32(vendorID), to: 5) + padded(UInt32(productID), to: 5)
        }
        return digits + String(Verhoeff.checkDigit(of: digits.utf8.map { $0 - UInt8(ascii: "0") }))
    }

    private static func padded(_ value: UInt32, to width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}

/// Verhoeff's check digit (Verhoeff 1969; the dihedral group D5 tables as connectedhomeip
/// `lib/support/verhoeff/Verhoeff10.cpp` uses them): it catches every single-digit error and every
/// swap of adjacent digits in a typed code.
enum Verhoeff {
    /// The D5 multiplication table: `multiplication[a][b]` = a·b.
    static let multiplication: [[UInt8]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 0, 6, 7, 8, 9, 5], [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
        [3, 4, 0, 1, 2, 8, 9, 5, 6, 7], [4, 0, 1, 2, 3, 9, 5, 6, 7, 8], [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
        [6, 5, 9, 8, 7, 1, 0, 4, 3, 2], [7, 6, 5, 9, 8, 2, 1, 0, 4, 3], [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
        [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    ]
    /// `permutation[i]` = the permutation (1 5 8 9 4 2 7 0)(3 6) applied i times.
    static let permutation: [[UInt8]] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 5, 7, 6, 2, 8, 3, 0, 9, 4], [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
        [8, 9, 1, 6, 0, 4, 3, 5, 2, 7], [9, 4, 5, 3, 1, 2, 6, 8, 7, 0], [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
        [2, 7, 9, 3, 8, 0, 6, 4, 1, 5], [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
    ]
    /// The inverse of each element of D5.
    static let inverse: [UInt8] = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]

    /// The digit to append to `digits` (each 0...9): the check digit takes position 0, so the last
    /// given digit is at position 1.
    static func checkDigit(of digits: [UInt8]) -> UInt8 {
        var check: UInt8 = 0
        for (position, digit) in digits.reversed().enumerated() {
            check = multiplication[Int(check)][Int(permutation[(position + 1) % 8][Int(digit)])]
        }
        return inverse[Int(check)]
    }

    /// Whether the last of `digits` is the check digit of the others.
    static func isValid(_ digits: [UInt8]) -> Bool {
        guard let last = digits.last else { return false }
        return checkDigit(of: Array(digits.dropLast())) == last
    }
}
