import ArgumentParser
import TraitBridgeEngine
import TraitBridgeJSON

/// `traitbridge automation …`: HomeKit's triggers, conditions and actions — timers (HomeKit's
/// rules), calendar times, sunrise and sunset, attribute and connectivity events with hold
/// times — each run recorded with why it fired and each action's outcome.
struct AutomationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "automation",
        abstract: "List, show, add, enable, disable, run or remove automations, and read their history.",
        discussion: """
            An automation is a JSON definition: triggers (timer, calendar, solar, attribute, connectivity), \
            conditions (time, sun, attribute, connectivity) and actions (scene, command, set, notify), with an \
            optional end action ("end": {"after": 120, "actions": […]}); docs/home.md (Automations) has the format. \
            Definitions added here live in the registry; those of `serve --automations DIR` are read from their \
            files (enable, disable and remove them there). Timer and solar triggers use the home's time zone and \
            place (`traitbridge home location`). Editing and running automations needs the admin role. Exit codes: 0 \
            done, 1 refused (the message says why), 3 broker or bridge not reachable, 4 automation not found.

            Examples:
              traitbridge automation add --file back-door.json
              traitbridge automation list
              traitbridge automation history "Back door light"
            """,
        subcommands: [List.self, Show.self, History.self, Add.self, Enable.self, Disable.self, Run.self, Remove.self]
    )

    static func find(_ automation: String, in snapshot: BridgeSnapshot) throws -> (id: String, automation: JSON) {
        let key = automation.lowercased()
        guard
            let found = snapshot.automations.first(where: {
                $0.key == automation || $0.value["name"]?.string?.lowercased() == key
            })
        else {
            printError("error: no automation '\(automation)'; `traitbridge automation list` lists them")
            throw ExitCode(4)
        }
        return (found.key, found.value)
    }

    /// One line of a run: when, status, why, and what was skipped or refused.
    static func line(_ run: JSON) -> String {
        var text =
            "\(run["at"]?.string ?? "?")  \(run["status"]?.string ?? "?")\(run["end"]?.bool == true ? " (end)" : "")"
        text += ": \(run["reason"]?.string ?? "")"
        if let condition = run["summary"]?["condition"]?.string { text += "; not met: \(condition)" }
        for result in run["results"]?.elements ?? []
        where !["confirmed", "assumed"].contains(result["status"]?.string ?? "") {
            let who = result["name"]?.string ?? result["device"]?.string ?? "?"
            text += "; \(who) \(result["status"]?.string ?? "?"): \(result["message"]?.string ?? "")"
        }
        return text
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the automations with their next fire and last run.")
        @Flag(help: "Print the list as JSON, as the HTTP API answers GET /api/v1/automations.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            if json {
                return print(LayoutLists.automations(snapshot.automations.values.map(\.value)).serialized(.pretty))
            }
            let rows = snapshot.automations.values.sorted { ($0["name"]?.string ?? "") < ($1["name"]?.string ?? "") }
                .map {
                    automation -> [String] in
                    let last = automation["lastRun"].map {
                        "\($0["status"]?.string ?? "?") at \($0["at"]?.string ?? "?")"
                    }
                    return [
                        automation["name"]?.string ?? "?", automation["enabled"]?.bool == true ? "yes" : "no",
                        automation["nextFire"]?.string ?? "on events", last ?? "never",
                    ]
                }
            print(LayoutRequest.table(["AUTOMATION", "ENABLED", "NEXT FIRE", "LAST RUN"], rows))
            print("\(rows.count) automation\(rows.count == 1 ? "" : "s")")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an automation: triggers, conditions, actions.")
        @Argument(help: "The automation, by name or id.") var automation: String
        @Flag(help: "Print its document as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let (id, automation) = try AutomationCommand.find(self.automation, in: snapshot)
            if json { return print(automation.value.serialized(.pretty)) }
            print(
                "\(automation["name"]?.string ?? id) (\(id)) in \(automation["home"]?.string ?? "?"), "
                    + "\(automation["enabled"]?.bool == true ? "enabled" : "disabled"), "
                    + "from \(automation["origin"]?.string ?? "?")"
            )
            for (title, key) in [("when", "triggers"), ("if", "conditions"), ("do", "actions")] {
                for entry in automation[key]?.elements.compactMap(\.string) ?? [] { print("  \(title) \(entry)") }
            }
            if let end = automation["end"] {
                let actions = end["actions"]?.elements.compactMap(\.string).joined(separator: ", ") ?? ""
                print("  then after \(end["afterSeconds"]?.int64 ?? 0) s: \(actions)")
            }
            if let next = automation["nextFire"]?.string { print("next fire: \(next)") }
            if let last = automation["lastRun"] { print("last run: \(AutomationCommand.line(last))") }
        }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show an automation's last runs, newest first.")
        @Argument(help: "The automation, by name or id.") var automation: String
        @Flag(help: "Print the runs as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let snapshot = try BridgeSnapshot.readOrExit(connection)
            let (id, _) = try AutomationCommand.find(automation, in: snapshot)
            let runs = snapshot.automationHistories[id]?["runs"]?.elements ?? []
            if json { return print(JSONValue.array(runs.map(\.value)).serialized(.pretty)) }
            for run in runs { print(AutomationCommand.line(run)) }
            print("\(runs.count) run\(runs.count == 1 ? "" : "s") kept (at most 20)")
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an automation (or replace the one with its id).")
        @Option(help: "Its JSON definition (- for standard input).") var file: String
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let answer = try BridgeRequest.json(
                "automation-add", payload: try BridgeRequest.input(file), connection: connection
            ).root
            let automation = answer["automation"]
            let next = automation?["nextFire"]?.string.map { "; next fire \($0)" } ?? ""
            print(
                "added automation '\(automation?["name"]?.string ?? "?")' (\(automation?["id"]?.string ?? "?"))\(next)")
        }
    }

    struct Enable: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable an automation.")
        @Argument(help: "The automation, by name or id.") var automation: String
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send("automation-enable", [("automation", .string(automation))], connection: connection)
            print("automation '\(automation)' is enabled")
        }
    }

    struct Disable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Disable an automation (it stays, and fires nothing).")
        @Argument(help: "The automation, by name or id.") var automation: String
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send("automation-disable", [("automation", .string(automation))], connection: connection)
            print("automation '\(automation)' is disabled")
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run an automation's actions now (its conditions are not asked).")
        @Argument(help: "The automation, by name or id.") var automation: String
        @Flag(help: "Print the bridge's answer as JSON.") var json = false
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            let payload = JSONValue.object(["automation": .string(automation)]).serializedBytes()
            let (bytes, answer) = try BridgeRequest.json("automation-run", payload: payload, connection: connection)
            try FanOutReport.print(answer, json: json, bytes: bytes)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an automation and its history.")
        @Argument(help: "The automation, by name or id.") var automation: String
        @OptionGroup var connection: ConnectionOptions

        func run() throws {
            try LayoutRequest.send("automation-remove", [("automation", .string(automation))], connection: connection)
            print("removed automation '\(automation)'")
        }
    }
}
