import ArgumentParser
import TraitBridgeEngine
import TraitBridgeJSON

/// `traitbridge zone list|add|rename|remove|rooms`: named sets of rooms ("Upstairs"); a room may
/// be in any number of zones, and `status --zone` and `devices --zone` filter by them.
struct ZoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zone",
        abstract: "List, add, rename or remove zones, or set a zone's rooms.",
        discussion: """
            A zone is a named set of rooms of one home; a room may be in many zones. Zone names are unique within a \
            home. Changing zones needs the admin role. Exit codes: 0 done, 1 refused (the message says why), 3 \
            broker or bridge not reachable.

            Examples:
              traitbridge zone add Downstairs Hall Kitchen
              traitbridge zone rooms Downstairs Hall Kitchen "Living room"
              traitbridge devices --zone Downstairs
            """,
        subcommands: [
            List.self, Add.self, RenameLayoutItem<ZoneItem>.self, RemoveLayoutItem<ZoneItem>.self, Rooms.self,
        ]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a home's zones and their rooms.")
        @OptionGroup var home: HomeOption
        @Flag(help: "Print the list as JSON, as the HTTP API answers GET /api/v1/zones.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            if json {
                let homes = LayoutRequest.homes(snapshot, home: home.home).map(\.value)
                return print(LayoutLists.zones(homes: homes).serialized(.pretty))
            }
            var rows: [[String]] = []
            for home in LayoutRequest.homes(snapshot, home: self.home.home) {
                for zone in home["zones"]?.elements ?? [] {
                    let rooms = zone["rooms"]?.elements.compactMap(\.string) ?? []
                    rows.append([
                        zone["name"]?.string ?? "?", home["name"]?.string ?? "?", rooms.joined(separator: ", "),
                    ])
                }
            }
            print(LayoutRequest.table(["ZONE", "HOME", "ROOMS"], rows))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a zone, with its rooms.")
        @Argument(help: "The new zone's name.") var name: String
        @Argument(help: "Its rooms, by name or id.") var rooms: [String] = []
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send(
                "zone-add", [("name", .string(name)), ("rooms", .array(rooms.map { .string($0) }))], home: home.home,
                connection: connection)
            print("added zone '\(name)' (\(rooms.isEmpty ? "no rooms yet" : rooms.joined(separator: ", ")))")
        }
    }

    struct Rooms: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a zone's rooms (replacing them).")
        @Argument(help: "The zone, by name or id.") var zone: String
        @Argument(help: "Its rooms, by name or id (none: empty).") var rooms: [String] = []
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send(
                "zone-rooms", [("zone", .string(zone)), ("rooms", .array(rooms.map { .string($0) }))], home: home.home,
                connection: connection)
            print("zone '\(zone)': \(rooms.isEmpty ? "no rooms" : rooms.joined(separator: ", "))")
        }
    }
}
