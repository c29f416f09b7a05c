import ArgumentParser
import Foundation
import TraitBridgeCloud
import TraitBridgeHTTP
import TraitBridgeJSON
import TraitBridgeStore

/// `traitbridge cloud link add|list|show|remove|test`: the partner clouds the bridge links to —
/// kept in the registry (added and removed while `serve` runs) or written in a config file.
struct CloudLinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Add, list, show, remove or test the partner clouds the bridge links to.",
        subcommands: [
            CloudLinkAddCommand.self, CloudLinkListCommand.self, CloudLinkShowCommand.self,
            CloudLinkRemoveCommand.self, CloudLinkTestCommand.self,
        ]
    )

    /// A link and where it is defined.
    struct Found {
        var settings: CloudLinkSettings
        var origin: String
    }

    /// The config file's links (when given), then the registry's that the config does not name.
    static func links(config: String?, dataDir: String?) throws -> [Found] {
        var found: [Found] = []
        if let config {
            do {
                found = try ServeConfiguration.load(path: config).cloudLinks.map { Found(settings: $0, origin: config) }
            } catch {
                printError("error: \(error)")
                throw ExitCode(2)
            }
        }
        let store = try CloudTokensListCommand.openStore(dataDir)
        let rows: [(name: String, settings: [UInt8])]
        do { rows = try store.cloudLinks() } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        for row in rows where !found.contains(where: { $0.settings.name == row.name }) {
            do {
                found.append(
                    Found(settings: try CloudLinkSettings(name: row.name, stored: row.settings), origin: "registry"))
            } catch {
                printError("warning: \(error)")
            }
        }
        return found
    }

    static func link(_ name: String, config: String?, dataDir: String?) throws -> Found {
        guard let found = try links(config: config, dataDir: dataDir).first(where: { $0.settings.name == name }) else {
            let place = config.map { "\($0) or the registry" } ?? "the registry"
            printError("error: \(place) has no cloud link named '\(name)' (traitbridge cloud link list)")
            throw ExitCode(4)
        }
        return found
    }
}

/// `traitbridge cloud link list [--config FILE] [--data-dir DIR]`.
struct CloudLinkListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the cloud links: name, URL, poll and sync intervals, pushes, and where each is defined.",
        discussion: """
            Examples:
              traitbridge cloud link list
              traitbridge cloud link list --config /etc/traitbridge.json
            """
    )

    @Option(help: "A config file whose cloudLinks are listed too.")
    var config: String?
    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?
    @Flag(help: "Print the links as JSON, in the shape of the HTTP API's GET /api/v1/cloud-links (its settings).")
    var json = false

    func run() throws {
        let links = try CloudLinkCommand.links(config: config, dataDir: dataDir)
        if json {
            let entries = links.map { found -> JSONValue in
                let link = found.settings
                return [
                    "name": .string(link.name), "url": .string(link.url),
                    "pollSeconds": .int(link.pollInterval.components.seconds),
                    "syncSeconds": .int(link.syncInterval.components.seconds),
                    "pushes": .bool(link.pushPublicKeyFile != nil),
                    "auth": .string(link.oauth == nil ? "token" : "oauth"),
                    "origin": .string(found.origin),
                ]
            }
            return print(JSONValue.object(["links": .array(entries)]).serialized(.pretty))
        }
        guard !links.isEmpty else {
            print("no cloud links (add one: traitbridge cloud link add NAME --url URL --token-file FILE)")
            return
        }
        for found in links {
            let link = found.settings
            let push = link.pushPublicKeyFile == nil ? "polled" : "pushes to this bridge"
            let auth = link.oauth == nil ? "token" : "OAuth"
            print(
                "\(link.name)  \(link.url)  every \(link.pollInterval.components.seconds) s, "
                    + "SYNC every \(link.syncInterval.components.seconds) s, \(push), \(auth), \(found.origin)")
        }
    }
}

/// `traitbridge cloud link test NAME`: SYNC, then QUERY of what the SYNC listed.
struct CloudLinkTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Send a link's partner a SYNC and a QUERY as the bridge would, and say what came back.",
        discussion: """
            The SYNC is read as `sync import --dry-run` reads one (every problem with its JSON path). \
            Exit 1 when the partner does not answer both, or its SYNC rejects a device.

            Examples:
              traitbridge cloud link test upstairs
              traitbridge cloud link test upstairs --config /etc/traitbridge.json
            """
    )

    @Argument(help: "The link's name.")
    var name: String
    @Option(help: "A config file that defines the link (else the registry's).")
    var config: String?
    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?
    @Option(help: "A folder whose mappings add to or replace the embedded ones.")
    var mappings: String?

    func run() async throws {
        let found = try CloudLinkCommand.link(name, config: config, dataDir: dataDir)
        let link = found.settings
        let c2c = try CloudCLI.load(mappings)
        // A refresh bought here is kept, as serve would keep it (a partner may rotate refresh tokens).
        let store = found.origin == "registry" ? try CloudTokensListCommand.openStore(dataDir) : nil
        let transport = LinkTransport(settings: link) { token, grant in
            var renewed = link
            renewed.token = token
            renewed.oauth = grant
            try? store?.saveCloudLink(name: link.name, settings: renewed.stored.serializedBytes(), now: Date())
        }
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
            // The states read as the bridge reads them: each one it cannot take, with its JSON path.
            let problems: [String]
            do {
                problems = try c2c.importReports(answer, source: "link \(name) QUERY").problems.map(\.description)
            } catch {
                printError("QUERY: answer refused: \(error) (\(queryTime) ms)")
                throw ExitCode.failure
            }
            print(
                "QUERY: \(entries.count) of \(ids.count) devices answered, \(online) online, "
                    + "\(problems.count) problems, \(queryTime) ms")
            for problem in problems.prefix(50) { print("  \(problem)") }
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
