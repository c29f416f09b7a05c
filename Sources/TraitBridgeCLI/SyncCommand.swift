import ArgumentParser
import Foundation
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// `traitbridge sync import|export`: Google Cloud-to-cloud SYNC responses in and out.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Import or export Google Cloud-to-cloud SYNC responses.",
        subcommands: [SyncImportCommand.self, SyncExportCommand.self]
    )
}

/// Loading the catalog and the C2C table for commands that work without a bridge.
enum CloudCLI {
    static func load(_ overlay: String?) throws -> GoogleC2C {
        let folder: MappingsFolder
        do { folder = try MappingsFolder(overlay: overlay) } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        do {
            let catalog = try CatalogLoader.load(mappingsDirectory: folder.path)
            return GoogleC2C(
                catalog: catalog, table: try GoogleC2CTable.load(mappingsDirectory: folder.path, catalog: catalog))
        } catch {
            printError(folder.explain("\(error)"))
            throw ExitCode.failure
        }
    }
}
