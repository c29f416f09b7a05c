import Foundation
import Testing

/// The exact help of the layout and automation commands (what a user reads; change them on purpose).
@Suite("layout commands' help")
struct LayoutCommandHelpTests {
    static let help: [String: String] = [
        "home": """
        OVERVIEW: List, add, rename or remove homes, or choose the primary one.

        Every device is in exactly one home and one room; a new device goes to the
        primary home's "Entire Home". Removing a home moves its devices to the primary
        home. Names hold letters, digits, spaces and apostrophes and are compared
        ignoring case, spaces and apostrophes. Changing homes needs the admin role.
        Exit codes: 0 done, 1 refused (the message says why), 3 broker or bridge not
        reachable.

        Examples:
          traitbridge home list
          traitbridge home add "Beach House"
          traitbridge home primary "Beach House"

        USAGE: traitbridge home <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List the homes with their rooms, zones, groups and
                                  scenes.
          add                     Add a home (with its default room and built-in
                                  scenes).
          rename                  Rename a home.
          remove                  Remove a home; its devices move to the primary home.
          primary                 Make a home the primary one (new devices go there).
          location                Set a home's time zone and place (for its
                                  automations' clocks and the sun).

          See 'traitbridge help home <subcommand>' for detailed help.

        """,
        "room": """
        OVERVIEW: List, add, rename or remove the rooms of a home.

        Each home has a default room, "Entire Home", which cannot be removed; removing
        another room returns its devices there and takes it out of its zones. Room
        names are unique within a home. Changing rooms needs the admin role. Exit
        codes: 0 done, 1 refused (the message says why), 3 broker or bridge not
        reachable.

        Examples:
          traitbridge room list
          traitbridge room add Kitchen --home "Beach House"
          traitbridge room rename Kitchen "Kid's Room"

        USAGE: traitbridge room <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List a home's rooms with their zones and devices.
          add                     Add a room to a home.
          rename                  Rename a room.
          remove                  Remove a room; its devices return to the default room.

          See 'traitbridge help room <subcommand>' for detailed help.

        """,
        "zone": """
        OVERVIEW: List, add, rename or remove zones, or set a zone's rooms.

        A zone is a named set of rooms of one home; a room may be in many zones. Zone
        names are unique within a home. Changing zones needs the admin role. Exit
        codes: 0 done, 1 refused (the message says why), 3 broker or bridge not
        reachable.

        Examples:
          traitbridge zone add Downstairs Hall Kitchen
          traitbridge zone rooms Downstairs Hall Kitchen "Living room"
          traitbridge devices --zone Downstairs

        USAGE: traitbridge zone <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List a home's zones and their rooms.
          add                     Add a zone, with its rooms.
          rename                  Rename a zone.
          remove                  Remove a zone (its rooms stay).
          rooms                   Set a zone's rooms (replacing them).

          See 'traitbridge help zone <subcommand>' for detailed help.

        """,
        "group": """
        OVERVIEW: List, show, add, change or remove groups, and command every member at
        once.

        A group is a named set of devices of one home (DEVICE, or DEVICE/TYPE for one
        device type of a device). Its connectivity is its members' aggregated: online
        when all are, partiallyOnline when some are, mixed locality when they differ.
        `group command` and `group set` go to every member that has the trait and
        answer per member: confirmed, assumed, refused (with its code) or
        notApplicable. Editing groups needs the admin role; commanding them, the
        control role. Exit codes: 0 done (all members), 5 done for some members, 1
        refused or none done, 3 broker or bridge not reachable, 4 device not found.

        Examples:
          traitbridge group add "Living room lamps" "Sofa lamp" "Shelf light"
          traitbridge group command "Living room lamps" matter.OnOff.on
          traitbridge group set "Living room lamps" matter.LevelControl.currentLevel=128

        USAGE: traitbridge group <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List a home's groups with their connectivity.
          show                    Show a group's members, their connectivity and shared
                                  values.
          add                     Add a group of devices.
          members                 Set a group's members (replacing them).
          rename                  Rename a group.
          remove                  Remove a group (its devices stay).
          command                 Run a trait command on every member that has the
                                  trait.
          set                     Write an attribute on every member that has the trait.

          See 'traitbridge help group <subcommand>' for detailed help.

        """,
        "scene": """
        OVERVIEW: List, show, add, capture, change or remove scenes, and run them.

        A scene is a list of actions, each a trait command or an attribute write on a
        device, written as in a device command with "device" added: {"device":
        "z2m-0x…", "trait": "matter.OnOff", "command": "on"} or {"device": …, "trait":
        "matter.LevelControl", "attribute": "currentLevel", "value": 128}. `scene run`
        sends each device its actions in one command and answers per action; an action
        on an offline trait is skipped with the reason, the rest run. Built-in scenes
        can be renamed and filled, not removed. Editing scenes needs the admin role;
        running them, the control role. Exit codes: 0 done (every action), 5 some
        actions done, 1 refused or none done, 3 broker or bridge not reachable.

        Examples:
          traitbridge scene capture "Movie night" --room "Living room"
          traitbridge scene add Evening --actions evening.json
          traitbridge scene run "Movie night"

        USAGE: traitbridge scene <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List a home's scenes with their last run.
          show                    Show a scene's actions and last run.
          add                     Add a scene from a file of actions.
          capture                 Add a scene that sets what a room, zone or group
                                  shows now.
          actions                 Replace a scene's actions (built-in scenes too).
          rename                  Rename a scene.
          remove                  Remove a user scene.
          run                     Run a scene and print each action's outcome.

          See 'traitbridge help scene <subcommand>' for detailed help.

        """,
        "automation": """
        OVERVIEW: List, show, add, enable, disable, run or remove automations, and read
        their history.

        An automation is a JSON definition: triggers (timer, calendar, solar,
        attribute, connectivity), conditions (time, sun, attribute, connectivity) and
        actions (scene, command, set, notify), with an optional end action ("end":
        {"after": 120, "actions": […]}); docs/home.md (Automations) has the format.
        Definitions added here live in the registry; those of `serve --automations DIR`
        are read from their files (enable, disable and remove them there). Timer and
        solar triggers use the home's time zone and place (`traitbridge home
        location`). Editing and running automations needs the admin role. Exit codes: 0
        done, 1 refused (the message says why), 3 broker or bridge not reachable, 4
        automation not found.

        Examples:
          traitbridge automation add --file back-door.json
          traitbridge automation list
          traitbridge automation history "Back door light"

        USAGE: traitbridge automation <subcommand>

        OPTIONS:
          --version               Show the version.
          -h, --help              Show help information.

        SUBCOMMANDS:
          list                    List the automations with their next fire and last
                                  run.
          show                    Show an automation: triggers, conditions, actions.
          history                 Show an automation's last runs, newest first.
          add                     Add an automation (or replace the one with its id).
          enable                  Enable an automation.
          disable                 Disable an automation (it stays, and fires nothing).
          run                     Run an automation's actions now (its conditions are
                                  not asked).
          remove                  Remove an automation and its history.

          See 'traitbridge help automation <subcommand>' for detailed help.

        """,
        "group command": """
        OVERVIEW: Run a trait command on every member that has the trait.

        USAGE: traitbridge group command [<options>] <group> <command> [<arguments> ...]

        ARGUMENTS:
          <group>                 The group, by name or id.
          <command>               TRAIT.COMMAND, e.g. matter.OnOff.on.
          <arguments>             Command arguments as key=value.

        OPTIONS:
          --json                  Print the bridge's answer as JSON.
          --home <home>           The home, by name or id (default: the primary home).
          --broker <broker>       Broker URL (default: $TRAITBRIDGE_BROKER, else
                                  mqtt://127.0.0.1:1883).
          --prefix <prefix>       Topic prefix of the bridge. (default: traitbridge)
          --timeout <timeout>     Seconds to wait for the broker and for answers.
                                  (default: 10)
          --username <username>   User name on the broker (overrides one in the URL).
          --password-file <password-file>
                                  File holding the broker password (default:
                                  $TRAITBRIDGE_PASSWORD).
          --ca-file <ca-file>     CA certificates (PEM) that sign an mqtts:// broker's
                                  certificate.
          --cert-file <cert-file> Client certificate (PEM) for an mqtts:// broker that
                                  asks for one.
          --key-file <key-file>   Key (PEM) of the client certificate.
          --version               Show the version.
          -h, --help              Show help information.


        """,
    ]

    @Test(
        "help for home, room, zone, group, scene, automation and group command is exact", arguments: help.keys.sorted())
    func exact(command: String) throws {
        let result = try CommandRunner.run(
            command.split(separator: " ").map(String.init) + ["--help"], environment: ["COLUMNS": "80"])
        #expect(result.exitCode == 0)
        #expect(result.standardOutput == Self.help[command], "\(result.standardOutput)")
    }
}
