public import Foundation
import TraitBridgeModel

/// Where timer, calendar and solar triggers are computed: the home's time zone and location.
public struct AutomationPlace: Sendable, Hashable {
    public var timeZone: TimeZone
    public var latitude: Double?
    public var longitude: Double?

    public init(timeZone: TimeZone, latitude: Double? = nil, longitude: Double? = nil) {
        self.timeZone = timeZone
        self.latitude = latitude
        self.longitude = longitude
    }

    /// A place from a home's stored location; an unknown zone name or none gives `fallback`.
    public static func make(
        timeZone name: String?, latitude: Double?, longitude: Double?, fallback: TimeZone
    ) -> AutomationPlace {
        AutomationPlace(
            timeZone: name.flatMap(TimeZone.init(identifier:)) ?? fallback, latitude: latitude, longitude: longitude)
    }

    /// Whether the zone database knows an IANA time zone name.
    public static func isKnownTimeZone(_ name: String) -> Bool { TimeZone(identifier: name) != nil }

    /// A Gregorian calendar in the home's time zone.
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}

/// HomeKit's timer rules, and when each timed trigger fires next. Days and weeks are calendar
/// days in the home's time zone (07:00 stays 07:00 across a DST change); minutes and hours are
/// elapsed time. A time that does not exist on a spring-forward day fires at the first instant
/// after the gap; a time that happens twice on a fall-back day fires once, the first time.
public enum TimerRules {
    public static let shortestRecurrence = 5  // minutes
    public static let longestRecurrence = 5 * 10080  // 5 weeks, in minutes

    /// Why a timer trigger is refused, or `nil`: the first fire date in the future with seconds
    /// zero, a recurrence between 5 minutes and 5 weeks.
    public static func problem(fireDate: Date, recurrence: Recurrence?, now: Date) -> String? {
        let seconds = fireDate.timeIntervalSince1970
        if seconds.truncatingRemainder(dividingBy: 60) != 0 {
            return "the fire date \(AutomationClock.text(fireDate)) has seconds; HomeKit's timers fire on whole minutes"
        }
        if fireDate <= now {
            return
                "the fire date \(AutomationClock.text(fireDate)) is not in the future "
                    + "(now \(AutomationClock.text(now)))"
        }
        if let recurrence {
            if recurrence.count < 1 { return "the recurrence count must be at least 1" }
            let minutes = recurrence.nominalMinutes
            if minutes < shortestRecurrence || minutes > longestRecurrence {
                return "a recurrence of \(recurrence.count) \(recurrence.unit.rawValue) is outside HomeKit's bounds: "
                    + "between 5 minutes and 5 weeks"
            }
        }
        return nil
    }

    /// The first fire of a timed trigger strictly after `after`; `nil` when it never fires again
    /// (a one-off timer in the past, a sun that does not rise for a year).
    public static func nextFire(_ trigger: AutomationTrigger, after: Date, place: AutomationPlace) -> Date? {
        switch trigger {
        case .timer(let fireDate, let recurrence):
            return nextTimer(fireDate: fireDate, recurrence: recurrence, after: after, calendar: place.calendar)
        case .calendar(let weekdays, let minuteOfDay):
            return nextCalendar(weekdays: weekdays, minuteOfDay: minuteOfDay, after: after, calendar: place.calendar)
        case .solar(let event, let offset):
            return nextSolar(event, offsetMinutes: offset, after: after, place: place)
        case .attribute, .connectivity:
            return nil
        }
    }

    static func nextTimer(fireDate: Date, recurrence: Recurrence?, after: Date, calendar: Calendar) -> Date? {
        guard fireDate <= after else { return fireDate }
        guard let recurrence, recurrence.count > 0 else { return nil }
        // Jump close to `after` in one step, then walk: the k-th fire is always counted from the
        // first fire date, so a DST gap never shifts the fires after it.
        let nominal = Double(recurrence.nominalMinutes) * 60
        var k = max(
            0, (FiniteNumber.int(clamping: (after.timeIntervalSince(fireDate) / nominal).rounded(.down)) ?? 0) - 1)
        for _ in 0..<8 {
            guard let candidate = fire(k, of: fireDate, recurrence, calendar: calendar) else { return nil }
            if candidate > after { return candidate }
            k += 1
        }
        return nil
    }

