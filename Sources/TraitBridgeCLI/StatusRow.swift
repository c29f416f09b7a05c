import Foundation
import TraitBridgeJSON

/// One device line of `traitbridge status`, from its state and description payloads.
struct StatusRow {
    var id: String
    var name: String
    var room: String
    var type: String
    var connectivity: String
    var locality: String
    var lastUpdate: String
    /// `lastUpdate` as the bridge wrote it (ISO 8601, as the API's), for `--json`; nil: never.
    var lastUpdateISO: String?
    /// The values a person looks for first, in their words: "on, 78 %", "22.2 °C", "locked".
    var values: String
    /// Why the device is not online: the reason of its first trait that is not.
    var reason: String?

    /// Every device of the snapshot, by room, then name (the default room, "Entire Home", last),
    /// as people scan a home; the id breaks ties.
    static func rows(_ snapshot: BridgeSnapshot) -> [StatusRow] {
        let rows = snapshot.states.map {
            StatusRow(id: $0.key, state: $0.value, description: snapshot.descriptions[$0.key])
        }
        return rows.sorted {
            order(room: $0.room, name: $0.name, id: $0.id) < order(room: $1.room, name: $1.name, id: $1.id)
        }
    }

    /// The sort key of a device line in `status` and `devices`.
    static func order(room: String, name: String, id: String) -> (Int, String, String, String) {
        (room == "Entire Home" || room == "–" ? 1 : 0, room.lowercased(), name.lowercased(), id)
    }

    init(id: String, state: JSON, description: JSON?) {
        self.id = id
        name = state["name"]?.string ?? id
        room = description?["room"]?.string ?? "–"
        connectivity = state["connectivityState"]?.string ?? "unknown"
        locality = state["dataSourceLocality"]?.string ?? "unspecified"
        lastUpdateISO = state["lastUpdate"]?.string
        values = PeoplesWords.headline(state: state, description: description)
        lastUpdate =
            state["lastUpdate"]?.string.map { String($0.prefix(19)).replacingOccurrences(of: "T", with: " ") }
            ?? "never"
        let types = state["types"]?.members ?? []
        let primary = types.first { $0.value["isPrimaryType"]?.bool == true } ?? types.first
        type = primary?.value["type"]?.string.map { String($0.split(separator: ".").last ?? "") } ?? "–"
        reason = nil
        if connectivity != "online" {
            outer: for (_, deviceType) in types {
                for (_, trait) in deviceType["traits"]?.members ?? []
                where trait["connectivityState"]?.string != "online" {
                    reason = trait["reason"]?.string
                    break outer
                }
            }
        }
    }

    /// The table; `style` colours the connectivity column (after padding, so columns stay aligned).
    static func table(
        _ rows: [StatusRow], bridge: String?, prefix: String,
        style: TerminalStyle = TerminalStyle(isColored: false, isTerminal: false)
    ) -> String {
        var text = ""
        switch bridge {
        case "online": text += "bridge: online (\(prefix)/bridge/state)\n"
        case "offline":
            text +=
                "bridge: OFFLINE (\(prefix)/bridge/state says offline); "
                + "the devices below are as it last published them\n"
        default:
            text +=
                "bridge: no bridge has published on \(prefix)/bridge/state; "
                + "is `traitbridge serve` running with --prefix \(prefix)?\n"
        }
        let header = ["NAME", "ROOM", "TYPE", "STATE", "CONNECTIVITY", "LOCALITY", "LAST UPDATE (UTC)", "REASON"]
        let cells = rows.map {
            [$0.name, $0.room, $0.type, $0.values, $0.connectivity, $0.locality, $0.lastUpdate, $0.reason ?? ""]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        for (number, line) in ([header] + cells).enumerated() {
            text +=
                line.enumerated().map { index, cell in
                    let padded =
                        index == line.count - 1
                        ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    if number == 0 { return style.bold(padded) }
                    return index == 4 ? padded.replacingOccurrences(of: cell, with: style.connectivity(cell)) : padded
                }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces) + "\n"
        }
        let counts = summary(rows)
        text +=
            "\(rows.count) device\(rows.count == 1 ? "" : "s"): \(counts.online) online, "
            + "\(counts.partial) partially online, \(counts.offline) offline, \(counts.unknown) unknown\n"
        return text
    }

    static func json(_ rows: [StatusRow], bridge: String?) -> JSONValue {
        var root = JSONObject()
        root["bridge"] = .string(bridge ?? "absent")
        root["devices"] = .array(
            rows.map { row in
                var object = JSONObject()
                object["id"] = .string(row.id)
                object["name"] = .string(row.name)
                object["room"] = .string(row.room)
                object["type"] = .string(row.type)
                object["connectivityState"] = .string(row.connectivity)
                object["dataSourceLocality"] = .string(row.locality)
                object["display"] = .string(row.values)
                object["lastUpdate"] = row.lastUpdateISO.map { .string($0) } ?? .null
                object["reason"] = row.reason.map { .string($0) } ?? .null
                return .object(object)
            })
        let counts = summary(rows)
        root["summary"] = [
            "online": .int(Int64(counts.online)), "partiallyOnline": .int(Int64(counts.partial)),
            "offline": .int(Int64(counts.offline)), "unknown": .int(Int64(counts.unknown)),
        ]
        return .object(root)
    }

    static func summary(_ rows: [StatusRow]) -> (online: Int, partial: Int, offline: Int, unknown: Int) {
        (
            rows.filter { $0.connectivity == "online" }.count,
            rows.filter { $0.connectivity == "partiallyOnline" }.count,
            rows.filter { $0.connectivity == "offline" }.count, rows.filter { $0.connectivity == "unknown" }.count
        )
    }
}
