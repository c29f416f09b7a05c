import Foundation
import Testing
import TraitBridgeAutomation

/// Sunrise and sunset against published tables (whattime.city for London, the Royal Astronomical
/// Society of New Zealand for Auckland: local times, "not varying by more than a minute or two on
/// the same date from year to year"), within 3 minutes.
@Suite("Sunrise and sunset")
struct SolarTests {
    static let london = AutomationPlace(
        timeZone: TimeZone(identifier: "Europe/London")!, latitude: 51.51, longitude: -0.13)
    static let auckland = AutomationPlace(
        timeZone: TimeZone(identifier: "Pacific/Auckland")!, latitude: -36.85, longitude: 174.76)

    func local(_ date: Date?, _ place: AutomationPlace) -> Int? {
        guard let date else { return nil }
        let parts = place.calendar.dateComponents([.hour, .minute, .second], from: date)
        return (parts.hour ?? 0) * 60 + (parts.minute ?? 0) + ((parts.second ?? 0) >= 30 ? 1 : 0)
    }

    @Test(
        "London and Auckland against published tables, within 3 minutes",
        arguments: [
            ("London", "2026-01-01T12:00:00Z", "08:07", "16:01"),
            ("London", "2026-06-01T12:00:00Z", "04:51", "21:07"),
            ("London", "2026-12-01T12:00:00Z", "07:43", "15:57"),
            // Auckland's 1 January: its sunrise is 17:05 UTC on 31 December, across the date line.
            ("Auckland", "2026-01-01T00:00:00Z", "06:05", "20:43"),
            ("Auckland", "2026-12-22T00:00:00Z", "05:58", "20:40"),
        ])
    func published(city: String, day: String, sunrise: String, sunset: String) throws {
        let place = city == "London" ? Self.london : Self.auckland
        let times = SolarCalculator.times(
            on: date(day), calendar: place.calendar, latitude: try #require(place.latitude),
            longitude: try #require(place.longitude))
        let rise = try #require(local(times.sunrise, place))
        let set = try #require(local(times.sunset, place))
        #expect(
            abs(rise - AutomationClock.minuteOfDay(sunrise)!) <= 3, "sunrise \(AutomationClock.text(minuteOfDay: rise))"
        )
        #expect(
            abs(set - AutomationClock.minuteOfDay(sunset)!) <= 3, "sunset \(AutomationClock.text(minuteOfDay: set))")
    }

    @Test("a sunset trigger across the date line fires on the home's own evening, 15 minutes early")
    func sunsetAcrossDateLine() throws {
        let trigger = AutomationTrigger.solar(event: .sunset, offsetMinutes: -15)
        // 1 January, 10:00 NZDT is still 31 December in UTC.
        let next = try #require(TimerRules.nextFire(trigger, after: date("2025-12-31T21:00:00Z"), place: Self.auckland))
        let parts = Self.auckland.calendar.dateComponents([.year, .month, .day], from: next)
        #expect(parts.year == 2026 && parts.month == 1 && parts.day == 1, "\(AutomationClock.text(next))")
        #expect(abs((local(next, Self.auckland) ?? 0) - (20 * 60 + 28)) <= 3)
        let after = try #require(TimerRules.nextFire(trigger, after: next, place: Self.auckland))
        #expect(
            after.timeIntervalSince(next) > 23 * 3600 && after.timeIntervalSince(next) < 25 * 3600, "the next evening")
    }

    @Test("beyond the polar circle: no sunrise in polar night, the sun always up at midnight sun")
    func polar() {
        let tromso = AutomationPlace(timeZone: TimeZone(identifier: "Europe/Oslo")!, latitude: 69.65, longitude: 18.96)
        let winter = SolarCalculator.times(
            on: date("2026-12-21T12:00:00Z"), calendar: tromso.calendar, latitude: 69.65, longitude: 18.96)
        #expect(winter.sunrise == nil && !winter.isAlwaysUp)
        #expect(SolarCalculator.isUp(at: date("2026-06-21T00:00:00Z"), place: tromso) == true)
        let sunrise = TimerRules.nextFire(
            .solar(event: .sunrise, offsetMinutes: 0), after: date("2026-12-21T12:00:00Z"), place: tromso)
        #expect(sunrise.map { $0 > date("2027-01-10T00:00:00Z") } == true, "the first sunrise after the polar night")
    }
}
