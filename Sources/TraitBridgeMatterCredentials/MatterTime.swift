internal import Foundation

/// A time as Matter certificates and Last Known Good Time carry it: whole seconds since the Matter
/// epoch, 2000-01-01 00:00:00 UTC (Matter Core §3.5.1), in 32 bits (so up to 2136-02-07).
///
/// In a certificate's not-after, 0 means "no well-defined expiration" (X.509's 99991231235959Z,
/// RFC 5280 §4.1.2.5); `isNoWellDefinedExpiration` names it. The SDK writes a not-before of 0 the
/// same way (`ChipEpochToASN1Time`), and so does the X.509 conversion here, so that such a
/// certificate's signature checks exactly as it would in the SDK.
public struct MatterTime: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds from the Unix epoch to the Matter epoch (2000-01-01T00:00:00Z).
    public static let unixEpochOffsetSeconds: UInt64 = 946_684_800

    /// Seconds since 2000-01-01 00:00:00 UTC.
    public var secondsSince2000: UInt32

    public init(secondsSince2000: UInt32) { self.secondsSince2000 = secondsSince2000 }

    /// The time `unixSeconds` after 1970-01-01 UTC; nil before 2000 or after 2136 (no 32-bit Matter time).
    public init?(unixSeconds: UInt64) {
        guard unixSeconds >= Self.unixEpochOffsetSeconds,
            let seconds = UInt32(exactly: unixSeconds - Self.unixEpochOffsetSeconds)
        else { return nil }
        self.secondsSince2000 = seconds
    }

    /// Whether this is 0, which a not-after uses for "never expires".
    public var isNoWellDefinedExpiration: Bool { secondsSince2000 == 0 }

    public static func < (lhs: MatterTime, rhs: MatterTime) -> Bool { lhs.secondsSince2000 < rhs.secondsSince2000 }

    /// ISO 8601 in UTC (`2020-10-15T14:23:43Z`), with the raw seconds in parentheses.
    public var description: String {
        let c = utc
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))Z"
            + " (\(secondsSince2000))"
    }

    /// The UTC calendar fields of this time, by Foundation's Gregorian calendar.
    var utc: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let date = Date(timeIntervalSince1970: TimeInterval(Self.unixEpochOffsetSeconds + UInt64(secondsSince2000)))
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return (c.year ?? 2000, c.month ?? 1, c.day ?? 1, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
