public import TraitBridgeJSON

/// The lists the HTTP API answers and the CLI's `--json` prints (rooms, zones, groups, scenes,
/// automations, cloud links), made from the documents the bridge retains on the broker: the API
/// passes the state's documents, the CLI the retained payloads it read, so both print one shape.
/// Entries are sorted by home, then name (ignoring case), then id.
public enum LayoutLists {
    /// `{"rooms": [{id, name, home, default, zones, devices}]}` from home documents (`…/homes/<id>`)
    /// and the number of devices in a room (by home name and room name).
    public static func rooms(homes: [JSONValue], deviceCount: (String, String) -> Int) -> JSONValue {
        var entries: [JSONValue] = []
        for home in homes {
            let zones = home["zones"]?.arrayElements ?? []
            for room in home["rooms"]?.arrayElements ?? [] {
                let name = room["name"]?.stringValue ?? ""
                var entry = JSONObject()
                entry.append("id", room["id"] ?? .null)
                entry.append("name", .string(name))
                entry.append("home", home["name"] ?? .null)
                entry.append("default", room["default"] ?? .bool(false))
                let inZones = zones.filter { zone in
                    (zone["rooms"]?.arrayElements ?? []).contains { $0.stringValue == name }
                }
                entry.append("zones", .array(inZones.map { $0["name"] ?? .null }))
                entry.append("devices", .int(Int64(deviceCount(home["name"]?.stringValue ?? "", name))))
                entries.append(.object(entry))
            }
        }
        return ["rooms": .array(sorted(entries))]
    }

    /// `{"zones": [{id, name, home, rooms}]}` from home documents.
    public static func zones(homes: [JSONValue]) -> JSONValue {
        var entries: [JSONValue] = []
        for home in homes {
            for zone in home["zones"]?.arrayElements ?? [] {
                var entry = JSONObject()
                entry.append("id", zone["id"] ?? .null)
                entry.append("name", zone["name"] ?? .null)
                entry.append("home", home["name"] ?? .null)
                entry.append("rooms", zone["rooms"] ?? .array([]))
                entries.append(.object(entry))
            }
        }
        return ["zones": .array(sorted(entries))]
    }

    /// One group: its definition (`…/groups/<id>`: home, members with names) joined with its state
    /// (`…/groups/<id>/state`: connectivity, each member's, shared and mixed values).
    public static func group(definition: JSONValue, state: JSONValue?) -> JSONValue {
        var entry = JSONObject()
        entry.append("id", definition["id"] ?? .null)
        entry.append("name", definition["name"] ?? .null)
        entry.append("home", definition["home"] ?? .null)
        entry.append("connectivityState", state?["connectivityState"] ?? .string("unknown"))
        entry.append("dataSourceLocality", state?["dataSourceLocality"] ?? .string("unknown"))
        let states = state?["members"]?.arrayElements ?? []
        let members = (definition["members"]?.arrayElements ?? []).map { member -> JSONValue in
            var merged = JSONObject()
            merged.append("device", member["device"] ?? .null)
            merged.setIfPresent("deviceType", member["deviceType"])
            merged.setIfPresent("name", member["name"])
            let memberState = states.first {
                $0["device"] == member["device"] && $0["deviceType"] == member["deviceType"]
            }
            merged.append("connectivityState", memberState?["connectivityState"] ?? .string("unknown"))
            merged.append("dataSourceLocality", memberState?["dataSourceLocality"] ?? .string("unknown"))
            if memberState?["missing"] == .bool(true) { merged.append("missing", .bool(true)) }
            return .object(merged)
        }
        entry.append("members", .array(members))
        entry.append("values", state?["values"] ?? .object(JSONObject()))
        entry.append("mixed", state?["mixed"] ?? .array([]))
        return .object(entry)
    }

    /// `{"groups": [...]}` of ``group(definition:state:)`` entries.
    public static func groups(_ entries: [JSONValue]) -> JSONValue { ["groups": .array(sorted(entries))] }

    /// `{"scenes": [...]}` of scene documents (`…/scenes/<id>`).
    public static func scenes(_ documents: [JSONValue]) -> JSONValue { ["scenes": .array(sorted(documents))] }

    /// `{"automations": [...]}` of automation documents (`…/automations/<id>`).
    public static func automations(_ documents: [JSONValue]) -> JSONValue {
        ["automations": .array(sorted(documents))]
    }

    /// `{"links": [{name, state, devices, …}]}` from the health document's `links` (by name).
    public static func cloudLinks(health: JSONValue?) -> JSONValue {
        guard case .object(let links)? = health?["links"] else { return ["links": .array([])] }
        let entries = links.members.sorted { $0.key < $1.key }.map { name, value -> JSONValue in
            var entry: JSONObject = ["name": .string(name)]
            if case .object(let fields) = value {
                for (key, field) in fields.members where key != "name" { entry.append(key, field) }
            }
            return .object(entry)
        }
        return ["links": .array(entries)]
    }

    private static func sorted(_ entries: [JSONValue]) -> [JSONValue] {
        func key(_ entry: JSONValue) -> (String, String, String) {
            (
                entry["home"]?.stringValue?.lowercased() ?? "", entry["name"]?.stringValue?.lowercased() ?? "",
                entry["id"]?.stringValue ?? ""
            )
        }
        return entries.sorted { key($0) < key($1) }
    }
}
