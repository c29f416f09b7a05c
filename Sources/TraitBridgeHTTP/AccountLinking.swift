public import FoundationEssentials
import Synchronization
public import TraitBridgeStore

/// Who may call `/smarthome`, and OAuth 2.0 account linking (RFC 6749's authorization-code flow,
/// the one Google's account linking uses): codes live in memory for minutes, access and refresh
/// tokens in the registry as SHA-256 hashes with their expiry. The HTTP routes only translate.
public final class AccountLinking: Sendable {
    let oauth: OAuthSettings?
    let staticTokens: StaticTokens
    let store: DeviceStore?
    /// Authorization codes not yet exchanged, by hash; bounded, oldest dropped first.
    private let codes = Mutex<[String: PendingCode]>([:])
    static let maxPendingCodes = 256
    /// Wrong passwords, held back per client address (never a lock for everyone: a stranger's
    /// guesses must not keep the owner from relinking).
    private let throttle: Mutex<LoginThrottle>

    struct PendingCode: Sendable {
        var clientID: String
        var redirectURI: String
        var agentUserID: String
        var expiresAt: Date
    }

    public init(
        oauth: OAuthSettings?, staticTokens: StaticTokens, store: DeviceStore?,
        loginPolicy: LoginThrottle.Policy = .init()
    ) {
        self.oauth = oauth
        self.staticTokens = staticTokens
        self.store = store
        throttle = Mutex(LoginThrottle(policy: loginPolicy))
    }

    /// Failed logins so far, logins told to wait, clients forgotten early (for health and metrics).
    public var loginCounts: (failed: Int, waited: Int, evicted: Int) {
        throttle.withLock { ($0.failureCount, $0.waitCount, $0.evictionCount) }
    }

    // MARK: Bearer tokens

    /// Why a request was not let in; the text goes to the `WWW-Authenticate` header, never a token.
    public enum Refusal: Error, Sendable, Hashable {
        case missing
        case malformed
        case unknown
        case expired
        case registry(String)

        /// RFC 6750 §3: `error` only when a token was presented.
        var challenge: String {
            switch self {
            case .missing: #"Bearer realm="traitbridge""#
            case .malformed: #"Bearer realm="traitbridge", error="invalid_request""#
            case .unknown: #"Bearer realm="traitbridge", error="invalid_token", error_description="unknown or revoked""#
            case .expired: #"Bearer realm="traitbridge", error="invalid_token", error_description="expired""#
            case .registry: #"Bearer realm="traitbridge", error="invalid_token""#
            }
        }
    }

    /// The agentUserId an `Authorization: Bearer …` header acts for.
    public func authenticate(_ header: String?, now: Date) -> Result<String, Refusal> {
        caller(header, now: now).map(\.user)
    }

    /// Who a header's token acts for and its role: a static token's own role, `control` for an
    /// account-linking token.
    func caller(_ header: String?, now: Date) -> Result<(user: String, role: APIRole), Refusal> {
        guard let header else { return .failure(.missing) }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty, parts[1].count <= 512 else {
            return .failure(.malformed)
        }
        let hash = Secrets.hash(String(parts[1]))
        if let user = staticTokens.agentUserID(forHash: hash) {
            return .success((user, staticTokens.role(forHash: hash) ?? .control))
        }
        guard let store else { return .failure(.unknown) }
        do {
            guard let token = try store.token(hash: hash), token.kind == .access else { return .failure(.unknown) }
            return token.isValid(at: now) ? .success((token.agentUserID, .control)) : .failure(.expired)
        } catch {
            return .failure(.registry(error.description))
        }
    }

    /// The role a valid `Authorization: Bearer …` header carries for the HTTP API: a static token's
    /// own (its line in `bearerTokensFile`), `control` for an account-linking token.
    public func role(_ header: String?, now: Date) -> Result<APIRole, Refusal> {
        caller(header, now: now).map(\.role)
    }

    /// DISCONNECT: every token of the user is revoked, so Google's copy stops working at once.
    @discardableResult
    public func disconnect(agentUserID: String) throws(StoreError) -> Int {
        try store?.revokeTokens(agentUserID: agentUserID) ?? 0
    }

    // MARK: Authorization

