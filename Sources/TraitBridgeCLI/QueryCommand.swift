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