    private static func fire(_ k: Int, of first: Date, _ recurrence: Recurrence, calendar: Calendar) -> Date? {
        let (amount, overflow) = k.multipliedReportingOverflow(by: recurrence.count)
        guard !overflow else { return nil }
        switch recurrence.unit {
        case .minutes: return first.addingTimeInterval(Double(amount) * 60)
        case .hours: return first.addingTimeInterval(Double(amount) * 3600)
        case .days: return sameClockTime(as: first, daysLater: amount, calendar: calendar)
        case .weeks: return sameClockTime(as: first, daysLater: amount * 7, calendar: calendar)
        }
    }

    /// The first date's local time `days` later; in a spring-forward gap, the first instant
    /// after the gap (as calendar triggers do), not the time shifted by the gap.
    private static func sameClockTime(as first: Date, daysLater days: Int, calendar: Calendar) -> Date? {
        guard let shifted = calendar.date(byAdding: .day, value: days, to: first, wrappingComponents: false) else {
            return nil
        }
        let wanted = calendar.dateComponents([.hour, .minute], from: first)
        guard calendar.dateComponents([.hour, .minute], from: shifted) != wanted else { return shifted }
        return calendar.nextDate(
            after: calendar.startOfDay(for: shifted), matching: wanted, matchingPolicy: .nextTime,
            repeatedTimePolicy: .first, direction: .forward)
    }

    static func nextCalendar(weekdays: Set<Int>, minuteOfDay: Int, after: Date, calendar: Calendar) -> Date? {
        var components = DateComponents()
        components.hour = minuteOfDay / 60
        components.minute = minuteOfDay % 60
        components.second = 0
        let days = weekdays.isEmpty ? [nil] : weekdays.sorted().map(Optional.some)
        var best: Date?
        for day in days {
            var wanted = components
            wanted.weekday = day
            guard
                let next = calendar.nextDate(
                    after: after, matching: wanted, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
                    direction: .forward)
            else { continue }
            if best.map({ next < $0 }) ?? true { best = next }
        }
        return best
    }

    static func nextSolar(_ event: SolarEvent, offsetMinutes: Int, after: Date, place: AutomationPlace) -> Date? {
        guard let latitude = place.latitude, let longitude = place.longitude else { return nil }
        let calendar = place.calendar
        let start = calendar.startOfDay(for: after.addingTimeInterval(-Double(offsetMinutes) * 60 - 86400))
        for day in 0..<400 {  // a polar night ends within a year
            guard let date = calendar.date(byAdding: .day, value: day, to: start) else { return nil }
            let times = SolarCalculator.times(on: date, calendar: calendar, latitude: latitude, longitude: longitude)
            guard let time = event == .sunrise ? times.sunrise : times.sunset else { continue }
            let fire = time.addingTimeInterval(Double(offsetMinutes) * 60)
            if fire > after { return fire }
        }
        return nil
    }
}

/// Times as the automation contract writes them.
public enum AutomationClock {
    /// `2026-11-25T07:00:00Z`.
    public static func text(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: false).timeZone(separator: .omitted))
    }

    /// `07:05`.
    public static func text(minuteOfDay: Int) -> String {
        let hour = minuteOfDay / 60
        let minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// `HH:MM` → minutes since midnight, or `nil`.
    public static func minuteOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }
}

/// Weekday names of the contract (`mon` … `sun`) ↔ the calendar's numbers (1 = Sunday).
public enum Weekdays {
    public static let names = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    public static func number(_ name: String) -> Int? {
        names.firstIndex(of: String(name.lowercased().prefix(3))).map { $0 + 1 }
    }

    public static func text(_ days: Set<Int>) -> String {
        if days.isEmpty || days.count == 7 { return "every day" }
        if days == [2, 3, 4, 5, 6] { return "weekdays" }
        return days.sorted().map { names[$0 - 1] }.joined(separator: ",")
    }
}
