import ArgumentParser
import TraitBridgeJSON

/// `traitbridge home list|add|rename|remove|primary`: the homes the bridge holds (HomeKit's homes,
/// Google's structures). One is primary: new devices go there.
struct HomeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "home",
        abstract: "List, add, rename or remove homes, or choose the primary one.",
        discussion: """
            Every device is in exactly one home and one room; a new device goes to the primary home's "Entire Home". \
            Removing a home moves its devices to the primary home. Names hold letters, digits, spaces and \
            apostrophes and are compared ignoring case, spaces and apostrophes. Changing homes needs the admin role. \
            Exit codes: 0 done, 1 refused (the message says why), 3 broker or bridge not reachable.

            Examples:
              traitbridge home list
              traitbridge home add "Beach House"
              traitbridge home primary "Beach House"
            """,
        subcommands: [List.self, Add.self, Rename.self, Remove.self, Primary.self, Location.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the homes with their rooms, zones, groups and scenes.")
        @Flag(help: "Print the homes' retained documents as a JSON array.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let homes = snapshot.homes.values.sorted { ($0["name"]?.string ?? "") < ($1["name"]?.string ?? "") }
            if json { return print(JSONValue.array(homes.map(\.value)).serialized(.pretty)) }
            let rows = homes.map { home -> [String] in
                let name = home["name"]?.string ?? "?"
                let devices = snapshot.descriptions.values.filter { $0["home"]?.string == name }.count
                return [
                    (home["primary"]?.bool == true ? "* " : "  ") + name, home["id"]?.string ?? "?",
                    String(home["rooms"]?.elements.count ?? 0), String(home["zones"]?.elements.count ?? 0),
                    String(home["groups"]?.elements.count ?? 0), String(home["scenes"]?.elements.count ?? 0),
                    String(devices),
                ]
            }
            print(LayoutRequest.table(["  HOME", "ID", "ROOMS", "ZONES", "GROUPS", "SCENES", "DEVICES"], rows))
            print("\(homes.count) home\(homes.count == 1 ? "" : "s") (* primary)")
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a home (with its default room and built-in scenes).")
        @Argument(help: "The new home's name.") var name: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let answer = try LayoutRequest.send(
                "home-add", [("name", .string(name))], json: json, connection: connection)
            if !json { print("added home '\(name)' (\(answer["home"]?["id"]?.string ?? "?"))") }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a home.")
        @Argument(help: "The home, by name or id.") var home: String
        @Argument(help: "The new name.") var name: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send(
                "home-rename", [("name", .string(name))], home: home, json: json, connection: connection)
            if !json { print("home '\(home)' is now '\(name)'") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a home; its devices move to the primary home.")
        @Argument(help: "The home, by name or id.") var home: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let answer = try LayoutRequest.send("home-remove", [], home: home, json: json, connection: connection)
            guard !json else { return }
            let moved = answer["moved"]?.elements.count ?? 0
            print(
                "removed home '\(home)'; \(moved) device\(moved == 1 ? "" : "s") moved to "
                    + "'\(answer["primary"]?.string ?? "?")'"
            )
        }
    }

    struct Primary: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make a home the primary one (new devices go there).")
        @Argument(help: "The home, by name or id.") var home: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send("home-primary", [], home: home, json: json, connection: connection)
            if !json { print("'\(home)' is the primary home") }
        }
    }

    struct Location: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a home's time zone and place (for its automations' clocks and the sun).")
        @Argument(help: "The home, by name or id.") var home: String
        @Option(help: "An IANA time zone, e.g. Europe/Berlin.") var timeZone: String
        @Option(help: "Latitude in degrees, north positive (for sunrise and sunset).") var latitude: Double?
        @Option(help: "Longitude in degrees, east positive.") var longitude: Double?
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            var fields: [(String, JSONValue)] = [("timeZone", .string(timeZone))]
            if let latitude, latitude.isFinite { fields.append(("latitude", .double(latitude))) }
            if let longitude, longitude.isFinite { fields.append(("longitude", .double(longitude))) }
            try LayoutRequest.send("home-location", fields, home: home, connection: connection)
            let place = latitude.flatMap { lat in longitude.map { ", \(lat), \($0)" } } ?? ""
            print("home '\(home)' is in \(timeZone)\(place)")
        }
    }
}
