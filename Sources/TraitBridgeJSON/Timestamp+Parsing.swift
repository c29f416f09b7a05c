public import FoundationEssentials

extension Timestamp {
    /// Reads an RFC 3339 date-time (`2026-11-30T08:00:00Z`, `…08:00:00.250+01:00`, lower-case `t`
    /// and `z` too), whatever its year (0000–9999) or offset (±23:59), as RFC 3339's grammar has it;
    /// nil for anything else. Total: every field is checked against its range, nothing traps.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        var position = 0
        func digits(_ count: Int) -> Int64? {
            guard position + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[position..<position + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            position += count
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard position < bytes.count, characters.utf8.contains(bytes[position]) else { return false }
            position += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
            expect("Tt "), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
            let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        var fraction = 0.0
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            var scale = 0.1
            let start = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                fraction += Double(bytes[position] - UInt8(ascii: "0")) * scale
                scale /= 10
                position += 1
            }
            guard position > start else { return nil }
        }
        var offset: Int64 = 0
        if expect("Zz") {
        } else if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            position += 1
            guard let hours = digits(2), expect(":"), let minutes = digits(2), hours <= 23, minutes <= 59 else {
                return nil
            }
            offset = sign * (hours * 3_600 + minutes * 60)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
