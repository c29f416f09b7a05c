import Testing

@testable import TraitBridgeHomeKit

@Suite("Setup code and QR payload")
struct SetupCodeTests {
    @Test("eight digits in XXX-XX-XXX; HAP's trivial codes and anything else refused")
    func format() {
        #expect(SetupCode.format("03145154") == "031-45-154")
        #expect(SetupCode.format("031-45-154") == "031-45-154")
        for bad in ["123-45-678", "111-11-111", "0314515", "031-45-15a", "٠٣١٤٥١٥٤"] {
            #expect(SetupCode.format(bad) == nil)
        }
    }

    @Test("the QR payload holds version 0, the category, the IP flag and the code in base 36, then the setup id")
    func qrPayload() throws {
        let payload = try #require(SetupCode.qrPayload(code: "589-87-106", setupID: "07TM", category: 2))
        #expect(payload.hasPrefix("X-HM://") && payload.hasSuffix("07TM") && payload.count == 7 + 9 + 4)
        let value = try #require(UInt64(payload.dropFirst(7).prefix(9), radix: 36))
        #expect(value & (1 << 27 - 1) == 58_987_106, "the code in the low 27 bits")
        #expect(value >> 27 & 0xF == 2, "flags: IP only")
        #expect(value >> 31 & 0xFF == 2, "category 2: bridge")
        #expect(value >> 43 == 0, "version 0")
        #expect(SetupCode.setupHash(setupID: "07TM", pairingID: "5D:4A:C2:B4:A7:24").count == 8, "4 bytes, base64")
    }
}
