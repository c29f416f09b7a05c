import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// A `history` answer as people read it: one line a change (traits that went offline together on
/// one line), values in their words, then how long each part was unreachable and how often.
enum HistoryText {
    static func render(_ root: JSON, catalog: Catalog?, timeZone: TimeZone = .current) -> String {
        let presenter = PeoplesWords.presenter
        let from = root["from"]?.string.flatMap(date) ?? Date()
        let to = root["to"]?.string.flatMap(date) ?? Date()
        var out = "\(root["name"]?.string ?? "?") (\(root["device"]?.string ?? "?")), "
        out += "\(local(from, timeZone)) to \(local(to, timeZone))\n"
        let records = root["records"]?.elements ?? []
        var rows: [(time: String, part: String, change: String)] = []
        var index = 0
        while index < records.count {
            let record = records[index]
            let at = record["at"]?.string.flatMap(date) ?? from
            let address = record["trait"]?.string ?? "?"
            let trait = traitID(address)
            if let state = record["connectivity"]?.string {
                // The traits that moved together, with one reason: one line.
                var traits = [presenter.traitName(trait)]
                var next = index + 1
                while next < records.count, records[next]["connectivity"]?.string == state,
                    records[next]["at"]?.string == record["at"]?.string,
                    records[next]["reason"]?.string == record["reason"]?.string,
                    typeKey(records[next]["trait"]?.string ?? "") == typeKey(address)
                {
                    traits.append(presenter.traitName(traitID(records[next]["trait"]?.string ?? "")))
                    next += 1
                }
                let locality = record["locality"]?.string ?? "unspecified"
                rows.append(
                    (
                        local(at, timeZone), "\(typeKey(address)) (\(traits.joined(separator: ", ")))",
                        "\(state): \(record["reason"]?.string ?? "") (\(locality))"
                    ))
                index = next
                continue
            }
            let attribute = record["attribute"]?.string ?? "?"
            let key = ValuePresenter.key(trait: trait, attribute: attribute)
            let metadata = TraitID(parsing: trait).flatMap { try? catalog?.attributeMetadata($0, attribute) }
            let value = record["value"]?.value ?? .null
            let shown = presenter.text(AttributeValue(jsonValue: value), of: key, metadata: metadata)
            rows.append(
                (local(at, timeZone), presenter.name(of: key), "\(shown) (\(attribute) = \(value.serialized()))"))
            index += 1
        }
        if rows.isEmpty {
            out += "no change in this time\n"
        } else {
            let partWidth = min(48, rows.map(\.part.count).max() ?? 0)
            out += "\("TIME".padding(19))  \("PART".padding(partWidth))  CHANGE\n"
            for row in rows { out += "\(row.time)  \(row.part.padding(partWidth))  \(row.change)\n" }
        }
        out += unreachable(root, from: from, to: to)
        if root["truncated"]?.bool == true, let first = records.first?["at"]?.string {
            out += "older changes left out; see them with --until \(first)\n"
        }
        return out
    }

    /// Each part's time offline or unknown in the range, and how many times it dropped.
    static func unreachable(_ root: JSON, from: Date, to: Date) -> String {
        var bands: [String: [(at: Date, state: String)]] = [:]
        for record in (root["before"]?.elements ?? []) + (root["records"]?.elements ?? []) {
            guard let state = record["connectivity"]?.string, let trait = record["trait"]?.string,
                let at = record["at"]?.string.flatMap(date)
            else { continue }
            bands[trait, default: []].append((max(at, from), state))
        }
        var lines: [String: [String]] = [:]  // the same summary for several traits: one line
        for (trait, changes) in bands {
            var seconds = 0.0
            var drops = 0
            for (offset, change) in changes.enumerated() where change.state != "online" {
                let end = offset + 1 < changes.count ? changes[offset + 1].at : to
                seconds += max(0, end.timeIntervalSince(change.at))
                let wasOnline = offset == 0 ? false : changes[offset - 1].state == "online"
                if wasOnline || (offset == 0 && change.at > from) { drops += 1 }
            }
            let summary =
                seconds == 0
                ? "reachable all the time"
                : "unreachable \(words(seconds)) in all, \(drops) drop\(drops == 1 ? "" : "s")"
            lines[summary, default: []].append(trait)
        }
        return lines.sorted { $0.key < $1.key }.map { summary, traits in
            "\(summary): \(traits.sorted().joined(separator: ", "))\n"
        }.joined()
    }

    static func words(_ seconds: Double) -> String {
        let whole = Int(min(seconds, 1e9).rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3_600 { return "\(whole / 60) min \(whole % 60) s" }
        if whole < 86_400 { return "\(whole / 3_600) h \(whole % 3_600 / 60) min" }
        return "\(whole / 86_400) d \(whole % 86_400 / 3_600) h"
    }

    private static func traitID(_ address: String) -> String {
        address.lastIndex(of: "/").map { String(address[address.index(after: $0)...]) } ?? address
    }

    private static func typeKey(_ address: String) -> String {
        address.lastIndex(of: "/").map { String(address[..<$0]) } ?? ""
    }

    private static func date(_ text: String) -> Date? { Timestamp.parse(text) }

    static func local(_ date: Date, _ timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    }
}
