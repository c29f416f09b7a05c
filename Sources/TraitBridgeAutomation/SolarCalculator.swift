public import Foundation

/// Sunrise and sunset from latitude and longitude: the sunrise equation with the equation of
/// centre and of time (accurate to about a minute below the polar circles), for the upper limb
/// with standard refraction (−0.833°), as published tables give them.
public enum SolarCalculator {
    /// Sunrise and sunset of a local calendar day; `nil` for a day the sun does not rise
    /// (polar night) or does not set (midnight sun). `isAlwaysUp` tells which.
    public struct Times: Sendable, Hashable {
        public var sunrise: Date?
        public var sunset: Date?
        public var isAlwaysUp: Bool
    }

    /// The times of the day that holds `date` in `calendar`'s time zone.
    public static func times(on date: Date, calendar: Calendar, latitude: Double, longitude: Double) -> Times {
        let noon = calendar.date(bySettingHour: 12, minute: 0, second: 0, of: date) ?? date
        let julianNoon = noon.timeIntervalSince1970 / 86400 + 2_440_587.5
        // n: the day number whose mean solar noon at this longitude is nearest the local noon.
        let n = (julianNoon - 2_451_545.0 - 0.0008 + longitude / 360).rounded()
        let meanNoon = n + 0.0008 - longitude / 360
        let anomaly = normalized(357.5291 + 0.98560028 * meanNoon)
        let m = anomaly * .pi / 180
        let centre = 1.9148 * sin(m) + 0.0200 * sin(2 * m) + 0.0003 * sin(3 * m)
        let eclipticLongitude = normalized(anomaly + centre + 180 + 102.9372) * .pi / 180
        let transit = 2_451_545.0 + meanNoon + 0.0053 * sin(m) - 0.0069 * sin(2 * eclipticLongitude)
        let declination = asin(sin(eclipticLongitude) * sin(23.4397 * .pi / 180))
        let phi = latitude * .pi / 180
        let cosHourAngle =
            (sin(-0.833 * .pi / 180) - sin(phi) * sin(declination)) / (cos(phi) * cos(declination))
        if cosHourAngle > 1 { return Times(sunrise: nil, sunset: nil, isAlwaysUp: false) }
        if cosHourAngle < -1 { return Times(sunrise: nil, sunset: nil, isAlwaysUp: true) }
        let hourAngle = acos(cosHourAngle) * 180 / .pi
        func instant(_ julian: Double) -> Date { Date(timeIntervalSince1970: (julian - 2_440_587.5) * 86400) }
        return Times(
            sunrise: instant(transit - hourAngle / 360), sunset: instant(transit + hourAngle / 360), isAlwaysUp: false)
    }

    /// Whether the sun is up at `instant` at the place.
    public static func isUp(at instant: Date, place: AutomationPlace) -> Bool? {
        guard let latitude = place.latitude, let longitude = place.longitude else { return nil }
        let times = times(on: instant, calendar: place.calendar, latitude: latitude, longitude: longitude)
        guard let sunrise = times.sunrise, let sunset = times.sunset else { return times.isAlwaysUp }
        return sunrise <= instant && instant < sunset
    }

    private static func normalized(_ degrees: Double) -> Double {
        let value = degrees.truncatingRemainder(dividingBy: 360)
        return value < 0 ? value + 360 : value
    }
}
