import Crypto
import Foundation

/// The setup code a user types (or scans) to pair: its form, the codes HAP forbids, the QR
/// payload (`X-HM://…`) and the setup hash of the TXT record (`sh`).
public enum SetupCode {
    /// Codes HAP refuses as too easy to guess (HAP §5.6.1 R3).
    static let forbidden: Set<String> = [
        "00000000", "11111111", "22222222", "33333333", "44444444", "55555555", "66666666", "77777777",
        "88888888", "99999999", "12345678", "87654321",
    ]

    /// "XXX-XX-XXX" from eight digits (with or without its dashes); nil when it is not eight
    /// digits or is one of the forbidden codes.
    public static func format(_ text: String) -> String? {
        let digits = text.filter { $0 != "-" }
        guard digits.count == 8, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            !forbidden.contains(digits)
        else { return nil }
        let characters = Array(digits)
        return String(characters[0..<3]) + "-" + String(characters[3..<5]) + "-" + String(characters[5..<8])
    }

    /// The payload of the pairing QR code: version 0, the accessory category, "IP" as the only
    /// transport flag and the setup code in 45 bits, base 36, then the setup id.
    public static func qrPayload(code: String, setupID: String, category: Int) -> String? {
        guard let formatted = format(code), let number = UInt64(formatted.filter { $0 != "-" }),
            (0...255).contains(category)
        else { return nil }
        let ipFlag: UInt64 = 1 << 28
        let value = number | ipFlag | (UInt64(category) << 31)
        let text = String(value, radix: 36, uppercase: true)
        return "X-HM://" + String(repeating: "0", count: max(0, 9 - text.count)) + text + setupID
    }

    /// `sh`: the first four bytes of SHA-512(setup id + pairing id), base64.
    public static func setupHash(setupID: String, pairingID: String) -> String {
        let digest = Array(SHA512.hash(data: Array((setupID + pairingID).utf8)))
        return Data(digest.prefix(4)).base64EncodedString()
    }
}
