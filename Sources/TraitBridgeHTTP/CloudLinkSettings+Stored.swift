public import FoundationEssentials
public import TraitBridgeJSON

/// What a link made with the OAuth flow (`cloud link add --oauth-token-url …`) needs to buy new
/// access tokens: the partner's token endpoint, the client's id and secret, the refresh token.
public struct OAuthGrant: Sendable, Hashable {
    public var tokenURL: String
    public var clientID: String
    public var clientSecret: String
    public var refreshToken: String
    /// When the current access token runs out (`nil`: the partner did not say).
    public var accessExpiresAt: Date?

    public init(tokenURL: String, clientID: String, clientSecret: String, refreshToken: String, accessExpiresAt: Date?)
    {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.refreshToken = refreshToken
        self.accessExpiresAt = accessExpiresAt
    }
}

/// A registry row that cannot be a link: what is wrong and how to mend it.
public struct StoredLinkError: Error, Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var problem: String
    public var description: String {
        "the registry's cloud link '\(name)': \(problem); "
            + "remove it (traitbridge cloud link remove \(name)) and add it again"
    }
}

extension CloudLinkSettings {
    /// The link as the registry keeps it (tokens included; the registry is readable by its owner only).
    public var stored: JSONValue {
        var object = JSONObject()
        object.append("url", .string(url))
        object.append("token", .string(token))
        object.append("pollSeconds", .int(pollInterval.components.seconds))
        object.append("syncSeconds", .int(syncInterval.components.seconds))
        object.append("timeoutSeconds", .int(timeout.components.seconds))
        object.setIfPresent("caFile", caFile.map { .string($0) })
        object.setIfPresent("pushPublicKeyFile", pushPublicKeyFile.map { .string($0) })
        object.setIfPresent("pushIssuer", pushIssuer.map { .string($0) })
        if let oauth {
            var grant = JSONObject()
            grant.append("tokenUrl", .string(oauth.tokenURL))
            grant.append("clientId", .string(oauth.clientID))
            grant.append("clientSecret", .string(oauth.clientSecret))
            grant.append("refreshToken", .string(oauth.refreshToken))
            grant.setIfPresent("accessExpiresAt", oauth.accessExpiresAt.map { .double($0.timeIntervalSince1970) })
            object.append("oauth", .object(grant))
        }
        return .object(object)
    }

    /// A link from its registry row; every field is checked (the file is outside input too).
    public init(name: String, stored bytes: [UInt8]) throws(StoredLinkError) {
        func fail(_ problem: String) -> StoredLinkError { StoredLinkError(name: name, problem: problem) }
        guard let root = try? JSONDocument.parse(bytes).root, root.kind == .object else {
            throw fail("its settings are not a JSON object")
        }
        guard let url = root["url"]?.string, url.hasPrefix("http"), let token = root["token"]?.string else {
            throw fail("it has no url or token")
        }
        self.init(name: name, url: url, token: token)
        func seconds(_ key: String) throws(StoredLinkError) -> Duration? {
            guard let field = root[key] else { return nil }
            guard let value = field.int64, (1...86_400).contains(value) else { throw fail("\(key) is not 1 to 86400") }
            return .seconds(value)
        }
        if let value = try seconds("pollSeconds") { pollInterval = value }
        if let value = try seconds("syncSeconds") { syncInterval = value }
        if let value = try seconds("timeoutSeconds") { timeout = value }
        caFile = root["caFile"]?.string
        pushPublicKeyFile = root["pushPublicKeyFile"]?.string
        pushIssuer = root["pushIssuer"]?.string
        if let grant = root["oauth"] {
            guard let tokenURL = grant["tokenUrl"]?.string, let clientID = grant["clientId"]?.string,
                let secret = grant["clientSecret"]?.string, let refresh = grant["refreshToken"]?.string
            else { throw fail("its oauth block lacks tokenUrl, clientId, clientSecret or refreshToken") }
            let expires = grant["accessExpiresAt"]?.double.flatMap {
                $0.isFinite ? Date(timeIntervalSince1970: $0) : nil
            }
            oauth = OAuthGrant(
                tokenURL: tokenURL, clientID: clientID, clientSecret: secret, refreshToken: refresh,
                accessExpiresAt: expires)
        }
    }
}
