import ArgumentParser
import Foundation
import TraitBridgeHTTP
import TraitBridgeJSON
import TraitBridgeStore

/// `traitbridge cloud link add NAME --url URL (--token-file F | --oauth-token-url …)`: link a
/// partner cloud, kept in the registry; a running `serve` with the same registry starts it at once.
struct CloudLinkAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Link a partner cloud (its fulfillment URL and a token, or the OAuth flow); kept in the registry.",
        discussion: """
            With --token-file the token is read from the file. With the OAuth flow, give the partner's token URL, \
            client id and secret file, and either --code (from the partner's login page) or --authorize-url: the \
            URL to open is printed and the code (or the whole redirected URL) is read from standard input. The \
            link's tokens are kept in the registry, readable by its owner only, and never printed. Adding a name \
            again replaces the link. A running serve with this registry starts, changes or stops links within 2 s.

            Examples:
              traitbridge cloud link add upstairs --url https://up.example/smarthome \\
                --token-file up.token
              traitbridge cloud link add ha --url https://ha.example/api/google_assistant \\
                --oauth-token-url https://ha.example/auth/token --client-id tb \\
                --client-secret-file ha.secret --redirect-uri https://tb.example/cb \\
                --authorize-url https://ha.example/auth/authorize
            """
    )

    @Argument(help: "The link's name: up to 32 lowercase letters, digits and -.")
    var name: String
    @Option(help: "The partner's fulfillment URL (https://host/path).")
    var url: String
    @Option(help: "A file holding the partner's bearer token.")
    var tokenFile: String?
    @Option(help: "OAuth: the partner's token endpoint.")
    var oauthTokenUrl: String?
    @Option(help: "OAuth: the client id the partner gave this bridge.")
    var clientId: String?
    @Option(help: "OAuth: a file holding the client secret.")
    var clientSecretFile: String?
    @Option(help: "OAuth: the redirect URI registered with the partner.")
    var redirectUri: String?
    @Option(help: "OAuth: the authorization code from the partner's login page.")
    var code: String?
    @Option(help: "OAuth: the partner's authorization page (the URL to open is printed; the code is read from stdin).")
    var authorizeUrl: String?
    @Option(help: "Seconds between QUERY polls (default: 10).")
    var pollSeconds: Int?
    @Option(help: "Seconds between SYNCs (default: 300).")
    var syncSeconds: Int?
    @Option(help: "Seconds a request may take (default: 10).")
    var timeoutSeconds: Int?
    @Option(help: "CA certificates (PEM) for the partner's certificate.")
    var caFile: String?
    @Option(help: "The partner's service-account public key (PEM): it may push Report State to this bridge.")
    var pushPublicKeyFile: String?
    @Option(help: "The issuer its push JWTs must carry.")
    var pushIssuer: String?
    @Option(help: "Folder of the registry database (default: as serve's).")
    var dataDir: String?

    func validate() throws {
        guard ServeConfiguration.isLinkName(name) else {
            throw ValidationError(
                "'\(name)' is not a link name: up to 32 lowercase letters, digits and -, not 'default'")
        }
        guard url.hasPrefix("https://") || url.hasPrefix("http://"), URL(string: url)?.host != nil else {
            throw ValidationError("--url must be the partner's fulfillment URL, https://host/path")
        }
        let oauth = oauthTokenUrl != nil
        guard (tokenFile != nil) != oauth else {
            throw ValidationError("give --token-file FILE, or the OAuth flow's --oauth-token-url (one of them)")
        }
        if oauth {
            guard clientId != nil, clientSecretFile != nil, redirectUri != nil else {
                throw ValidationError("the OAuth flow needs --client-id, --client-secret-file and --redirect-uri")
            }
            guard (code != nil) != (authorizeUrl != nil) else {
                throw ValidationError("give --code CODE, or --authorize-url URL to be asked for it (one of them)")
            }
        }
        for (flag, value) in [
            ("--poll-seconds", pollSeconds), ("--sync-seconds", syncSeconds), ("--timeout-seconds", timeoutSeconds),
        ] {
            if let value, !(1...86_400).contains(value) { throw ValidationError("\(flag) must be 1 to 86400") }
        }
    }

    func run() async throws {
        var link: CloudLinkSettings
        if let tokenFile {
            let token = try Self.secret(tokenFile, what: "--token-file")
            link = CloudLinkSettings(name: name, url: url, token: token)
        } else {
            link = try await oauthLink()
        }
        if let pollSeconds { link.pollInterval = .seconds(pollSeconds) }
        if let syncSeconds { link.syncInterval = .seconds(syncSeconds) }
        if let timeoutSeconds { link.timeout = .seconds(timeoutSeconds) }
        link.caFile = caFile
        link.pushPublicKeyFile = pushPublicKeyFile
        link.pushIssuer = pushIssuer
        let store = try CloudTokensListCommand.openStore(dataDir)
        do { try store.saveCloudLink(name: name, settings: link.stored.serializedBytes(), now: Date()) } catch {
            printError("error: \(error)")
            throw ExitCode.failure
        }
        print("cloud link \(name) kept in \(store.path); a running serve with this registry starts it within 2 s")
    }

    /// The code (given, or read after printing the partner's page), exchanged for tokens now.
    private func oauthLink() async throws -> CloudLinkSettings {
        guard let oauthTokenUrl, let clientId, let clientSecretFile, let redirectUri else { throw ExitCode(2) }
        let secret = try Self.secret(clientSecretFile, what: "--client-secret-file")
        var code = self.code
        if let authorizeUrl {
            let state = UUID().uuidString
            var page = URLComponents(string: authorizeUrl)
            let existing = page?.queryItems ?? []
            page?.queryItems =
                existing + [
                    URLQueryItem(name: "response_type", value: "code"),
                    URLQueryItem(name: "client_id", value: clientId),
                    URLQueryItem(name: "redirect_uri", value: redirectUri), URLQueryItem(name: "state", value: state),
                ]
            print("Open this page, sign in, and paste the code (or the whole URL you were sent to):")
            print(page?.string ?? authorizeUrl)
            guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty
            else {
                printError("error: no code given")
                throw ExitCode.failure
            }
            if let pasted = URLComponents(string: line),
                let given = pasted.queryItems?.first(where: { $0.name == "code" })
            {
                guard pasted.queryItems?.first(where: { $0.name == "state" })?.value == state else {
                    printError("error: the pasted URL's state is not this request's; open the printed page again")
                    throw ExitCode.failure
                }
                code = given.value
            } else {
                code = line
            }
        }
        guard let code, !code.isEmpty else { throw ExitCode(2) }
        switch await LinkOAuth.exchange(
            code: code, redirectURI: redirectUri, tokenURL: oauthTokenUrl, clientID: clientId, clientSecret: secret,
            caFile: caFile)
        {
        case .failure(let failure):
            printError("error: \(failure.message)")
            throw ExitCode.failure
        case .success(let tokens):
            guard let refresh = tokens.refresh else {
                printError(
                    "error: \(oauthTokenUrl) gave no refresh_token; the link would stop when the access token expires")
                throw ExitCode.failure
            }
            var link = CloudLinkSettings(name: name, url: url, token: tokens.access)
            link.oauth = OAuthGrant(
                tokenURL: oauthTokenUrl, clientID: clientId, clientSecret: secret, refreshToken: refresh,
                accessExpiresAt: tokens.expiresIn.map { Date() + TimeInterval($0) })
            return link
        }
    }

    static func secret(_ path: String, what: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            case let value = text.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty
        else {
            printError("error: \(what) \(path) cannot be read, or is empty")
            throw ExitCode(2)
        }
        return value
    }
}