    /// An `/oauth/authorize` request that may be shown the login page.
    public struct AuthorizeRequest: Sendable, Hashable {
        public var clientID: String
        public var redirectURI: String
        public var state: String
    }

    /// Checks the query of `/oauth/authorize`. A wrong client or redirect URI is shown as an error
    /// page (never redirected: that would make the bridge an open redirector).
    public func authorizeRequest(_ fields: FormFields) -> Result<AuthorizeRequest, LinkingPageError> {
        guard let oauth else { return .failure(.init("account linking is not configured (http.oauth in the config)")) }
        guard let client = fields["client_id"], Secrets.matches(client, oauth.clientID) else {
            return .failure(.init("unknown client_id; it must be the http.oauth.clientId of the bridge's config"))
        }
        guard let redirect = fields["redirect_uri"], oauth.redirectURIs.contains(redirect) else {
            return .failure(.init("redirect_uri is not one of http.oauth.redirectUris in the bridge's config"))
        }
        guard fields["response_type"] == "code" else {
            return .failure(.init("response_type must be 'code' (the authorization-code flow)"))
        }
        return .success(AuthorizeRequest(clientID: client, redirectURI: redirect, state: fields["state"] ?? ""))
    }

    /// The login form's post from `client` (its address): right user and password → the URL to
    /// send the browser back to, with a fresh single-use code. A client that failed too often is
    /// told to wait before its password is even checked.
    public func login(_ fields: FormFields, client: String, now: Date) -> Result<String, LinkingPageError> {
        let request: AuthorizeRequest
        switch authorizeRequest(fields) {
        case .success(let checked): request = checked
        case .failure(let error): return .failure(error)
        }
        if case .failure(let error) = checkPassword(
            account: fields["username"] ?? "", password: fields["password"] ?? "", client: client, now: now)
        {
            return .failure(error)
        }
        guard let oauth else { return .failure(.init("wrong user name or password", isLoginFailure: true)) }
        let code = Secrets.makeToken(prefix: "tbc_")
        codes.withLock { codes in
            codes = codes.filter { $0.value.expiresAt > now }
            if codes.count >= Self.maxPendingCodes,
                let oldest = codes.min(by: { $0.value.expiresAt < $1.value.expiresAt })
            {
                codes.removeValue(forKey: oldest.key)
            }
            codes[Secrets.hash(code)] = PendingCode(
                clientID: request.clientID, redirectURI: request.redirectURI, agentUserID: oauth.user,
                expiresAt: now + oauth.codeLifetime.timeInterval)
        }
        let separator = request.redirectURI.contains("?") ? "&" : "?"
        return .success(
            request.redirectURI + separator + "code=" + FormFields.encode(code) + "&state="
                + FormFields.encode(request.state))
    }

    /// The owner's user name and password (`http.oauth`) from `client`, throttled per address and
    /// account (the OAuth page's login and the web UI's): the user, or why not.
    public func checkPassword(account: String, password: String, client: String, now: Date)
        -> Result<String, LinkingPageError>
    {
        if case .wait(let seconds, let scope) = throttle.withLock({
            $0.check(address: client, account: account, now: now)
        }) {
            let whose =
                scope == .global ? "too many wrong passwords from many places" : "too many wrong passwords from here"
            return .failure(
                .init("\(whose); try again in \(seconds) seconds", isLoginFailure: true, retryAfter: seconds))
        }
        guard let oauth, Secrets.matches(account, oauth.user), Secrets.matches(password, oauth.password) else {
            throttle.withLock { $0.failed(address: client, account: account, now: now) }
            return .failure(.init("wrong user name or password", isLoginFailure: true))
        }
        throttle.withLock { $0.succeeded(address: client, account: account) }
        return .success(oauth.user)
    }

    // MARK: Token endpoint

    /// An `/oauth/token` answer: the HTTP status and RFC 6749's JSON fields.
    public struct TokenAnswer: Sendable, Hashable {
        public var status: Int
        public var fields: [(String, TokenField)]

        public enum TokenField: Sendable, Hashable {
            case text(String)
            case number(Int)
        }

        static func error(_ status: Int, _ code: String, _ description: String) -> TokenAnswer {
            TokenAnswer(status: status, fields: [("error", .text(code)), ("error_description", .text(description))])
        }

