import Crypto
import FoundationEssentials
import Hummingbird
import NIOCore
import Synchronization
public import TraitBridgeEngine
public import TraitBridgeJSON
import _CryptoExtras

/// A local Home Graph: the partner clouds this bridge links to push Report State and Request Sync
/// here as they would to Google's (`POST /v1/devices:reportStateAndNotification`,
/// `POST /v1/devices:requestSync`), so a change reaches the bridge at once instead of at the next
/// poll. Each partner authenticates as Google's partners do: a JWT signed with its service
/// account's key, exchanged at `POST /token` (the JWT bearer grant) for an access token that is
/// good for one link only.
public final class LinkHomeGraph: Sendable {
    struct Partner: Sendable {
        var link: String
        var key: _RSA.Signing.PublicKey
        var issuer: String?
    }

    private let partners = Mutex<[Partner]>([])
    let bridge: Bridge
    /// Access tokens by SHA-256, each for one link, for an hour; bounded.
    private let tokens = Mutex<[String: (link: String, expiresAt: Date)]>([:])
    private let links = Mutex<[String: CloudLink]>([:])
    static let tokenLifetime: TimeInterval = 3600
    static let maxTokens = 1024
    static let maxBodyBytes = 4 << 20

    /// The links that accept pushes (those with `pushPublicKeyFile`); a key that cannot be read
    /// stops `serve` before it starts, naming the file.
    public init(links: [CloudLinkSettings], bridge: Bridge) throws(FulfillmentSetupError) {
        self.bridge = bridge
        try update(links)
    }

