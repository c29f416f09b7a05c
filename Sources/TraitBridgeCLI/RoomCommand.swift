import ArgumentParser
import TraitBridgeEngine
import TraitBridgeJSON

/// `traitbridge room list|add|rename|remove`: the rooms of a home. `traitbridge move` puts a
/// device in one (making it when needed).
struct RoomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room",
        abstract: "List, add, rename or remove the rooms of a home.",
        discussion: """
            Each home has a default room, "Entire Home", which cannot be removed; removing another room returns its \
            devices there and takes it out of its zones. Room names are unique within a home. Changing rooms needs \
            the admin role. Exit codes: 0 done, 1 refused (the message says why), 3 broker or bridge not reachable.

            Examples:
              traitbridge room list
              traitbridge room add Kitchen --home "Beach House"
              traitbridge room rename Kitchen "Kid's Room"
            """,
        subcommands: [List.self, Add.self, RenameLayoutItem<RoomItem>.self, RemoveLayoutItem<RoomItem>.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a home's rooms with their zones and devices.")
        @OptionGroup var home: HomeOption
        @Flag(help: "Print the list as JSON, as the HTTP API answers GET /api/v1/rooms.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            func devices(home: String, room: String) -> Int {
                snapshot.descriptions.values.filter { $0["home"]?.string == home && $0["room"]?.string == room }.count
            }
            if json {
                let homes = LayoutRequest.homes(snapshot, home: home.home).map(\.value)
                return print(LayoutLists.rooms(homes: homes, deviceCount: devices).serialized(.pretty))
            }
            var rows: [[String]] = []
            for home in LayoutRequest.homes(snapshot, home: self.home.home) {
                let homeName = home["name"]?.string ?? "?"
                for room in home["rooms"]?.elements ?? [] {
                    let name = room["name"]?.string ?? "?"
                    let zones = (home["zones"]?.elements ?? []).filter {
                        $0["rooms"]?.elements.contains { $0.string == name } == true
                    }.compactMap { $0["name"]?.string }
                    let count = devices(home: homeName, room: name)
                    rows.append([name, homeName, zones.joined(separator: ", "), String(count)])
                }
            }
            print(LayoutRequest.table(["ROOM", "HOME", "ZONES", "DEVICES"], rows))
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a room to a home.")
        @Argument(help: "The new room's name.") var name: String
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let answer = try LayoutRequest.send(
                "room-add", [("name", .string(name))], home: home.home, connection: connection)
            print("added room '\(name)' to '\(answer["home"]?["name"]?.string ?? "?")'")
        }
    }
}