        public static func == (lhs: TokenAnswer, rhs: TokenAnswer) -> Bool {
            lhs.status == rhs.status && lhs.fields.map(\.0) == rhs.fields.map(\.0)
                && lhs.fields.map(\.1) == rhs.fields.map(\.1)
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(status)
            for (name, value) in fields {
                hasher.combine(name)
                hasher.combine(value)
            }
        }
    }

    /// `grant_type=authorization_code` (code → access + refresh) or `refresh_token` (→ access).
    /// The client authenticates with `client_id`/`client_secret` in the form or HTTP Basic.
    public func token(_ fields: FormFields, basic: (id: String, secret: String)?, now: Date) -> TokenAnswer {
        guard let oauth, let store else {
            return .error(400, "unsupported_grant_type", "account linking is not configured (http.oauth)")
        }
        let clientID = basic?.id ?? fields["client_id"] ?? ""
        let secret = basic?.secret ?? fields["client_secret"] ?? ""
        guard Secrets.matches(clientID, oauth.clientID), Secrets.matches(secret, oauth.clientSecret) else {
            return .error(401, "invalid_client", "wrong client_id or client_secret")
        }
        let agentUserID: String
        var refresh: String?
        switch fields["grant_type"] {
        case "authorization_code":
            let hash = Secrets.hash(fields["code"] ?? "")
            guard let code = codes.withLock({ $0.removeValue(forKey: hash) }), code.expiresAt > now,
                code.clientID == oauth.clientID
            else { return .error(400, "invalid_grant", "the code is unknown, used or expired; link again") }
            guard fields["redirect_uri"] == nil || fields["redirect_uri"] == code.redirectURI else {
                return .error(400, "invalid_grant", "redirect_uri differs from the authorization request's")
            }
            agentUserID = code.agentUserID
            refresh = Secrets.makeToken(prefix: "tbr_")
        case "refresh_token":
            let hash = Secrets.hash(fields["refresh_token"] ?? "")
            let kept: LinkingToken?
            do { kept = try store.token(hash: hash) } catch {
                return .error(500, "server_error", "the registry could not be read; see the bridge's log")
            }
            guard let kept, kept.kind == .refresh, kept.isValid(at: now) else {
                return .error(400, "invalid_grant", "the refresh token is unknown or revoked; link again")
            }
            agentUserID = kept.agentUserID
        case let other:
            return .error(
                400, "unsupported_grant_type", "grant_type '\(other ?? "")' is not authorization_code or refresh_token")
        }
        let access = Secrets.makeToken(prefix: "tba_")
        let lifetime = oauth.accessTokenLifetime.timeInterval
        do {
            try store.saveToken(
                LinkingToken(
                    hash: Secrets.hash(access), kind: .access, agentUserID: agentUserID, clientID: oauth.clientID,
                    createdAt: now, expiresAt: now + lifetime), now: now)
            if let refresh {
                try store.saveToken(
                    LinkingToken(
                        hash: Secrets.hash(refresh), kind: .refresh, agentUserID: agentUserID, clientID: oauth.clientID,
                        createdAt: now, expiresAt: nil), now: now)
            }
        } catch {
            return .error(500, "server_error", "the registry could not be written; see the bridge's log")
        }
        var answer = TokenAnswer(
            status: 200,
            fields: [
                ("token_type", .text("Bearer")), ("access_token", .text(access)),
                ("expires_in", .number(Int(lifetime))),
            ])
        if let refresh { answer.fields.append(("refresh_token", .text(refresh))) }
        return answer
    }
}

/// A linking step that cannot go on, shown to the person in the browser.
public struct LinkingPageError: Error, Sendable, Hashable {
    public var message: String
    /// A wrong password shows the form again; anything else is a dead end.
    public var isLoginFailure: Bool
    /// Seconds the client must wait before it tries again (HTTP 429 with `Retry-After`).
    public var retryAfter: Int?

    init(_ message: String, isLoginFailure: Bool = false, retryAfter: Int? = nil) {
        self.message = message
        self.isLoginFailure = isLoginFailure
        self.retryAfter = retryAfter
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
