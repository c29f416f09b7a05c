import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOSSL
import TraitBridgeJSON
import TraitBridgeModel

/// The client side of OAuth 2.0 for a cloud link, as Google is to its partners: a code from the
/// partner's login page is exchanged for tokens once (`cloud link add`), and the refresh token
/// buys new access tokens while the bridge runs.
public enum LinkOAuth {
    /// What a token endpoint granted.
    public struct Tokens: Sendable, Hashable {
        public var access: String
        public var refresh: String?
        /// Seconds the access token lives, when the partner said (bounded to a year).
        public var expiresIn: Int?
    }

    /// `grant_type=authorization_code`: the code the partner's login page gave.
    public static func exchange(
        code: String, redirectURI: String, tokenURL: String, clientID: String, clientSecret: String,
        caFile: String? = nil
    ) async -> Result<Tokens, LinkTransport.Failure> {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.trustRoots = .file(caFile) }
        let client = HTTPClient(configuration: .init(tlsConfiguration: tls, redirectConfiguration: .disallow))
        let result = await post(
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                ("client_id", clientID), ("client_secret", clientSecret),
            ], to: tokenURL, client: client)
        try? await client.shutdown()
        return result
    }

    /// `grant_type=refresh_token`: a new access token (and maybe a new refresh token).
    static func refresh(_ grant: OAuthGrant, client: HTTPClient) async -> Result<Tokens, LinkTransport.Failure> {
        await post(
            [
                ("grant_type", "refresh_token"), ("refresh_token", grant.refreshToken),
                ("client_id", grant.clientID), ("client_secret", grant.clientSecret),
            ], to: grant.tokenURL, client: client)
    }

    static func post(
        _ fields: [(String, String)], to url: String, client: HTTPClient
    ) async -> Result<Tokens, LinkTransport.Failure> {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let form = fields.map { "\($0)=\(FormFields.encode($1))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        func failure(_ message: String) -> Result<Tokens, LinkTransport.Failure> {
            .failure(LinkTransport.Failure(message: message, state: .offline))
        }
        do {
            let response = try await client.execute(request, timeout: .seconds(15))
            let bytes = try await response.body.collect(upTo: 64 * 1024)
            let root = try? JSONDocument.parse(Array(bytes.readableBytesView)).root
            guard response.status.code == 200 else {
                let error = root?["error"]?.string.map { String($0.prefix(64)) } ?? "HTTP \(response.status.code)"
                let detail = root?["error_description"]?.string.map { ": " + $0.prefix(200) } ?? ""
                return failure("the token endpoint \(url) answered \(error)\(detail)")
            }
            guard let access = root?["access_token"]?.string, !access.isEmpty, access.utf8.count <= 4096 else {
                return failure("the token endpoint \(url) answered without an access_token")
            }
            let refresh = root?["refresh_token"]?.string.flatMap { $0.isEmpty || $0.utf8.count > 4096 ? nil : $0 }
            let expiresIn = root?["expires_in"]?.int64.map { Int(min(max($0, 1), 31_536_000)) }
            return .success(Tokens(access: access, refresh: refresh, expiresIn: expiresIn))
        } catch {
            return failure("the token endpoint \(url) failed: \(LinkTransport.describe(error))")
        }
    }
}

/// A link's bearer token, and for OAuth links its refresh: one refresh at a time, shared by the
/// poller and the EXECUTE sender; each new token is handed to `onRefresh` (the registry keeps it).
actor LinkCredentials {
    private(set) var token: String
    private var oauth: OAuthGrant?
    private var refreshing: Task<Result<String, LinkTransport.Failure>, Never>?
    private let relink: String
    let onRefresh: @Sendable (String, OAuthGrant) -> Void

    init(settings: CloudLinkSettings, onRefresh: @escaping @Sendable (String, OAuthGrant) -> Void) {
        token = settings.token
        oauth = settings.oauth
        relink = "relink with `traitbridge cloud link add \(settings.name) --oauth-token-url …`"
        self.onRefresh = onRefresh
    }

    var canRefresh: Bool { oauth != nil }

    /// The token to send now; an OAuth token that runs out within 30 s is refreshed first.
    func current(client: HTTPClient) async -> Result<String, LinkTransport.Failure> {
        if let expires = oauth?.accessExpiresAt, expires < Date() + 30 {
            return await refresh(client: client)
        }
        return .success(token)
    }

    /// After `rejected` got a 401: a newer token if another request refreshed meanwhile, else a refresh.
    func replacing(_ rejected: String, client: HTTPClient) async -> Result<String, LinkTransport.Failure> {
        if token != rejected { return .success(token) }
        return await refresh(client: client)
    }

    private func refresh(client: HTTPClient) async -> Result<String, LinkTransport.Failure> {
        if let refreshing { return await refreshing.value }
        guard let grant = oauth else {
            return .failure(.init(message: "token rejected: \(relink)", state: .offline))
        }
        let relink = relink
        let task = Task { () -> Result<String, LinkTransport.Failure> in
            switch await LinkOAuth.refresh(grant, client: client) {
            case .success(let tokens):
                var renewed = grant
                renewed.refreshToken = tokens.refresh ?? grant.refreshToken
                renewed.accessExpiresAt = tokens.expiresIn.map { Date() + TimeInterval($0) }
                self.store(tokens.access, renewed)
                return .success(tokens.access)
            case .failure(let failure):
                return .failure(.init(message: "token rejected: \(relink) (\(failure.message))", state: .offline))
            }
        }
        refreshing = task
        let result = await task.value
        refreshing = nil
        return result
    }

    private func store(_ access: String, _ grant: OAuthGrant) {
        token = access
        oauth = grant
        onRefresh(access, grant)
    }
}
