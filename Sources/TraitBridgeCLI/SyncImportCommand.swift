import ArgumentParser
import Foundation
import TraitBridgeCloud
import TraitBridgeHTTP
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// `traitbridge sync import FILE|-`, or `--from-link NAME`.
struct SyncImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import the devices of a SYNC response into the running bridge (or check them with --dry-run).",
        discussion: """
            Accepts a full SYNC response, its payload ({devices: [...]}), or the devices array; with \
            --from-link, the SYNC a cloud link (the registry's or a config's) answers now (a one-shot import: \
            the running link keeps its own). A device whose matterUniqueId or otherDeviceIds names a local \
            device joins it: its traits are remote, the local ones keep their locality, the device is mixed. \
            Every problem is printed with its JSON path; one bad device never stops the others. Exit codes: 0 \
            all devices imported, 1 a device was rejected or the file is not a SYNC response, 3 the bridge is \
            not reachable.

            Examples:
              traitbridge sync import home-sync.json
              traitbridge sync import --dry-run --json examples/demo-cloud-sync.json
              curl -s … | traitbridge sync import -
              traitbridge sync import --dry-run --from-link upstairs --config tb.json
            """
    )

    @Argument(help: "The SYNC file, or - for standard input.")
    var file: String?
    @Option(help: "Ask the cloud link of this name (the registry's, or --config's) for its SYNC instead of a file.")
    var fromLink: String?
    @Option(help: "A config file that defines --from-link's link.")
    var config: String?
    @Option(help: "Folder of the registry database, for --from-link (default: as serve's).")
    var dataDir: String?
    @Flag(help: "Do not talk to a bridge: translate the file and print the devices and problems.")
    var dryRun = false
    @Flag(help: "Print JSON instead of text.")
    var json = false
    @Option(help: "For --dry-run: a folder whose mappings add to or replace the embedded ones.")
    var mappings: String?
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard (file == nil) != (fromLink == nil) else {
            throw ValidationError("give a SYNC file (or -), or --from-link NAME")
        }
    }

    func run() async throws {
        let bytes = try await input()
        if dryRun { return try dryRunImport(bytes) }
        let (answer, root) = try BridgeRequest.json("sync-import", payload: bytes, connection: connection)
        if json {
            printJSON(answer)
        } else {
            for device in root["imported"]?.elements ?? [] {
                let merged = device["mergedInto"]?.string.map { " (merged into \($0))" } ?? ""
                print("imported \(device["c2cId"]?.string ?? "?") as \(device["device"]?.string ?? "?")\(merged)")
            }
            for problem in root["problems"]?.elements ?? [] {
                print("\(problem["path"]?.string ?? "$"): \(problem["message"]?.string ?? "")")
            }
        }
        if (root["problems"]?.elements ?? []).contains(where: { $0["deviceRejected"]?.bool == true }) {
            throw ExitCode.failure
        }
    }

    /// The file's bytes, or the link's SYNC answer.
    private func input() async throws -> [UInt8] {
        guard let name = fromLink else { return try BridgeRequest.input(file ?? "-") }
        let link = try CloudLinkCommand.link(name, config: config, dataDir: dataDir).settings
        let transport = LinkTransport(settings: link)
        let answer = await transport.send(LinkTransport.intent("SYNC"), intent: "SYNC")
        await transport.shutdown()
        switch answer {
        case .success(let bytes): return bytes
        case .failure(let failure):
            printError("error: link \(name): \(failure.message) (\(link.url))")
            throw ExitCode.failure
        }
    }

    /// Translates without a bridge. Each device is turned into its JSON object or text line as
    /// soon as it is decoded and then dropped (10 000 devices are never held at once); nothing is
    /// printed unless the whole SYNC reads.
    private func dryRunImport(_ bytes: [UInt8]) throws {
        let c2c = try CloudCLI.load(mappings)
        var devices: [JSONValue] = []
        var lines = ""
        var count = 0
        let result: SyncImport
        do {
            result = try c2c.importSync(bytes, source: file ?? "link \(fromLink ?? "")", now: Date()) { imported in
                count += 1
                if json { devices.append(Self.json(imported)) } else { Self.line(imported, into: &lines) }
            }
        } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        if json {
            let problems: [JSONValue] = result.problems.map {
                [
                    "path": .string($0.path.description), "message": .string($0.message),
                    "deviceRejected": .bool($0.rejectsDevice),
                ]
            }
            print(JSONValue.object(["devices": .array(devices), "problems": .array(problems)]).serialized(.pretty))
        } else {
            print(lines, terminator: "")
            for problem in result.problems { print(problem.description) }
            print("\(count) devices, \(result.problems.count) problems")
        }
        if result.problems.contains(where: { $0.rejectsDevice }) { throw ExitCode.failure }
    }

    private static func json(_ imported: ImportedCloudDevice) -> JSONValue {
        var object = JSONObject()
        object.append("id", .string(imported.device.id.rawValue))
        object.append("c2cId", .string(imported.origin.c2cID))
        object.append("name", .string(imported.device.name))
        object.setIfPresent("roomHint", imported.origin.roomHint.map { .string($0) })
        object.append(
            "types",
            .array(
                imported.device.deviceTypes.map { type in
                    [
                        "key": .string(type.key), "type": .string(type.typeID.description),
                        "traits": .array(type.traits.map { .string($0.traitID.description) }),
                    ]
                }))
        return .object(object)
    }

    private static func line(_ imported: ImportedCloudDevice, into lines: inout String) {
        let types = imported.device.deviceTypes.map { type in
            "\(type.typeID) [\(type.traits.map { $0.traitID.description }.joined(separator: ", "))]"
        }
        let room = imported.origin.roomHint.map { " in \($0)" } ?? ""
        lines += "\(imported.device.id)  \(imported.device.name)\(room): \(types.joined(separator: "; "))\n"
    }
}
