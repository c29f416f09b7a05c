import ArgumentParser
import Foundation
import TraitBridgeJSON

/// `traitbridge devices`: the devices, filtered by room, type, trait, connectivity or source.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List devices, filtered by room, device type, trait, connectivity or source.",
        discussion: """
            Filters match case-insensitively; a type or trait matches by its full id or its name (DimmableLight, matter.OnOff). Sorted by room, then name. Exit codes: 0 ok, 3 broker not reachable.

            Examples:
              traitbridge devices --room Kitchen
              traitbridge devices --trait matter.OnOff --connectivity offline
              traitbridge devices --source zigbee2mqtt --json
            """
    )

    @Option(help: "Only devices in this room.") var room: String?
    @Option(help: "Only devices with this device type.") var type: String?
    @Option(help: "Only devices with this trait.") var trait: String?
    @Option(help: "Only devices with this connectivity: online, offline, partiallyOnline, unknown.") var connectivity:
        String?
    @Option(
        help:
            "Only devices fed by this source family: zigbee2mqtt, tasmota, shelly, homeassistant, generic, google-c2c.")
    var source: String?
    @OptionGroup var place: PlaceFilter
    @OptionGroup var connection: ConnectionOptions
    @Flag(
        help: ArgumentHelp(
            "Print a JSON array of {\"id\", \"name\", \"room\", \"types\", \"traits\", \"sources\", "
                + "\"connectivityState\", \"display\"}.")
    ) var json = false

    func validate() throws {
        if let connectivity, !["online", "offline", "partiallyOnline", "unknown"].contains(connectivity) {
            throw ValidationError(
                "--connectivity '\(connectivity)' is not one of online, offline, partiallyOnline, unknown")
        }
    }

    func run() throws {
        let snapshot = try BridgeSnapshot.readOrExit(connection)
        let entries = snapshot.states.map {
            Entry(id: $0.key, state: $0.value, description: snapshot.descriptions[$0.key])
        }
        .filter(matches).filter { snapshot.isIn($0.id, home: place.home, zone: place.zone) }
        .sorted {
            StatusRow.order(room: $0.room, name: $0.name, id: $0.id)
                < StatusRow.order(room: $1.room, name: $1.name, id: $1.id)
        }
        if json {
            print(JSONValue.array(entries.map(\.json)).serialized(.pretty), terminator: "")
            return
        }
        let header = ["ID", "NAME", "ROOM", "TYPES", "STATE", "SOURCES", "CONNECTIVITY"]
        let cells = entries.map {
            [
                $0.id, $0.name, $0.room, $0.types.map(Self.short).joined(separator: ","), $0.display,
                $0.sources.joined(separator: ","), $0.connectivity,
            ]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        for line in [header] + cells {
            print(
                line.enumerated().map { $1.padding(widths[$0]) }.joined(separator: "  ").trimmingCharacters(
                    in: .whitespaces))
        }
        print("\(entries.count) device\(entries.count == 1 ? "" : "s")")
    }

    private func matches(_ entry: Entry) -> Bool {
        func same(_ a: String, _ b: String) -> Bool {
            a.caseInsensitiveCompare(b) == .orderedSame || Self.short(a).caseInsensitiveCompare(b) == .orderedSame
        }
        if let room, entry.room.caseInsensitiveCompare(room) != .orderedSame { return false }
        if let type, !entry.types.contains(where: { same($0, type) }) { return false }
        if let trait, !entry.traits.contains(where: { same($0, trait) }) { return false }
        if let connectivity, entry.connectivity != connectivity { return false }
        if let source, !entry.sources.contains(where: { $0.caseInsensitiveCompare(source) == .orderedSame }) {
            return false
        }
        return true
    }

    /// `matter.DimmableLight` → `DimmableLight`.
    static func short(_ id: String) -> String { String(id.split(separator: ".").last ?? Substring(id)) }

    struct Entry {
        var id, name, room, connectivity: String
        /// What a person looks for first on the device, in their words (as `status`'s STATE).
        var display: String
        var types: [String]
        var traits: [String]
        var sources: [String]

        init(id: String, state: JSON, description: JSON?) {
            self.id = id
            name = state["name"]?.string ?? id
            room = description?["room"]?.string ?? "–"
            connectivity = state["connectivityState"]?.string ?? "unknown"
            display = PeoplesWords.headline(state: state, description: description)
            let typeMembers = state["types"]?.members ?? []
            // A device type once, though two endpoints of a device (a dual relay) have it.
            var types: [String] = []
            for case let type? in typeMembers.map({ $0.value["type"]?.string }) where !types.contains(type) {
                types.append(type)
            }
            self.types = types
            traits = Array(Set(typeMembers.flatMap { $0.value["traits"]?.members.map(\.key) ?? [] })).sorted()
            let sourceTexts = description?["sources"]?.elements.compactMap(\.string) ?? []
            sources = Array(Set(sourceTexts.map { String($0.prefix { $0 != "[" }) })).sorted()
        }

        var json: JSONValue {
            [
                "id": .string(id), "name": .string(name), "room": .string(room),
                "types": .array(types.map { .string($0) }),
                "traits": .array(traits.map { .string($0) }), "sources": .array(sources.map { .string($0) }),
                "connectivityState": .string(connectivity), "display": .string(display),
            ]
        }
    }
}
