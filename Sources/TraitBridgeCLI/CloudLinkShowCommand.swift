import ArgumentParser
import Foundation
import TraitBridgeHTTP

/// `traitbridge cloud link show NAME`: one link's settings (never its tokens).
struct CloudLinkShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a cloud link's settings (its tokens are never printed); its health is in traitbridge status.",
        discussion: """
            Examples:
              traitbridge cloud link show upstairs
            """
    )

    @Argument(help: "The link's name.")
    var name: String
    @Option(help: "A config file that may define the link.")
    var config: String?
    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func run() throws {
        let found = try CloudLinkCommand.link(name, config: config, dataDir: dataDir)
        let link = found.settings
        print("cloud link \(link.name) (\(found.origin))")
        print("  url:      \(link.url)")
        if let oauth = link.oauth {
            let expires = oauth.accessExpiresAt.map { " (access token until \($0.formatted(.iso8601)))" } ?? ""
            print("  auth:     OAuth, refreshed at \(oauth.tokenURL) as \(oauth.clientID)\(expires)")
        } else {
            print("  auth:     bearer token")
        }
        print(
            "  polling:  QUERY every \(link.pollInterval.components.seconds) s, SYNC every "
                + "\(link.syncInterval.components.seconds) s, timeout \(link.timeout.components.seconds) s")
        if let key = link.pushPublicKeyFile {
            print(
                "  pushes:   Report State and Request Sync accepted, signed by \(key)"
                    + (link.pushIssuer.map { " as \($0)" } ?? ""))
        } else {
            print("  pushes:   none (polled)")
        }
        if let caFile = link.caFile { print("  CA:       \(caFile)") }
    }
}
