import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// The values part of a device's history: a step line for each number (held until the next
/// change), a mark for each other change (a contact opening, a mode), on the availability's axis.
extension WebHTML {
    /// One attribute's changes, in the person's words and, when it is a number, in their unit.
    private struct Series {
        var trait: String
        var attribute: String
        var points: [(at: Date, value: AttributeValue)] = []
    }

    func values(_ entries: [JSONValue], axis: Axis, document: JSONValue?) -> String {
        var series: [Series] = []
        var notes: [(at: Date, text: String)] = []
        for entry in entries {
            guard let trait = entry["trait"]?.stringValue, let attribute = entry["attribute"]?.stringValue,
                let at = entry["at"]?.stringValue.flatMap(Timestamp.parse)
            else { continue }
            if let note = entry["notification"] {
                notes.append((max(at, axis.from), ValuePresenter.notificationText(note)))
                continue
            }
            guard let value = entry["value"] else { continue }
            let point = (max(at, axis.from), AttributeValue(jsonValue: value))
            if let index = series.firstIndex(where: { $0.trait == trait && $0.attribute == attribute }) {
                series[index].points.append(point)
            } else {
                series.append(Series(trait: trait, attribute: attribute, points: [point]))
            }
        }
        guard !series.isEmpty || !notes.isEmpty else { return "<p>No value change kept for this time.</p>" }
        let view = document.map { DeviceView(id: "", document: $0) }
        let noted = notes.isEmpty ? "" : marks("Notifications", words: notes, axis: axis)
        return noted
            + series.map { one in
                let slash = one.trait.lastIndex(of: "/")
                let type = slash.map { String(one.trait[..<$0]) } ?? ""
                let traitID = slash.map { String(one.trait[one.trait.index(after: $0)...]) } ?? one.trait
                let key = ValuePresenter.key(trait: traitID, attribute: one.attribute)
                let metadata = view?.metadata(type: type, trait: traitID, attribute: one.attribute)
                let numbers = one.points.map { presenter.plotted($0.value, of: key, metadata: metadata) }
                let title = "\(presenter.name(of: key)) (\(type), \(presenter.traitName(traitID)))"
                let words = one.points.map { (at: $0.at, text: presenter.text($0.value, of: key, metadata: metadata)) }
                if numbers.allSatisfy({ $0 != nil }) {
                    let shown = presenter.unit(of: key, metadata: metadata)
                    let unit = shown?.symbol ?? metadata?.unit?.rawValue ?? ""
                    return line(
                        title, unit: unit, decimals: shown?.decimals ?? 2,
                        points: zip(one.points, numbers).map { ($0.at, $1 ?? 0) }, words: words,
                        axis: axis)
                }
                return marks(title, words: words, axis: axis)
            }.joined()
    }

    private func line(
        _ title: String, unit: String, decimals: Int, points: [(at: Date, number: Double)],
        words: [(at: Date, text: String)], axis: Axis
    ) -> String {
        let lowest = points.map(\.number).min() ?? 0
        let highest = points.map(\.number).max() ?? 0
        let range =
            lowest == highest
            ? ValuePresenter.number(lowest, decimals: decimals)
            : ValuePresenter.number(lowest, decimals: decimals) + " to "
                + ValuePresenter.number(highest, decimals: decimals)
        // One value alone sits in the middle.
        let low = lowest == highest ? lowest - 1 : lowest
        let high = lowest == highest ? highest + 1 : highest
        let height = Self.lineHeight
        func y(_ number: Double) -> Double {
            ((height - 8 - (number - low) / (high - low) * (height - 16)) * 10).rounded() / 10
        }
        var path: [String] = []
        for (index, point) in points.enumerated() {
            let x = axis.x(point.at)
            if index > 0 { path.append("\(x),\(y(points[index - 1].number))") }  // held until this change
            path.append("\(x),\(y(point.number))")
        }
        if let last = points.last { path.append("\(Self.chartWidth),\(y(last.number))") }
        var svg = #"<svg class="line" viewBox="0 0 \#(Int(Self.chartWidth)) \#(Int(height))" width="100%" "#
        svg += #"height="\#(Int(height))" role="img" aria-label="\#(e(title)): \#(e(range)) \#(e(unit))" "#
        svg += #"data-low="\#(low)" data-high="\#(high)">"#
        svg += #"<polyline fill="none" points="\#(path.joined(separator: " "))"/>"#
        for (point, word) in zip(points, words) {
            svg += #"<circle r="3" cx="\#(axis.x(point.at))" cy="\#(y(point.number))" "#
            svg += #"data-at="\#(e(Timestamp.iso8601(point.at)))" data-value="\#(point.number)">"#
            svg += "<title>\(e(ValuePresenter.clock(point.at))): \(e(word.text))</title></circle>"
        }
        svg += "</svg>"
        return """
            <figure class="chart"><figcaption>\(e(title))\(unit.isEmpty ? "" : " in " + e(unit)), \(e(range))\
            </figcaption>\(svg)\(changeList(words))</figure>
            """
    }

    private func marks(_ title: String, words: [(at: Date, text: String)], axis: Axis) -> String {
        var svg = #"<svg class="marks" viewBox="0 0 \#(Int(Self.chartWidth)) 16" width="100%" height="16" "#
        svg += #"aria-hidden="true">"#
        for word in words {
            svg += #"<rect x="\#(max(0, axis.x(word.at) - 1))" y="0" width="2" height="16" "#
            svg +=
                #"data-at="\#(e(Timestamp.iso8601(word.at)))"><title>"#
                + "\(e(ValuePresenter.clock(word.at))): \(e(word.text))"
            svg += "</title></rect>"
        }
        svg += "</svg>"
        return "<figure class=\"chart\"><figcaption>\(e(title))</figcaption>\(svg)\(changeList(words))</figure>"
    }

    /// The changes in words (the last 20, newest first), for whoever does not read the drawing.
    private func changeList(_ words: [(at: Date, text: String)]) -> String {
        let shown = words.suffix(20).reversed().map { "<li>\(e(ValuePresenter.clock($0.at))): \(e($0.text))</li>" }
        let more = words.count > 20 ? "<li>and \(words.count - 20) earlier</li>" : ""
        return "<details><summary>\(words.count) change\(words.count == 1 ? "" : "s")</summary><ul>"
            + shown.joined() + more + "</ul></details>"
    }

    private func e(_ text: String) -> String { Self.escape(text) }
}
