import ArgumentParser
import Foundation
import TraitBridgeStore

/// `traitbridge cloud tokens list`: what the registry holds; hashes only, there is no token to show.
struct CloudTokensListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the tokens issued to linked accounts (never the tokens themselves).",
        discussion: """
            One line per token: kind (access or refresh), the account (agentUserId), the OAuth client, when it was \
            issued and when it expires (UTC), and the first 12 hex digits of its SHA-256 — the registry keeps \
            nothing else.

            Examples:
              traitbridge cloud tokens list
              traitbridge cloud tokens list --data-dir /var/lib/traitbridge
            """
    )

    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        let tokens: [LinkingToken]
        do { tokens = try store.tokens() } catch {
            printError(error.description)
            throw ExitCode.failure
        }
        let now = Date()
        var rows = [["KIND", "ACCOUNT", "CLIENT", "ISSUED (UTC)", "EXPIRES (UTC)", "SHA-256"]]
        for token in tokens {
            let expires = token.expiresAt.map { ($0 < now ? "expired " : "") + Self.utc($0) } ?? "when revoked"
            rows.append([
                token.kind.rawValue, token.agentUserID, token.clientID, Self.utc(token.createdAt), expires,
                String(token.hash.prefix(12)),
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            let line = row.enumerated().map {
                $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0)
            }
            print(line.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
        print("\(tokens.count) token\(tokens.count == 1 ? "" : "s")")
    }

    static func utc(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false))
            .replacingOccurrences(of: "T", with: " ")
    }

    static func openStore(_ dataDir: String?) throws -> DeviceStore {
        do {
            return try DeviceStore(directory: dataDir ?? ServeConfiguration.defaultDataDirectory)
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
