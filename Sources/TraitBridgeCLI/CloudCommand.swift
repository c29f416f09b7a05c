import ArgumentParser

/// `traitbridge cloud …`: the bridge as Google's partner cloud (the `http` and `export` sections of `serve`).
struct CloudCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud",
        abstract: "See what Google is given, manage linked accounts' tokens, and link partner clouds.",
        subcommands: [CloudPreviewCommand.self, CloudTokensCommand.self, CloudLinkCommand.self]
    )
}

/// `traitbridge cloud tokens list|revoke`.
struct CloudTokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "List or revoke the OAuth tokens issued to linked accounts.",
        subcommands: [CloudTokensListCommand.self, CloudTokensRevokeCommand.self]
    )
}
