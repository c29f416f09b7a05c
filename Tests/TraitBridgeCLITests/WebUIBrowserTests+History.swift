import Foundation
import Testing

extension WebUIBrowserTests {
    /// The Hall light's page: its local traits' band offline with the availability topic as the
    /// reason, its cloud twin's band online; the Climate sensor's day: every point drawn is a change
    /// the API's history gives (its time, its value in °C).
    static func checkHistory(_ found: [String: Any]) throws {
        let rows = found["historyRows"] as? [[String: Any]] ?? []
        func bands(_ row: [String: Any]) -> [[String: String]] { row["bands"] as? [[String: String]] ?? [] }
        let local = rows.first { ($0["label"] as? String)?.hasPrefix("light: ") == true }
        let cloud = rows.first { ($0["label"] as? String)?.hasPrefix("cloud-light: ") == true }
        let localLast = local.flatMap { bands($0).last }
        #expect(localLast?["state"] == "band offline", "the local traits end offline: \(rows)")
        #expect(
            localLast?["title"]?.contains("availability topic zigbee2mqtt/Hall light/availability said offline")
                == true, "the reason on hover: \(rows)")
        #expect((local?["label"] as? String)?.contains("On/off") == true, "\(rows)")
        #expect(
            (local?["list"] as? String)?.contains("offline ") == true, "in text for a screen reader too: \(rows)")
        #expect(cloud.flatMap { bands($0).last?["state"] } == "band online", "the cloud twin stays online: \(rows)")

        let charts = found["climateCharts"] as? [[String: Any]] ?? []
        let temperature = charts.first { ($0["caption"] as? String)?.contains("°C") == true }
        let points = (temperature?["points"] as? [[Any]]) ?? []
        #expect(points.count >= 2, "the demo's temperature moved: \(charts)")
        let history = found["climateHistory"] as? [String: Any] ?? [:]
        let changes = ((history["before"] as? [[String: Any]]) ?? []) + ((history["records"] as? [[String: Any]]) ?? [])
        var matched = 0
        for point in points {
            guard let at = point.first as? String, let shown = point.last as? Double else { continue }
            let change = changes.first { $0["at"] as? String == at }
            if let value = change?["value"] as? Double ?? (change?["value"] as? Int).map(Double.init) {
                #expect(abs(value / 100 - shown) < 0.001, "\(at): drawn \(shown) °C, the API \(value) × 0.01 °C")
                matched += 1
            }
        }
        // Each point but perhaps the first (the value held at the day's start, drawn at its start).
        #expect(matched >= points.count - 1 && matched > 0, "points \(points) against \(changes.prefix(5))")
    }
}
