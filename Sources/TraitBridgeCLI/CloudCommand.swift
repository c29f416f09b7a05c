import ArgumentParser

/// `traitbridge cloud …`: the bridge as Google's partner cloud (the `http` section of `serve`).
struct CloudCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloud",
        abstract: "Manage what Google's account linking left in the registry: tokens of linked accounts.",
        subcommands: [CloudTokensCommand.self]
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
