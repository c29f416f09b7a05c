import FoundationEssentials
public import TraitBridgeCloud

/// What `serve` needs to be Google's partner cloud over HTTP: where to listen, TLS, who may call
/// `/smarthome` (static bearer tokens, OAuth account linking) and the bounds on requests.
///
/// Secrets (client secret, the user's password) are read from files by the config loader and
/// kept here only in memory; nothing in this module prints them.
public struct FulfillmentSettings: Sendable {
    /// The listen address; port 0 takes any free port (the log line says which).
    public var host = "127.0.0.1"
    public var port = 8080
    /// PEM files; both or neither. Without them the listener speaks plain HTTP (put it behind a
    /// TLS-terminating proxy: Google calls only https:// URLs).
    public var tlsCertificateFile: String?
    public var tlsKeyFile: String?
    /// The URL Google is given (for the printed fulfillment and authorization URLs).
    public var publicURL: String?
    /// `TOKEN [agentUserId]` per line: tokens for scripts and tests, valid until removed.
    public var bearerTokensFile: String?
    /// The user id SYNC reports for static tokens that name none.
    public var defaultAgentUserID = "traitbridge"
    public var oauth: OAuthSettings?
    /// Report State and Request Sync to Home Graph; off without a service-account key.
    public var homeGraph: HomeGraphSettings?
    /// The largest request body read; a larger one is answered 413.
    public var maxBodyBytes = 1 << 20
    /// How many device changes the API's change streams keep for clients that resume or fall
    /// behind; a client further behind than this is told and dropped.
    public var changeHistory = 4096
    /// How long a change-stream client that stopped reading keeps its connection (seconds).
    public var stalledClientSeconds = 60
    /// Which EXECUTE commands need the user's yes or PIN (the engine applies them).
    public var challenge = ChallengeRules()
    /// The ICE servers a camera's live view hands out with GetCameraStream (a JSON array of
    /// RTCIceServer, as text): none by default — viewers and cameras on one network need none, and
    /// nothing is sent to a public STUN server unless it is named here.
    public var iceServers = "[]"

    public init() {}

    /// The base URL the listener answers on (its own address when no public URL is set).
    public func baseURL(port actualPort: Int) -> String {
        publicURL ?? "\(tlsCertificateFile == nil ? "http" : "https")://\(host):\(actualPort)"
    }
}

/// OAuth 2.0 account linking for one configured user, as Google's account linking expects:
/// authorization-code flow, client id and secret, refresh tokens.
public struct OAuthSettings: Sendable {
    public var clientID: String
    public var clientSecret: String
    /// Where `/oauth/authorize` may send the browser back (Google's is
    /// `https://oauth-redirect.googleusercontent.com/r/<project id>`); anything else is refused.
    public var redirectURIs: [String]
    /// The one user who may link, and their password; the user name is the `agentUserId`.
    public var user: String
    public var password: String
    public var accessTokenLifetime: Duration = .seconds(3600)
    public var codeLifetime: Duration = .seconds(600)

    public init(clientID: String, clientSecret: String, redirectURIs: [String], user: String, password: String) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURIs = redirectURIs
        self.user = user
        self.password = password
    }
}

/// Where and how often the bridge tells Google's Home Graph about changes.
public struct HomeGraphSettings: Sendable {
    /// The Google service-account key file (JSON); its `token_uri` is where tokens come from.
    public var serviceAccountKeyFile: String
    /// Home Graph's base URL (tests point it at a local receiver).
    public var baseURL = "https://homegraph.googleapis.com"
    /// Value changes are gathered this long into one request; a device going offline is sent at once.
    public var batch: Duration = .milliseconds(500)
    /// Name, room or device-list changes wait this long (more may follow) before Request Sync.
    public var syncDelay: Duration = .seconds(2)
    /// The most devices in one Report State request.
    public var maxDevicesPerReport = 200

    public init(serviceAccountKeyFile: String) {
        self.serviceAccountKeyFile = serviceAccountKeyFile
    }
}

/// A fulfillment listener that cannot start; the text says what to fix.
public enum FulfillmentSetupError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String, what: String)
    case badLine(path: String, line: Int, reason: String)
    case tls(String)
    case notListening
    case badKey(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let what): "cannot read \(what) '\(path)'; check the path and its permissions"
        case .badLine(let path, let line, let reason): "\(path):\(line): \(reason)"
        case .tls(let reason): "cannot use the TLS certificate or key: \(reason)"
        case .badKey(let path, let reason): "\(path): \(reason)"
        case .notListening: "the HTTP listener did not start within 10 s; is the address in use? (see the log)"
        }
    }
}
