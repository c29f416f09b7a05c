import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeTesting

/// The payloads' timestamps are written with integer calendar arithmetic; `gmtime_r` is the oracle.
@Suite("ISO 8601 timestamps")
struct TimestampTests {
    /// From whole milliseconds, so that the oracle needs no floating point.
    static func oracle(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = String(Int(parts.tm_year) + 1900)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliText = String(repeating: "0", count: 3 - String(millis).count) + String(millis)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year + "-" + two(parts.tm_mon + 1) + "-"
            + two(parts.tm_mday) + "T" + two(parts.tm_hour) + ":" + two(parts.tm_min) + ":" + two(parts.tm_sec) + "."
            + milliText + "Z"
    }

    @Test("leap days, century years, the epoch and 100 000 random instants of years 1–9999 match gmtime_r")
    func matchesGmtime() {
        let fixed: [Int64] = [
            0, -1, 951_782_400_000, 951_868_799_999, -2_203_891_200_000, 4_107_542_400_000, 1_798_761_599_500,
            253_402_300_799_999, -62_135_596_800_000, 1_795_318_330_396,
        ]
        var generator = SeededGenerator(seed: 14)
        let random = (0..<100_000).map { _ in
            Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
        }
        var mismatches: [String] = []
        for milliseconds in fixed + random {
            let written = Timestamp.iso8601(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
            let expected = Self.oracle(milliseconds: milliseconds)
            if written != expected { mismatches.append("\(milliseconds) ms: \(written), gmtime_r \(expected)") }
        }
        #expect(mismatches.count == 0, "first: \(mismatches.prefix(3))")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }

    @Test("dates outside 0000–9999, infinities and NaN are written as the nearest representable instant")
    func total() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1e300)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: -1e300)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: .infinity)) == "9999-12-31T23:59:59.999Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: -.infinity)) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: .nan)).count == 24)
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 253_402_300_799.9996)) == "9999-12-31T23:59:59.999Z")
    }

    @Test("the stream writer writes the same timestamp, quoted")
    func inWriter() throws {
        let date = Date(timeIntervalSince1970: 1_795_318_330.396)
        var writer = JSONStreamWriter(capacity: 1)
        writer.beginObject()
        writer.key("at")
        writer.timestamp(date)
        writer.endObject()
        #expect(try JSONDocument.parse(writer.bytes).root["at"]?.string == Timestamp.iso8601(date))
    }
}
