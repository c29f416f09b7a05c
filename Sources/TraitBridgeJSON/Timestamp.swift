public import FoundationEssentials

/// ISO 8601 timestamps for payloads, in UTC with milliseconds (`2026-11-22T03:32:10.396Z`).
///
/// Written by hand with integer calendar arithmetic (days to a civil date, as in Howard Hinnant's
/// `civil_from_days`): Foundation's format styles cost microseconds, `gmtime_r` about a thousand
/// instructions, and every published state carries a timestamp. Total: a date outside the years
/// 0000–9999 (or not finite) is written as the nearest one inside.
public enum Timestamp {
    /// Always 24 bytes.
    public static let length = 24

    public static func iso8601(_ date: Date) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            write(date, to: UnsafeMutableRawBufferPointer(buffer))
            return length
        }
    }

    /// The 24 bytes of `iso8601(date)` into `buffer` (at least 24 bytes long).
    public static func write(_ date: Date, to buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= length, "Timestamp.write needs 24 bytes")
        let milliseconds = Self.milliseconds(date)
        let days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let ofDay = milliseconds - days * 86_400_000
        let (year, month, day) = civil(days: days)
        var position = 0
        func put(_ value: Int64, _ width: Int, then separator: UInt8) {
            var rest = value
            for offset in stride(from: width - 1, through: 0, by: -1) {
                buffer[position + offset] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            buffer[position + width] = separator
            position += width + 1
        }
        put(year, 4, then: UInt8(ascii: "-"))
        put(month, 2, then: UInt8(ascii: "-"))
        put(day, 2, then: UInt8(ascii: "T"))
        put(ofDay / 3_600_000, 2, then: UInt8(ascii: ":"))
        put(ofDay / 60_000 % 60, 2, then: UInt8(ascii: ":"))
        put(ofDay / 1000 % 60, 2, then: UInt8(ascii: "."))
        put(ofDay % 1000, 3, then: UInt8(ascii: "Z"))
    }

    /// Milliseconds since 1970 (the nearest), clamped to 0000-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z.
    static func milliseconds(_ date: Date) -> Int64 {
        let earliest = -62_167_219_200.0
        let latest = 253_402_300_799.999
        let interval = date.timeIntervalSince1970
        guard interval.isFinite else { return interval > 0 ? 253_402_300_799_999 : -62_167_219_200_000 }
        let clamped = min(max(interval, earliest), latest)
        // To the nearest millisecond: a `Date` counts from 2001, so one made from whole milliseconds
        // since 1970 reads back a hair off (-0.001 s as -0.00100004…), and rounding down would show .998.
        let rounded = Int64(exactly: (clamped * 1000).rounded()) ?? 0  // finite and within ±2.6e14: exact
        return min(rounded, 253_402_300_799_999)  // .9996 of the last second stays in year 9999
    }

    /// Year, month (1–12) and day (1–31) of a day counted from 1970-01-01 (proleptic Gregorian).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // from 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
