import Foundation
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgePresentation

/// A device's history drawn on its page, from the `history` answer: per trait an availability
/// band (online, offline, unknown; the reason on hover and in a list for keyboard and screen-reader
/// users), a line for each number in the person's unit, and each other change as a mark on the
/// same time axis. SVG made here: no framework, no other origin.
extension WebHTML {
    /// The ranges a page offers.
    enum HistoryRange: String, CaseIterable {
        case hour, day, week

        var seconds: Double {
            switch self {
            case .hour: 3_600
            case .day: 86_400
            case .week: 604_800
            }
        }
    }

    static let chartWidth = 720.0
    static let lineHeight = 120.0

    func historySection(_ answer: JSONValue, id: String, range: HistoryRange) -> String {
        var html = #"<section class="history" id="history"><h2>History</h2><p class="ranges">"#
        html += HistoryRange.allCases.map { option in
            option == range
                ? "<strong>last \(option.rawValue)</strong>"
                : #"<a href="/ui/devices/\#(e(id))?range=\#(option.rawValue)#history">last \#(option.rawValue)</a>"#
        }.joined(separator: " · ")
        html += "</p>"
        guard answer["status"]?.stringValue == "ok",
            let from = answer["from"]?.stringValue.flatMap(Timestamp.parse),
            let to = answer["to"]?.stringValue.flatMap(Timestamp.parse),
            to > from
        else {
            return html + "<p>\(e(answer["message"]?.stringValue ?? "No history."))</p></section>"
        }
        let before = answer["before"]?.arrayElements ?? []
        let records = answer["records"]?.arrayElements ?? []
        // A history younger than the range: drawn from its first change, not squeezed to the right.
        var start = from
        if before.isEmpty, let first = records.first?["at"]?.stringValue.flatMap(Timestamp.parse), first > from,
            first < to
        {
            start = first
        }
        let axis = Axis(from: start, to: to)
        html += "<p>\(e(ValuePresenter.clock(start))) to \(e(ValuePresenter.clock(to)))"
        if start > from { html += " (the history begins here)" }
        if answer["truncated"] == .bool(true) { html += " (the newest \(records.count) changes only)" }
        html += "</p><h3>Reachable</h3>" + availability(before + records, axis: axis)
        html += "<h3>Values</h3>" + values(before + records, axis: axis, document: document(id))
        return html + notifications(records) + "</section>"
    }

    /// A device's notifications in the range (a camera's motion and what it saw, a button's presses),
    /// the newest first, each with its time: the last 50.
    private func notifications(_ records: [JSONValue]) -> String {
        let notes = records.filter { $0["notification"] != nil }
        guard !notes.isEmpty else { return "" }
        var html = #"<h3>Notifications</h3><ol class="notifications" reversed>"#
        for note in notes.suffix(50).reversed() {
            let at = note["at"]?.stringValue ?? ""
            let shown = at.isEmpty ? "" : Timestamp.parse(at).map { ValuePresenter.clock($0) } ?? at
            html += #"<li><time datetime="\#(e(at))">\#(e(shown))</time> "#
            html += "\(e(ValuePresenter.notificationText(note["notification"] ?? .null)))</li>"
        }
        return html + "</ol>"
    }

    /// Where a time falls across the chart.
    struct Axis {
        var from: Date
        var to: Date

        func x(_ date: Date) -> Double {
            let fraction = (date.timeIntervalSince(from) / to.timeIntervalSince(from))
            return (max(0, min(1, fraction)) * WebHTML.chartWidth * 10).rounded() / 10
        }
    }

    /// One band of a trait's availability: its state from `start` to `end`, and why.
    struct Band: Equatable {
        var start: Date
        var end: Date
        var state: String
        var reason: String
    }

    private func availability(_ entries: [JSONValue], axis: Axis) -> String {
        var changes: [String: [(at: Date, state: String, reason: String)]] = [:]
        var order: [String] = []
        for entry in entries {
            guard let state = entry["connectivity"]?.stringValue, let trait = entry["trait"]?.stringValue,
                let at = entry["at"]?.stringValue.flatMap(Timestamp.parse)
            else { continue }
            if changes[trait] == nil { order.append(trait) }
            changes[trait, default: []].append((max(at, axis.from), state, entry["reason"]?.stringValue ?? ""))
        }
        // Traits whose bands are the same (a device's traits fed by one source) share one row.
        var rows: [(bands: [Band], traits: [String])] = []
        for trait in order {
            let list = changes[trait] ?? []
            let bands = list.indices.map { index in
                Band(
                    start: list[index].at, end: index + 1 < list.count ? list[index + 1].at : axis.to,
                    state: list[index].state, reason: list[index].reason)
            }
            if let row = rows.firstIndex(where: { $0.bands == bands }) {
                rows[row].traits.append(trait)
            } else {
                rows.append((bands, [trait]))
            }
        }
        guard !rows.isEmpty else { return "<p>No change of connectivity kept for this time.</p>" }
        return rows.map { row in timeline(row.bands, traits: row.traits, axis: axis) }.joined()
    }

