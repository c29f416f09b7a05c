import ArgumentParser
import TraitBridgeJSON

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
