import ArgumentParser
import TraitBridgeJSON

/// `traitbridge query import|export`: Google Cloud-to-cloud QUERY responses in and out.
struct QueryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Import or export Google Cloud-to-cloud QUERY responses.",
        subcommands: [QueryImportCommand.self, QueryExportCommand.self]
    )
}

/// `traitbridge query import FILE|-`.
struct QueryImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Apply a QUERY response (or EXECUTE response, or Report State) to the imported cloud devices.",
        discussion: """
            Values and connectivity of the cloud traits change: online:false or status OFFLINE makes them offline with that reason (and Google's errorCode). Exit codes: 0 applied, 1 not a QUERY response, 3 the bridge is not reachable.

            Examples:
              traitbridge query import query.json
              traitbridge query import - < query.json
            """
    )

    @Argument(help: "The QUERY response file, or - for standard input.")
    var file: String
    @Flag(help: "Print JSON instead of text.")
    var json = false
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let bytes = try BridgeRequest.input(file)
        let (answer, root) = try BridgeRequest.json("query-import", payload: bytes, connection: connection)
        if json { return printJSON(answer) }
        let updated = root["updated"]?.elements.compactMap(\.string) ?? []
        print("updated \(updated.count) device\(updated.count == 1 ? "" : "s")" + (updated.isEmpty ? "" : ": " + updated.joined(separator: ", ")))
        let unknown = root["unknownIds"]?.elements.compactMap(\.string) ?? []
        if !unknown.isEmpty { print("not imported by any SYNC (ignored): \(unknown.joined(separator: ", "))") }
        for problem in root["problems"]?.elements.compactMap(\.string) ?? [] { print(problem) }
    }
}

/// `traitbridge query export`.
struct QueryExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print a QUERY response for the devices the running bridge holds.",
        discussion: """
            Without --request, every device; with a QUERY request file, the devices it names.

            Examples:
              traitbridge query export > query.json
              traitbridge query export --request query-request.json
            """
    )

    @Option(help: "A QUERY request naming the devices (default: all devices).")
    var request: String?
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let payload = try request.map(BridgeRequest.input) ?? []
        let (answer, _) = try BridgeRequest.json("query-export", payload: payload, connection: connection)
        printJSON(answer)
    }
}

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
