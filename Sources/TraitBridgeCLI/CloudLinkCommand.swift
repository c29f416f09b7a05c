import ArgumentParser
import Foundation
import TraitBridgeCloud
import TraitBridgeHTTP
import TraitBridgeJSON

/// `traitbridge cloud link list|test`: the partner clouds a config file links to, and whether one
/// answers as Google's partners must.
struct CloudLinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "List the cloud links of a config file, or test one (SYNC and QUERY, with timings).",
        subcommands: [CloudLinkListCommand.self, CloudLinkTestCommand.self]
    )

    static func links(_ path: String) throws -> [CloudLinkSettings] {
        do { return try ServeConfiguration.load(path: path).cloudLinks } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
    }
}

/// `traitbridge cloud link list --config FILE`.
struct CloudLinkListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the cloud links of a config file: name, URL, poll and sync intervals, pushes.",
        discussion: """
            Examples:
              traitbridge cloud link list --config /etc/traitbridge.json
            """
    )

    @Option(help: "The config file whose cloudLinks are listed.")
    var config: String

    func run() throws {
        let links = try CloudLinkCommand.links(config)
        guard !links.isEmpty else {
            print("no cloud links in \(config)")
            return
        }
        for link in links {
            let push = link.pushPublicKeyFile == nil ? "polled" : "pushes to this bridge"
            print(
                "\(link.name)  \(link.url)  every \(link.pollInterval.components.seconds) s, "
                    + "SYNC every \(link.syncInterval.components.seconds) s, \(push)")
        }
    }
}

/// `traitbridge cloud link test NAME --config FILE`: SYNC, then QUERY of what the SYNC listed.
struct CloudLinkTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Send a link's partner a SYNC and a QUERY as the bridge would, and say what came back.",
        discussion: """
            The SYNC is read as `sync import --dry-run` reads one (every problem with its JSON path). \
            Exit 1 when the partner does not answer both, or its SYNC rejects a device.

            Examples:
              traitbridge cloud link test upstairs --config /etc/traitbridge.json
            """
    )

    @Argument(help: "The link's name in the config file.")
    var name: String
    @Option(help: "The config file that defines the link.")
    var config: String
    @Option(help: "The mappings folder (to read the SYNC).")
    var mappings = "mappings"

    func run() async throws {
        guard let link = try CloudLinkCommand.links(config).first(where: { $0.name == name }) else {
            printError("error: \(config) has no cloud link named '\(name)'")
            throw ExitCode(2)
        }
        let c2c = try CloudCLI.load(mappings)
        let transport = LinkTransport(settings: link)
        let (sync, syncTime) = await timed { await transport.send(LinkTransport.intent("SYNC"), intent: "SYNC") }
        let imported: SyncImport
        switch sync {
        case .failure(let failure):
            await transport.shutdown()
            printError("SYNC: \(failure.message) (\(link.url), \(syncTime) ms)")
            throw ExitCode.failure
        case .success(let answer):
            do {
                imported = try c2c.importSync(answer, source: "link \(name) SYNC", now: Date())
            } catch {
                await transport.shutdown()
                printError("SYNC: answer refused: \(error) (\(syncTime) ms)")
                throw ExitCode.failure
            }
        }
        print("SYNC: \(imported.devices.count) devices, \(imported.problems.count) problems, \(syncTime) ms")
        for problem in imported.problems { print("  \(problem)") }
        let ids = imported.devices.map(\.origin.c2cID)
        let body = LinkTransport.intent("QUERY", payload: ["devices": .array(ids.map { ["id": .string($0)] })])
        let (query, queryTime) = await timed { await transport.send(body, intent: "QUERY") }
        await transport.shutdown()
        switch query {
        case .failure(let failure):
            printError("QUERY: \(failure.message) (\(queryTime) ms)")
            throw ExitCode.failure
        case .success(let answer):
            let root = try? JSONDocument.parse(answer).root
            let entries = root?["payload"]?["devices"]?.members ?? []
            let online = entries.filter { $0.value["online"]?.bool == true }.count
            print("QUERY: \(entries.count) of \(ids.count) devices answered, \(online) online, \(queryTime) ms")
            if imported.problems.contains(where: \.rejectsDevice) || entries.count < ids.count {
                throw ExitCode.failure
            }
        }
    }

    private func timed<T>(_ body: () async -> T) async -> (T, Int) {
        let start = ContinuousClock.now
        let value = await body()
        let elapsed = ContinuousClock.now - start
        return (value, Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
    }
}
