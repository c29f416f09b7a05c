import ArgumentParser
import TraitBridgeStore

/// `traitbridge cloud link remove NAME`: unlink a partner cloud kept in the registry; a running
/// `serve` stops it within 2 s and its devices go.
struct CloudLinkRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a cloud link from the registry; a running serve drops it and its devices within 2 s.",
        discussion: """
            A link written in a config file is removed by editing the file.

            Examples:
              traitbridge cloud link remove upstairs
            """
    )

    @Argument(help: "The link's name.")
    var name: String
    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        do {
            guard try store.removeCloudLink(name: name) else {
                printError("error: the registry has no cloud link named '\(name)' (traitbridge cloud link list)")
                throw ExitCode(4)
            }
        } catch let error as StoreError {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        print("cloud link \(name) removed")
    }
}
