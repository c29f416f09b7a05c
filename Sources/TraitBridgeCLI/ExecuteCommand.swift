import ArgumentParser
import TraitBridgeJSON

/// `traitbridge execute FILE|-`.
struct ExecuteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "execute",
        abstract: "Run a Google EXECUTE request through the running bridge and print the EXECUTE response.",
        discussion: """
            Every command goes through the same path as MQTT commands (validated against the trait metadata, refused when offline) and the response groups devices by outcome: SUCCESS with the confirmed new state, PENDING when the device has not echoed it yet, or an errorCode (deviceNotFound, deviceOffline, valueOutOfRange, functionNotSupported).

            Examples:
              traitbridge execute execute-request.json
              echo '{"inputs":[…]}' | traitbridge execute -
            """
    )

    @Argument(help: "The EXECUTE request file, or - for standard input.")
    var file: String
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let bytes = try BridgeRequest.input(file)
        let (answer, _) = try BridgeRequest.json("execute", payload: bytes, connection: connection)
        printJSON(answer)
    }
}
