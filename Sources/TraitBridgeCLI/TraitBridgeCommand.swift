public import ArgumentParser
import TraitBridgeEmbedded

/// The `traitbridge` command tree.
///
/// Exit codes scripts can rely on: 0 success, 1 failure (for `mappings validate`: problems found),
/// 2 usage error, 3 the broker or the bridge cannot be reached, 4 no such device.
/// See ``run(arguments:)``.
public struct TraitBridgeCommand: AsyncParsableCommand {
    /// `0.3.0 (af6982de75fe)`: the release and the commit the binary was built from.
    public static let version = "\(EmbeddedMappings.version) (\(EmbeddedMappings.commit))"

    public static let configuration = CommandConfiguration(
        commandName: "traitbridge",
        abstract: "Bridge MQTT devices into one model of device types and traits, with connectivity and its reasons.",
        discussion: """
            Examples:
              traitbridge demo
              traitbridge serve --broker mqtt://127.0.0.1:1883
              traitbridge status
              traitbridge show "Hall light"
              traitbridge command "Hall light" matter.OnOff.on
              traitbridge rename shellyplus1pm-4417939a5610 "Garage switch"
              traitbridge move "Garage switch" Garage
              traitbridge sync import cloud-sync.json
              traitbridge mappings validate

            Exit codes: 0 ok, 1 error, 2 usage, 3 broker or bridge not reachable, 4 device not found.
            Colour only on a terminal; NO_COLOR=1 turns it off.
            Shell completions: traitbridge --generate-completion-script bash|zsh|fish
            """,
        version: version,
        subcommands: [
            ServeCommand.self, StatusCommand.self, DevicesCommand.self, ShowCommand.self, WatchCommand.self,
            HistoryCommand.self,
            CommandCommand.self, SetCommand.self, CameraCommand.self, RenameCommand.self, MoveCommand.self,
            HomeCommand.self, RoomCommand.self, ZoneCommand.self, GroupCommand.self, SceneCommand.self,
            AutomationCommand.self,
            SyncCommand.self, QueryCommand.self, ExecuteCommand.self, CloudCommand.self, HomeKitCommand.self,
            MatterCommand.self,
            MappingsCommand.self,
            SimulateCommand.self, DemoCommand.self,
        ]
    )

    public init() {}

    /// Parses `arguments`, runs the command and exits with the project's exit codes
    /// (argument-parser's usage error, 64, becomes 2 like most Unix tools).
    public static func run(arguments: [String]? = nil) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Self.exit()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                if !message.isEmpty { printError(message) }
                Self.exit(withError: ExitCode(2))
            }
            Self.exit(withError: error)
        }
    }
}

func printError(_ message: String) {
    var standardError = StandardError()
    print(message, to: &standardError)
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandleWriter.write(string, to: 2)
    }
}
