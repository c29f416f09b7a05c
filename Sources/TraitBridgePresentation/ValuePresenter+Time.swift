public import FoundationEssentials
import TraitBridgeModel

extension ValuePresenter {
    /// A length of time as people say it: `45 s`, `3 min 20 s`, `2 h 5 min`, `3 d 4 h` (what the CLI's
    /// `history` and the web UI's timelines both print). Total: NaN and negatives are `0 s`.
    public static func duration(_ seconds: Double) -> String {
        let whole = FiniteNumber.int(clamping: min(max(0, seconds), 1e12)) ?? 0
        if whole < 60 { return "\(whole) s" }
        if whole < 3_600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86_400 { return "\(whole / 3_600) h \(whole % 3_600 / 60) min" }
        return "\(whole / 86_400) d \(whole % 86_400 / 3_600) h"
    }

    /// A time to the second in `timeZone` (`2026-11-30 08:10:00`).
    public static func clock(_ date: Date, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }
}
