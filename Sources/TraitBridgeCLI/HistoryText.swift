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
        let from = root["from"]?.string.flatMap(Timestamp.parse) ?? Date()
        let to = root["to"]?.string.flatMap(Timestamp.parse) ?? Date()
        var out = "\(root["name"]?.string ?? "?") (\(root["device"]?.string ?? "?")), "
        out += "\(ValuePresenter.clock(from, timeZone: timeZone)) to \(ValuePresenter.clock(to, timeZone: timeZone))\n"
        let records = root["records"]?.elements ?? []
        var rows: [(time: String, part: String, change: String)] = []
        var index = 0
        while index < records.count {
            let record = records[index]
            let at = record["at"]?.string.flatMap(Timestamp.parse) ?? from
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
                        ValuePresenter.clock(at, timeZone: timeZone),
                        "\(typeKey(address)) (\(traits.joined(separator: ", ")))",
                        "\(state): \(record["reason"]?.string ?? "") (\(locality))"
                    ))
                index = next
                continue
            }
            if let note = record["notification"] {
                rows.append(
                    (
                        ValuePresenter.clock(at, timeZone: timeZone),
                        "\(typeKey(address)) (\(presenter.traitName(trait)))",
                        "notification: \(ValuePresenter.notificationText(note.value))"
                    ))
                index += 1
                continue
            }
            let attribute = record["attribute"]?.string ?? "?"
            let key = ValuePresenter.key(trait: trait, attribute: attribute)
            let metadata = TraitID(parsing: trait).flatMap { try? catalog?.attributeMetadata($0, attribute) }
            let value = record["value"]?.value ?? .null
            let shown = presenter.text(AttributeValue(jsonValue: value), of: key, metadata: metadata)
            rows.append(
                (
                    ValuePresenter.clock(at, timeZone: timeZone), presenter.name(of: key),
                    "\(shown) (\(attribute) = \(value.serialized()))"
                ))
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
                let at = record["at"]?.string.flatMap(Timestamp.parse)
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
                : "unreachable \(ValuePresenter.duration(seconds)) in all, \(drops) drop\(drops == 1 ? "" : "s")"
            lines[summary, default: []].append(trait)
        }
        return lines.sorted { $0.key < $1.key }.map { summary, traits in
            "\(summary): \(traits.sorted().joined(separator: ", "))\n"
        }.joined()
    }

    private static func traitID(_ address: String) -> String {
        address.lastIndex(of: "/").map { String(address[address.index(after: $0)...]) } ?? address
    }

    private static func typeKey(_ address: String) -> String {
        address.lastIndex(of: "/").map { String(address[..<$0]) } ?? ""
    }
}