    private func timeline(_ bands: [Band], traits: [String], axis: Axis) -> String {
        let label = Self.traitsLabel(traits, presenter: presenter)
        var svg = #"<svg class="bands" viewBox="0 0 \#(Int(Self.chartWidth)) 16" preserveAspectRatio="none" "#
        svg += #"width="100%" height="16" aria-hidden="true">"#
        for band in bands {
            let x = axis.x(band.start)
            let width = max(0.5, axis.x(band.end) - x)
            svg += #"<rect class="band \#(e(band.state))" x="\#(x)" y="0" width="\#(width)" height="16" "#
            svg += #"data-start="\#(e(Timestamp.iso8601(band.start)))" data-end="\#(e(Timestamp.iso8601(band.end)))">"#
            svg += "<title>\(e(bandText(band)))</title></rect>"
        }
        svg += "</svg>"
        // A band under a second (unknown for a moment at start) is drawn, not listed.
        let away = bands.filter { $0.state != "online" && $0.end.timeIntervalSince($0.start) >= 1 }
        let list =
            away.isEmpty
            ? "<li>online all the time shown</li>"
            : away.map { "<li>\(e(bandText($0)))</li>" }.joined()
        return """
            <div class="timeline"><p class="label">\(e(label))</p>\(svg)<ul class="band-list">\(list)</ul></div>
            """
    }

    private func bandText(_ band: Band) -> String {
        let length = ValuePresenter.duration(band.end.timeIntervalSince(band.start))
        return "\(band.state) \(ValuePresenter.clock(band.start)) to \(ValuePresenter.clock(band.end)) (\(length))"
            + (band.reason.isEmpty ? "" : ": \(band.reason)")
    }

    /// "light: On/off, Brightness" for `light/matter.OnOff` and `light/matter.LevelControl`.
    static func traitsLabel(_ traits: [String], presenter: ValuePresenter) -> String {
        var byType: [(type: String, names: [String])] = []
        for trait in traits {
            let slash = trait.lastIndex(of: "/")
            let type = slash.map { String(trait[..<$0]) } ?? ""
            let id = slash.map { String(trait[trait.index(after: $0)...]) } ?? trait
            if let index = byType.firstIndex(where: { $0.type == type }) {
                byType[index].names.append(presenter.traitName(id))
            } else {
                byType.append((type, [presenter.traitName(id)]))
            }
        }
        return byType.map { "\($0.type): \($0.names.joined(separator: ", "))" }.joined(separator: "; ")
    }

    /// The home page's reachability: per range, the devices that dropped (or stayed away) most first,
    /// then the rooms and groups the same (a room away: none of its devices' parts reachable).
    func availabilitySection(_ answers: [(title: String, answer: JSONValue)]) -> String {
        var html = #"<section id="availability"><h2>Reachability</h2>"#
        for (title, answer) in answers {
            html += "<h3>\(e(title))</h3>"
            guard answer["status"]?.stringValue == "ok" else {
                html += "<p>\(e(answer["message"]?.stringValue ?? "No history."))</p>"
                continue
            }
            let devices = Self.unreachable(answer["devices"])
            guard !devices.isEmpty else {
                html += "<p>Every device was reachable all the time.</p>"
                continue
            }
            html += availabilityTable("Device", devices) { entry in
                let id = entry["device"]?.stringValue ?? ""
                return #"<a href="/ui/devices/\#(e(id))#history">\#(e(entry["name"]?.stringValue ?? id))</a>"#
            }
            let sets = Self.unreachable(answer["rooms"]) + Self.unreachable(answer["groups"])
            if !sets.isEmpty {
                html += availabilityTable("Room or group", sets) { entry in
                    let kind = entry["room"] == nil ? "group" : "room"
                    let name = entry["name"]?.stringValue ?? ""
                    return "\(e(name)) (\(kind), \(Self.number(entry["devices"])) devices)"
                }
            }
        }
        return html + "</section>"
    }

    /// The entries that were not reachable all the time, in the answer's order.
    private static func unreachable(_ list: JSONValue?) -> [JSONValue] {
        (list?.arrayElements ?? []).filter { entry in
            entry["drops"] != .int(0) || entry["offlineSeconds"] != .double(0) || entry["partlySeconds"] != .double(0)
        }
    }

    private func availabilityTable(_ what: String, _ entries: [JSONValue], name: (JSONValue) -> String) -> String {
        var html = #"<table class="availability"><thead><tr><th scope="col">\#(what)</th><th scope="col">Drops</th>"#
        html += #"<th scope="col">Unreachable</th><th scope="col">Partly unreachable</th></tr></thead><tbody>"#
        for entry in entries {
            html += "<tr><td>\(name(entry))</td><td>\(Self.number(entry["drops"]))</td>"
            html += "<td>\(e(ValuePresenter.duration(Self.seconds(entry["offlineSeconds"]))))</td>"
            html += "<td>\(e(ValuePresenter.duration(Self.seconds(entry["partlySeconds"]))))</td></tr>"
        }
        return html + "</tbody></table>"
    }

    private static func seconds(_ value: JSONValue?) -> Double { value?.numberValue ?? 0 }

    private static func number(_ value: JSONValue?) -> String {
        if case .int(let number) = value { return String(number) }
        return "0"
    }

    private func e(_ text: String) -> String { Self.escape(text) }
}