    /// The links now (added or removed while the bridge runs): a removed link's partner can no
    /// longer get or use a token.
    public func update(_ links: [CloudLinkSettings]) throws(FulfillmentSetupError) {
        var partners: [Partner] = []
        for link in links {
            guard let path = link.pushPublicKeyFile else { continue }
            guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw .unreadable(path: path, what: "the partner's public key (pushPublicKeyFile)")
            }
            do {
                partners.append(
                    Partner(
                        link: link.name, key: try _RSA.Signing.PublicKey(pemRepresentation: pem),
                        issuer: link.pushIssuer))
            } catch {
                throw .badKey(path: path, reason: "not an RSA public key in PEM: \(error)")
            }
        }
        let names = Set(links.map(\.name))
        self.partners.withLock { $0 = partners }
        tokens.withLock { tokens in tokens = tokens.filter { names.contains($0.value.link) } }
        self.links.withLock { attached in attached = attached.filter { names.contains($0.key) } }
    }

    public var isEmpty: Bool { partners.withLock { $0.isEmpty } }

    /// The `aud` a partner's JWT must carry: this listener's `/token` URL (the public URL's, and
    /// the listen address's) — a JWT made for another audience (Google's own token endpoint) is
    /// refused here.
    private let audiences = Mutex<Set<String>>([])

    func listening(at base: String, settings: FulfillmentSettings, port: Int) {
        let scheme = settings.tlsCertificateFile == nil ? "http" : "https"
        var urls: Set<String> = [base + "/token", "\(scheme)://\(settings.host):\(port)/token"]
        if ["127.0.0.1", "::1", "localhost"].contains(settings.host) {
            urls.insert("\(scheme)://localhost:\(port)/token")
        }
        audiences.withLock { $0.formUnion(urls) }
    }

    /// Lets pushes for `link` reach its client (Request Sync, and the slower poll while pushed to).
    public func attach(_ link: CloudLink) { links.withLock { $0[link.settings.name] = link } }

    // MARK: Routes

    /// `POST /token`: `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<JWT>`.
    func token(_ request: Request) async -> Response {
        guard let bytes = try? await request.body.collect(upTo: 64 * 1024) else {
            return Self.oauthError(.contentTooLarge, "invalid_request", "the body is over 64 KiB")
        }
        let form = FormFields(Array(buffer: bytes))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"]
        else {
            return Self.oauthError(
                .badRequest, "unsupported_grant_type", "expected grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer"
            )
        }
        let now = Date()
        guard let link = verify(assertion, now: now) else {
            return Self.oauthError(
                .badRequest, "invalid_grant",
                "the JWT is not signed by a linked partner, expired, or not for this bridge's /token URL (aud)")
        }
        let token = Secrets.makeToken(prefix: "tbl_")
        tokens.withLock { tokens in
            tokens = tokens.filter { $0.value.expiresAt > now }
            if tokens.count >= Self.maxTokens, let oldest = tokens.min(by: { $0.value.expiresAt < $1.value.expiresAt })
            {
                tokens.removeValue(forKey: oldest.key)
            }
            tokens[Secrets.hash(token)] = (link, now + Self.tokenLifetime)
        }
        let answer: JSONValue = [
            "access_token": .string(token), "token_type": "Bearer", "expires_in": .int(3600),
        ]
        return FulfillmentServer.json(.ok, answer.serializedBytes())
    }

    /// `POST /v1/devices:reportStateAndNotification`: the states go to the link's devices.
    func reportState(_ request: Request) async -> Response {
        guard let link = authenticate(request) else { return Self.unauthorized() }
        guard let body = try? await request.body.collect(upTo: Self.maxBodyBytes) else {
            return Self.googleError(.contentTooLarge, "the body is over \(Self.maxBodyBytes) bytes")
        }
        let bytes = Array(buffer: body)
        guard let root = try? JSONDocument.parse(bytes).root, root["payload"]?["devices"] != nil else {
            return Self.googleError(.badRequest, "expected {agentUserId, payload: {devices: {states: {…}}}}")
        }
        links.withLock { $0[link] }?.notePush()
        bridge.linkPushed(bytes, link: link)
        let answer: JSONValue = ["requestId": .string(root["requestId"]?.string ?? "")]
        return FulfillmentServer.json(.ok, answer.serializedBytes())
    }

    /// `POST /v1/devices:requestSync`: the link asks its partner for a SYNC now.
    func requestSync(_ request: Request) async -> Response {
        guard let link = authenticate(request) else { return Self.unauthorized() }
        _ = try? await request.body.collect(upTo: 64 * 1024)
        links.withLock { $0[link] }?.requestSync()
        return FulfillmentServer.json(.ok, Array("{}".utf8))
    }

    // MARK: Checks

    private func authenticate(_ request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let hash = Secrets.hash(String(header.dropFirst("Bearer ".count)))
        let now = Date()
        return tokens.withLock { tokens in
            guard let entry = tokens[hash], entry.expiresAt > now else { return nil }
            return entry.link
        }
    }

    /// The link whose partner signed `jwt` (RS256, not expired, issued by the configured issuer).
    func verify(_ jwt: String, now: Date) -> String? {
        guard let (signed, signature, claims) = Self.parseJWT(jwt),
            let expires = claims["exp"]?.double, expires > now.timeIntervalSince1970
        else { return nil }
        if let issued = claims["iat"]?.double, issued > now.timeIntervalSince1970 + 300 { return nil }
        guard let audience = claims["aud"]?.string, audiences.withLock({ $0.contains(audience) }) else { return nil }
        for partner in partners.withLock({ $0 }) {
            if let issuer = partner.issuer, claims["iss"]?.string != issuer { continue }
            let valid = partner.key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: signed, padding: .insecurePKCS1v1_5)
            if valid { return partner.link }
        }
        return nil
    }

    /// An RS256 JWT taken apart: the signed bytes, the signature and the claims; `nil` for
    /// anything else (at most 16 KiB is read).
    public static func parseJWT(_ jwt: String) -> (signed: [UInt8], signature: [UInt8], claims: JSON)? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard jwt.utf8.count <= 16 * 1024, parts.count == 3,
            let headerBytes = Self.base64URLDecode(parts[0]), let claimBytes = Self.base64URLDecode(parts[1]),
            let signature = Self.base64URLDecode(parts[2]),
            let header = try? JSONDocument.parse(headerBytes).root, header["alg"]?.string == "RS256",
            let claims = try? JSONDocument.parse(claimBytes).root, claims.kind == .object
        else { return nil }
        return (Array(jwt.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)), signature, claims)
    }

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    static func oauthError(_ status: HTTPResponse.Status, _ code: String, _ description: String) -> Response {
        let body: JSONValue = ["error": .string(code), "error_description": .string(description)]
        return FulfillmentServer.json(status, body.serializedBytes())
    }

    static func googleError(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let body: JSONValue = ["error": ["code": .int(Int64(status.code)), "message": .string(message)]]
        return FulfillmentServer.json(status, body.serializedBytes())
    }

    static func unauthorized() -> Response {
        googleError(.unauthorized, "a valid access token from POST /token is required (Authorization: Bearer …)")
    }
}
