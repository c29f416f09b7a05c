import ArgumentParser
import Foundation
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// The home above the demo's devices, made as a user would with `traitbridge home location`,
/// `zone add`, `group add` and `scene add` (the automations come from examples/automations/):
/// a zone, a group of lights, a user scene and the built-in Good Night filled in.
enum DemoLayout {
    static let zoneRooms = ["Hall", "Kitchen", "Living room"]
    static let lights = ["Hall light", "Desk lamp", "Reading lamp", "Sofa lamp"]

    /// Sends the requests; returns the lines that say what was made.
    static func build(in bridge: Bridge, connection: ConnectionOptions) throws -> [String] {
        let graph = bridge.snapshot.graph
        func send(_ operation: String, _ object: JSONObject) throws {
            _ = try BridgeRequest.json(
                operation, payload: JSONValue.object(object).serializedBytes(), connection: connection)
        }
        func id(_ name: String) -> String? { graph.devices.values.first { $0.name == name }?.id.rawValue }
        // The sun for the back door automation: the demo's home is in Berlin, on this machine's clock.
        try send(
            "home-location",
            ["timeZone": .string(TimeZone.current.identifier), "latitude": 52.52, "longitude": 13.405])
        let rooms = zoneRooms.filter { graph.room(named: $0, in: graph.primaryHome.id) != nil }
        try send("zone-add", ["name": "Downstairs", "rooms": .array(rooms.map { .string($0) })])
        let members = lights.compactMap(id)
        try send("group-add", ["name": "Downstairs lights", "members": .array(members.map { .string($0) })])
        func action(_ device: String, _ command: String) -> JSONValue {
            ["device": .string(device), "trait": "matter.OnOff", "command": .string(command)]
        }
        var movie: [JSONValue] = []
        if let hall = id("Hall light") { movie.append(action(hall, "off")) }
        if let desk = id("Desk lamp") { movie.append(action(desk, "on")) }
        try send("scene-add", ["name": "Movie night", "actions": .array(movie)])
        try send("scene-actions", ["scene": "Good Night", "actions": .array(members.map { action($0, "off") })])
        return [
            "== made the home above the devices, as `traitbridge zone add`, `group add` and `scene add` would: "
                + "zone Downstairs (\(rooms.joined(separator: ", "))), group Downstairs lights "
                + "(\(members.count) lights), scenes Movie night and Good Night; automations from examples/automations/"
        ]
    }

    /// What `demo --once` shows of the layout, read back from the broker like the CLI reads it.
    static func summary(_ snapshot: BridgeSnapshot) -> [String] {
        var lines: [String] = []
        for home in snapshot.homes.values.sorted(by: { ($0["name"]?.string ?? "") < ($1["name"]?.string ?? "") }) {
            for zone in home["zones"]?.elements ?? [] {
                let rooms = zone["rooms"]?.elements.compactMap(\.string).joined(separator: ", ") ?? ""
                lines.append("zone \(zone["name"]?.string ?? "?"): \(rooms)")
            }
        }
        for (id, group) in snapshot.groups.sorted(by: { $0.key < $1.key }) {
            let state = snapshot.groupStates[id]
            lines.append(
                "group \(group["name"]?.string ?? id): \(group["members"]?.elements.count ?? 0) members, "
                    + "\(state?["connectivityState"]?.string ?? "unknown")")
        }
        for scene in snapshot.scenes.values.sorted(by: { ($0["name"]?.string ?? "") < ($1["name"]?.string ?? "") })
        where !(scene["actions"]?.elements.isEmpty ?? true) {
            lines.append("scene \(scene["name"]?.string ?? "?"): \(scene["actions"]?.elements.count ?? 0) actions")
        }
        for automation in snapshot.automations.values.sorted(by: {
            ($0["name"]?.string ?? "") < ($1["name"]?.string ?? "")
        }) {
            let when = automation["triggers"]?.elements.compactMap(\.string).joined(separator: " or ") ?? ""
            let next = automation["nextFire"]?.string.map { ", next \($0)" } ?? ""
            lines.append("automation \(automation["name"]?.string ?? "?"): when \(when)\(next)")
        }
        return lines
    }
}
