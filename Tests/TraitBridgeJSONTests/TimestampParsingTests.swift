import Foundation
import Testing
import TraitBridgeJSON

/// RFC 3339 read back: the RFC's own examples (its section 5.8), any year and offset its grammar
/// allows, our own timestamps, and refusals of what is not one (never a trap).
@Suite("RFC 3339 date-times read")
struct TimestampParsingTests {
    @Test("RFC 3339's examples (5.8)")
    func examples() {
        #expect(Timestamp.parse("1985-04-12T23:20:50.52Z")?.timeIntervalSince1970 == 482_196_050.52)
        #expect(Timestamp.parse("1996-12-19T16:39:57-08:00")?.timeIntervalSince1970 == 851_042_397)
        #expect(Timestamp.parse("1990-12-31T23:59:60Z")?.timeIntervalSince1970 == 662_688_000)  // a leap second
        #expect(Timestamp.parse("1990-12-31T15:59:60-08:00")?.timeIntervalSince1970 == 662_688_000)
        let offset = Timestamp.parse("1937-01-01T12:00:27.87+00:20")?.timeIntervalSince1970 ?? 0
        #expect(abs(offset - -1_041_337_172.13) < 0.000_1)
    }

    @Test("any year 0000–9999 and offset to ±23:59; our own timestamps read back")
    func range() {
        #expect(Timestamp.parse("0055-02-12T19:19:07+18:52") != nil)
        #expect(Timestamp.parse("0000-01-01T00:00:00Z")?.timeIntervalSince1970 == -62_167_219_200)
        #expect(Timestamp.parse("9999-12-31t23:59:59z")?.timeIntervalSince1970 == 253_402_300_799)
        #expect(Timestamp.parse("2024-02-29T00:00:00Z") != nil)
        let now = Date(timeIntervalSince1970: 1_796_025_600.123)
        #expect(Timestamp.parse(Timestamp.iso8601(now)) == now)
    }

    @Test(
        "what is not an RFC 3339 date-time is nil",
        arguments: [
            "", "yesterday", "2026-11-30", "2026-11-30T08:00:00", "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
            "2026-11-31T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T08:60:00Z", "2026-11-30T08:00:61Z",
            "2026-11-30T08:00:00+24:00", "2026-11-30T08:00:00.Z", "2026-11-30T08:00:00Zjunk", "+2026-11-30T08:00:00Z",
            "２０２６-11-30T08:00:00Z", "2026-11-30T08:00:00.1234567890123456789012Z",
        ])
    func refusals(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }
}
