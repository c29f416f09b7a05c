import ArgumentParser
import Foundation
import TraitBridgeCloud
import TraitBridgeJSON

/// `traitbridge cloud preview`: the SYNC Google would receive from the running bridge, what it
/// would not receive and why, checked by reading it back.
struct CloudPreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Print the SYNC response Google would receive, and which devices it would not get and why.",
        discussion: """
            The SYNC goes to standard output; the summary to standard error: devices left out by the export rules \
            (the config's `export`), devices with no trait Google can express, and what reading the SYNC back \
            found (the checks of `sync import --dry-run`). Exit 1 when reading it back rejects a device.

            Examples:
              traitbridge cloud preview > sync.json
              traitbridge cloud preview --agent-user-id alice
            """
    )

    @Option(help: "The agentUserId of the response.")
    var agentUserId = "traitbridge"
    @Option(help: "A folder whose mappings add to or replace the embedded ones.")
    var mappings: String?
    @OptionGroup var connection: ConnectionOptions

    func run() throws {
        let options: JSONValue = ["agentUserId": .string(agentUserId)]
        let (_, root) = try BridgeRequest.json(
            "sync-preview", payload: options.serializedBytes(), connection: connection)
        guard let sync = root["sync"] else {
            printError("error: the bridge answered without a SYNC: \(root["message"]?.string ?? "no message")")
            throw ExitCode.failure
        }
        let bytes = sync.value.serializedBytes()
        print(sync.value.serialized(.pretty))
        let excluded = root["excluded"]?.elements.compactMap(\.string) ?? []
        let skipped = root["skipped"]?.elements.compactMap(\.string) ?? []
        let devices = sync["payload"]?["devices"]?.elements.count ?? 0
        var summary = ["\(devices) device\(devices == 1 ? "" : "s") for Google"]
        summary += excluded.map { "not given: \($0)" } + skipped.map { "not given: \($0)" }
        let readBack: SyncImport
        do {
            readBack = try CloudCLI.load(mappings).importSync(bytes, source: "preview", now: Date())
        } catch {
            printError("error: the SYNC does not read back: \(error)")
            throw ExitCode.failure
        }
        summary += readBack.problems.map { "problem: \($0)" }
        let rejected = readBack.problems.filter(\.rejectsDevice).count
        summary.append(
            rejected == 0
                ? "read back: \(readBack.devices.count) devices, \(readBack.problems.count) notes"
                : "read back: \(rejected) device(s) rejected")
        printError(summary.joined(separator: "\n"))
        if rejected > 0 { throw ExitCode.failure }
    }
}
