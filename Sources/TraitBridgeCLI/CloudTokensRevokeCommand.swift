import ArgumentParser
import TraitBridgeStore

/// `traitbridge cloud tokens revoke`: unlink an account from this side; a running `serve` refuses
/// the tokens at the next request (it reads the registry per request).
struct CloudTokensRevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke the tokens of one linked account, or of all.",
        discussion: """
            Access and refresh tokens both go: Google gets 401 at its next request and the user must link again. \
            Works while serve runs.

            Examples:
              traitbridge cloud tokens revoke --account alice
              traitbridge cloud tokens revoke --all --data-dir /var/lib/traitbridge
            """
    )

    @Option(help: "The account (agentUserId) whose tokens go.")
    var account: String?
    @Flag(help: "Revoke every token.")
    var all = false
    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func validate() throws {
        guard (account == nil) != !all else { throw ValidationError("give --account NAME or --all (one of them)") }
    }

    func run() throws {
        let store = try CloudTokensListCommand.openStore(dataDir)
        do {
            let count = try store.revokeTokens(agentUserID: all ? nil : account)
            print("revoked \(count) token\(count == 1 ? "" : "s")" + (account.map { " of \($0)" } ?? ""))
        } catch {
            printError(error.description)
            throw ExitCode.failure
        }
    }
}
