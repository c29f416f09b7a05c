import ArgumentParser
import TraitBridgeEngine
import TraitBridgeJSON

/// `traitbridge scene …`: HomeKit's action sets — named lists of attribute writes and trait
/// commands. Every home has four built-in ones (Good Morning, Good Night, Leave Home, Arrive
/// Home); `capture` makes one from what a room, zone or group shows now.
struct SceneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scene",
        abstract: "List, show, add, capture, change or remove scenes, and run them.",
        discussion: """
            A scene is a list of actions, each a trait command or an attribute write on a device, written as in a \
            device command with "device" added: {"device": "z2m-0x…", "trait": "matter.OnOff", "command": "on"} or \
            {"device": …, "trait": "matter.LevelControl", "attribute": "currentLevel", "value": 128}. `scene run` \
            sends each device its actions in one command and answers per action; an action on an offline trait is \
            skipped with the reason, the rest run. Built-in scenes can be renamed and filled, not removed. Editing \
            scenes needs the admin role; running them, the control role. Exit codes: 0 done (every action), 5 some \
            actions done, 1 refused or none done, 3 broker or bridge not reachable.

            Examples:
              traitbridge scene capture "Movie night" --room "Living room"
              traitbridge scene add Evening --actions evening.json
              traitbridge scene run "Movie night"
            """,
        subcommands: [
            List.self, Show.self, Add.self, Capture.self, Actions.self, RenameLayoutItem<SceneItem>.self,
            RemoveLayoutItem<SceneItem>.self, Run.self,
        ]
    )

    static func find(_ scene: String, in snapshot: BridgeSnapshot) throws -> (id: String, scene: JSON) {
        let key = scene.lowercased()
        guard
            let found = snapshot.scenes.first(where: {
                $0.key == scene || $0.value["name"]?.string?.lowercased() == key
            })
        else {
            printError("error: no scene '\(scene)'; `traitbridge scene list` lists them")
            throw ExitCode(4)
        }
        return (found.key, found.value)
    }

    /// The actions of a file (`-`: standard input): a JSON array, or an object with "actions".
    static func actions(_ path: String) throws -> JSONValue {
        let bytes = try BridgeRequest.input(path)
        let root: JSON
        do { root = try JSONDocument.parse(bytes, maxDepth: 16).root } catch {
            throw ValidationError("\(path): \(error)")
        }
        if root.kind == .array { return root.value }
        guard let actions = root["actions"], actions.kind == .array else {
            throw ValidationError("\(path): give a JSON array of actions, or an object with \"actions\"")
        }
        return actions.value
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a home's scenes with their last run.")
        @OptionGroup var home: HomeOption
        @Flag(help: "Print the list as JSON, as the HTTP API answers GET /api/v1/scenes.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let homes = LayoutRequest.homes(snapshot, home: self.home.home)
            if json {
                let ids = homes.flatMap { $0["scenes"]?.elements.compactMap { $0["id"]?.string } ?? [] }
                return print(LayoutLists.scenes(ids.compactMap { snapshot.scenes[$0]?.value }).serialized(.pretty))
            }
            var rows: [[String]] = []
            for home in homes {
                for entry in home["scenes"]?.elements ?? [] {
                    let scene = snapshot.scenes[entry["id"]?.string ?? ""]
                    let last = scene?["lastRun"].map { "\($0["status"]?.string ?? "?") at \($0["at"]?.string ?? "?")" }
                    rows.append([
                        entry["name"]?.string ?? "?", entry["kind"]?.string ?? "?",
                        String(scene?["actions"]?.elements.count ?? 0), last ?? "never",
                    ])
                }
            }
            print(LayoutRequest.table(["SCENE", "KIND", "ACTIONS", "LAST RUN"], rows))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a scene's actions and last run.")
        @Argument(help: "The scene, by name or id.") var scene: String
        @Flag(help: "Print the scene's document as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let (id, scene) = try SceneCommand.find(self.scene, in: snapshot)
            if json { return print(scene.value.serialized(.pretty)) }
            print(
                "\(scene["name"]?.string ?? id) (\(id), \(scene["kind"]?.string ?? "?")) "
                    + "in \(scene["home"]?.string ?? "?")"
            )
            for action in scene["actions"]?.elements ?? [] {
                let device = action["device"]?.string ?? "?"
                print("  \(snapshot.states[device]?["name"]?.string ?? device): \(FanOutReport.describe(action))")
            }
            if let last = scene["lastRun"] {
                print("last run \(last["at"]?.string ?? "?"): \(last["status"]?.string ?? "?")")
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a scene from a file of actions.")
        @Argument(help: "The new scene's name.") var name: String
        @Option(help: "A JSON file of actions (- for standard input).") var actions: String
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let answer = try LayoutRequest.send(
                "scene-add", [("name", .string(name)), ("actions", try SceneCommand.actions(actions))], home: home.home,
                connection: connection)
            print("added scene '\(name)' (\(answer["scene"]?["actions"]?.elements.count ?? 0) actions)")
        }
    }

    struct Capture: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a scene that sets what a room, zone or group shows now.")
        @Argument(help: "The new scene's name.") var name: String
        @Option(help: "Capture this room.") var room: String?
        @Option(help: "Capture this zone.") var zone: String?
        @Option(help: "Capture this group.") var group: String?
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func validate() throws {
            if [room, zone, group].compactMap({ $0 }).count != 1 {
                throw ValidationError("give one of --room, --zone, --group")
            }
        }

        func run() throws {
            let target: (String, String) =
                room.map { ("room", $0) } ?? zone.map { ("zone", $0) } ?? ("group", group ?? "")
            let answer = try LayoutRequest.send(
                "scene-capture", [("name", .string(name)), (target.0, .string(target.1))], home: home.home,
                connection: connection)
            let count = answer["scene"]?["actions"]?.elements.count ?? 0
            print("added scene '\(name)': \(count) action\(count == 1 ? "" : "s") from the \(target.0) '\(target.1)'")
        }
    }

    struct Actions: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace a scene's actions (built-in scenes too).")
        @Argument(help: "The scene, by name or id.") var scene: String
        @Option(help: "A JSON file of actions (- for standard input).") var actions: String
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let answer = try LayoutRequest.send(
                "scene-actions", [("scene", .string(scene)), ("actions", try SceneCommand.actions(actions))],
                home: home.home, connection: connection)
            print("scene '\(scene)' has \(answer["scene"]?["actions"]?.elements.count ?? 0) actions")
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run a scene and print each action's outcome.")
        @Argument(help: "The scene, by name or id.") var scene: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var home: HomeOption
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            var object = JSONObject()
            if let home = home.home { object.append("home", .string(home)) }
            object.append("scene", .string(scene))
            let (bytes, answer) = try BridgeRequest.json(
                "scene-run", payload: JSONValue.object(object).serializedBytes(), connection: connection)
            try FanOutReport.print(answer, json: json, bytes: bytes)
        }
    }
}
