/// The one place where a number that came from outside becomes an integer or a model value.
///
/// `Int64(someDouble)` traps on NaN, on ±infinity and on anything at or beyond ±2^63, and a
/// payload, a SYNC, a config file or a command line can carry all of them (`1e19`, `1e400`,
/// `"nan"`). Every conversion of an outside number goes through these functions instead, so none
/// can stop the bridge: they return `nil` for what has no integer (NaN, ±infinity, out of range)
/// and the caller refuses it with its topic or path.
public enum FiniteNumber {
    /// 2^63 as a `Double`: the smallest magnitude that no longer fits `Int64` (−2^63 does fit).
    static let int64Bound = 9_223_372_036_854_775_808.0

    /// Whether `value` rounds to an integer that fits `Int64`.
    public static func fitsInt64(_ value: Double) -> Bool {
        guard value.isFinite else { return false }
        let rounded = value.rounded()
        return rounded >= -int64Bound && rounded < int64Bound
    }

    /// `value` rounded to the nearest integer; `nil` for NaN, ±infinity and values beyond `Int64`.
    public static func int64(rounding value: Double) -> Int64? {
        fitsInt64(value) ? Int64(value.rounded()) : nil
    }

    /// `value` rounded and clamped into `Int64` (±infinity clamp to the ends); `nil` only for NaN.
    public static func int64(clamping value: Double) -> Int64? {
        guard !value.isNaN else { return nil }
        if value >= int64Bound { return .max }
        if value <= -int64Bound { return .min }
        return Int64(value.rounded())
    }

    /// `value` rounded and clamped into `Int`; `nil` only for NaN (for counts and durations).
    public static func int(clamping value: Double) -> Int? {
        int64(clamping: value).map { Int(truncatingIfNeeded: $0) }
    }

    /// A number as an attribute value: an integer when it is whole and exact (|x| < 2^53),
    /// otherwise a double; `nil` for NaN and ±infinity, which no attribute can hold.
    public static func attributeValue(_ value: Double) -> AttributeValue? {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return .int(Int64(value)) }
        return .double(value)
    }

    /// Parses decimal text such as `91`, `-3.5` or `1e3` as a finite number; `nil` for anything
    /// else, including `nan`, `inf` and `infinity` (which Swift's `Double(_:)` accepts).
    public static func parse<S: StringProtocol>(_ text: S) -> Double? {
        guard let number = Double(text), number.isFinite else { return nil }
        return number
    }
}
