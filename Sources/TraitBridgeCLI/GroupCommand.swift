import ArgumentParser
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgePresentation

/// `traitbridge group …`: HomeKit's service groups — devices acted on together, with a state and
/// connectivity aggregated from their members like a device's from its traits.
struct GroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "group",
        abstract: "List, show, add, change or remove groups, and command every member at once.",
        discussion: """
            A group is a named set of devices of one home (DEVICE, or DEVICE/TYPE for one device type of a device). \
            Its connectivity is its members' aggregated: online when all are, partiallyOnline when some are, mixed \
            locality when they differ. `group command` and `group set` go to every member that has the trait and \
            answer per member: confirmed, assumed, refused (with its code) or notApplicable. Editing groups needs \
            the admin role; commanding them, the control role. Exit codes: 0 done (all members), 5 done for some \
            members, 1 refused or none done, 3 broker or bridge not reachable, 4 device not found.

            Examples:
              traitbridge group add "Living room lamps" "Sofa lamp" "Shelf light"
              traitbridge group command "Living room lamps" matter.OnOff.on
              traitbridge group set "Living room lamps" matter.LevelControl.currentLevel=128
            """,
        subcommands: [
            List.self, Show.self, Add.self, Members.self, RenameLayoutItem<GroupItem>.self,
            RemoveLayoutItem<GroupItem>.self, Command.self, Set.self,
        ]
    )

    /// Device names or ids (DEVICE/TYPE for one device type) as the bridge's members.
    static func members(_ devices: [String], snapshot: BridgeSnapshot, prefix: String) throws -> JSONValue {
        .array(
            try devices.map { text in
                if let slash = text.lastIndex(of: "/"),
                    snapshot.states[String(text[..<slash])] != nil
                        || snapshot.states.values.contains(where: { $0["name"]?.string == String(text[..<slash]) })
                {
                    let id = try snapshot.deviceID(String(text[..<slash]), prefix: prefix)
                    return ["device": .string(id), "deviceType": .string(String(text[text.index(after: slash)...]))]
                }
                return .string(try snapshot.deviceID(text, prefix: prefix))
            })
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a home's groups with their connectivity.")
        @OptionGroup var home: HomeOption
        @Flag(help: "Print the list as JSON, as the HTTP API answers GET /api/v1/groups.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let homes = LayoutRequest.homes(snapshot, home: self.home.home)
            if json {
                let ids = homes.flatMap { $0["groups"]?.elements.compactMap { $0["id"]?.string } ?? [] }
                let entries = ids.compactMap { id in
                    snapshot.groups[id].map {
                        LayoutLists.group(definition: $0.value, state: snapshot.groupStates[id]?.value)
                    }
                }
                return print(LayoutLists.groups(entries).serialized(.pretty))
            }
            var rows: [[String]] = []
            for home in homes {
                for entry in home["groups"]?.elements ?? [] {
                    let id = entry["id"]?.string ?? ""
                    let state = snapshot.groupStates[id]
                    let members = snapshot.groups[id]?["members"]?.elements.count ?? 0
                    rows.append([
                        entry["name"]?.string ?? "?", home["name"]?.string ?? "?", String(members),
                        state?["connectivityState"]?.string ?? "unknown", state?["dataSourceLocality"]?.string ?? "",
                    ])
                }
            }
            print(LayoutRequest.table(["GROUP", "HOME", "MEMBERS", "CONNECTIVITY", "LOCALITY"], rows))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a group's members, their connectivity and shared values.")
        @Argument(help: "The group, by name or id.") var group: String
        @Flag(help: "Print the group's state document as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let key = group.lowercased()
            guard
                let (id, definition) = snapshot.groups.first(where: {
                    $0.key == group || $0.value["name"]?.string?.lowercased() == key
                })
            else {
                printError("error: no group '\(group)'; `traitbridge group list` lists them")
                throw ExitCode(4)
            }
            let state = snapshot.groupStates[id]
            if json { return print((state ?? definition).value.serialized(.pretty)) }
            print(
                "\(definition["name"]?.string ?? id) (\(id)) in \(definition["home"]?.string ?? "?"): "
                    + "\(state?["connectivityState"]?.string ?? "unknown"), "
                    + "\(state?["dataSourceLocality"]?.string ?? "?")"
            )
            for member in state?["members"]?.elements ?? [] {
                let device = member["device"]?.string ?? "?"
                let name = snapshot.states[device]?["name"]?.string ?? device
                let type = member["deviceType"]?.string.map { "/\($0)" } ?? ""
                print("  \(name)\(type): \(member["connectivityState"]?.string ?? "unknown")")
            }
            // The values all members share, in people's words (the metadata of a member that has it).
            let descriptions = (state?["members"]?.elements ?? []).compactMap { member in
                member["device"]?.string.flatMap { snapshot.descriptions[$0] }
            }
            for (key, value) in state?["values"]?.members ?? [] {
                guard let dot = key.lastIndex(of: ".") else { continue }
                let trait = String(key[..<dot])
                let attribute = String(key[key.index(after: dot)...])
                let metadata = descriptions.lazy.compactMap {
                    PeoplesWords.metadata($0, trait: trait, attribute: attribute)
                }.first
                let words = PeoplesWords.text(value.value, trait: trait, attribute: attribute, metadata: metadata)
                print("  \(PeoplesWords.presenter.name(of: key)): \(words)  (\(key) = \(value.value.serialized()))")
            }
            for attribute in state?["mixed"]?.elements.compactMap(\.string) ?? [] { print("  \(attribute) = mixed") }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a group of devices.")
        @Argument(help: "The new group's name.") var name: String
        @Argument(help: "Its members: device names or ids, DEVICE/TYPE for one device type.") var devices: [String] = []
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let members = try GroupCommand.members(devices, snapshot: snapshot, prefix: connection.prefix)
            try LayoutRequest.send(
                "group-add", [("name", .string(name)), ("members", members)], home: home.home, connection: connection)
            print("added group '\(name)' with \(devices.count) member\(devices.count == 1 ? "" : "s")")
        }
    }

    struct Members: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a group's members (replacing them).")
        @Argument(help: "The group, by name or id.") var group: String
        @Argument(help: "Its members: device names or ids, DEVICE/TYPE for one device type.") var devices: [String] = []
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let members = try GroupCommand.members(devices, snapshot: snapshot, prefix: connection.prefix)
            try LayoutRequest.send(
                "group-members", [("group", .string(group)), ("members", members)], home: home.home,
                connection: connection)
            print("group '\(group)' has \(devices.count) member\(devices.count == 1 ? "" : "s")")
        }
    }

    struct Command: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a trait command on every member that has the trait.")
        @Argument(help: "The group, by name or id.") var group: String
        @Argument(help: "TRAIT.COMMAND, e.g. matter.OnOff.on.") var command: String
        @Argument(help: "Command arguments as key=value.") var arguments: [String] = []
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            guard let dot = command.lastIndex(of: "."), command[..<dot].contains(".") else {
                throw ValidationError("'\(command)' is not TRAIT.COMMAND; write e.g. matter.OnOff.on")
            }
            var values = JSONObject()
            for argument in arguments {
                guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
                    throw ValidationError("argument '\(argument)' is not key=value")
                }
                values[String(argument[..<equals])] = CommandSender.value(
                    String(argument[argument.index(after: equals)...]))
            }
            try GroupCommand.fanOut(
                group,
                [
                    ("trait", .string(String(command[..<dot]))),
                    ("command", .string(String(command[command.index(after: dot)...]))),
                    ("arguments", .object(values)),
                ],
                home: home.home, json: json, connection: connection)
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an attribute on every member that has the trait.")
        @Argument(help: "The group, by name or id.") var group: String
        @Argument(help: "TRAIT.ATTRIBUTE=VALUE, e.g. matter.LevelControl.currentLevel=128.") var assignment: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            guard let equals = assignment.firstIndex(of: "="), let dot = assignment[..<equals].lastIndex(of: "."),
                assignment[..<dot].contains(".")
            else {
                throw ValidationError(
                    "'\(assignment)' is not TRAIT.ATTRIBUTE=VALUE; write e.g. matter.OnOff.onOff=true")
            }
            try GroupCommand.fanOut(
                group,
                [
                    ("trait", .string(String(assignment[..<dot]))),
                    ("attribute", .string(String(assignment[assignment.index(after: dot)..<equals]))),
                    ("value", CommandSender.value(String(assignment[assignment.index(after: equals)...]))),
                ],
                home: home.home, json: json, connection: connection)
        }
    }

    static func fanOut(
        _ group: String, _ fields: [(String, JSONValue)], home: String?, json: Bool, connection: ConnectionOptions
    ) throws {
        var object = JSONObject()
        if let home { object.append("home", .string(home)) }
        object.append("group", .string(group))
        for (key, value) in fields { object.append(key, value) }
        let (bytes, answer) = try BridgeRequest.json(
            "group-command", payload: JSONValue.object(object).serializedBytes(), connection: connection)
        try FanOutReport.print(answer, json: json, bytes: bytes)
    }
}
