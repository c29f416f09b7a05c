import ArgumentParser
import TraitBridgeJSON

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
