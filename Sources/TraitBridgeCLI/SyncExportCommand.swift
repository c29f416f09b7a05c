import ArgumentParser
import Foundation
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// `traitbridge sync export`.
struct SyncExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Print a SYNC response for every device the running bridge holds.",
        discussion: """
            The output passes Google's schemas (../shared/tools/c2c-validate sync) and carries the identity fields (matterUniqueId, matterOriginalVendorId/ProductId, otherDeviceIds) and roomHint. Devices imported from a SYNC are given back as they were imported.

            Examples:
              traitbridge sync export > sync.json
              traitbridge sync export --agent-user-id user-42
            """
    )

    @Option(help: "The agentUserId of the response.")
    var agentUserId = "traitbridge"
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let options: JSONValue = ["agentUserId": .string(agentUserId)]
        let (answer, _) = try BridgeRequest.json("sync-export", payload: options.serializedBytes(), connection: connection)
        printJSON(answer)
    }
}
