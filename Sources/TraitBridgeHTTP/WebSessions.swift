import Foundation
public import FoundationEssentials
import Synchronization

/// The web UI's signed-in browsers: a session per login, known by a random cookie (HttpOnly,
/// SameSite=Strict) kept here only as its SHA-256, with the role it was given and a CSRF token
/// every write must echo in `X-CSRF-Token`; and one-time login codes (the demo prints one).
/// Bounded: at most ``maxSessions`` sessions (the oldest go first) and ``maxCodes`` codes.
public final class WebSessions: Sendable {
    /// What a session may do, for whom, and the token its writes carry.
    struct Session: Sendable {
        var user: String
        var role: APIRole
        var csrf: String
        var expires: Date
    }

    static let maxSessions = 1_000
    static let maxCodes = 16
    static let cookieName = "tb_session"
    let lifetime: TimeInterval
    /// Set the cookie's `Secure` attribute (the listener has TLS).
    let secureCookie: Bool
    private let state = Mutex<(sessions: [String: Session], codes: [String: (Date, APIRole)])>(([:], [:]))

    public init(lifetime: Duration = .seconds(8 * 3600), secureCookie: Bool = false) {
        self.lifetime = lifetime.timeInterval
        self.secureCookie = secureCookie
    }

    /// A code that signs one browser in once, within `validity`, with `role`: `/ui/login?code=…`.
    public func issueOneTimeCode(role: APIRole = .admin, validity: Duration = .seconds(900), now: Date = Date())
        -> String
    {
        let code = Secrets.makeToken(prefix: "tbl_")
        state.withLock { state in
            state.codes = state.codes.filter { $0.value.0 > now }
            if state.codes.count >= Self.maxCodes, let oldest = state.codes.min(by: { $0.value.0 < $1.value.0 }) {
                state.codes.removeValue(forKey: oldest.key)
            }
            state.codes[Secrets.hash(code)] = (now + validity.timeInterval, role)
        }
        return code
    }

    /// The role a one-time code gives, once (it is gone afterwards); nil when unknown or expired.
    func redeem(_ code: String, now: Date) -> APIRole? {
        guard code.utf8.count <= 128 else { return nil }
        return state.withLock { state in
            guard let (expires, role) = state.codes.removeValue(forKey: Secrets.hash(code)), expires > now else {
                return nil
            }
            return role
        }
    }

    /// Whether `code` would sign in now, without using it (the page that asks to use it).
    func isRedeemable(_ code: String, now: Date) -> Bool {
        guard code.utf8.count <= 128 else { return false }
        return state.withLock { state in state.codes[Secrets.hash(code)].map { $0.0 > now } ?? false }
    }

    /// A new session: the cookie's value (the browser's only copy) and the session.
    func open(user: String, role: APIRole, now: Date) -> (cookie: String, session: Session) {
        let cookie = Secrets.makeToken(prefix: "tbs_")
        let session = Session(
            user: user, role: role, csrf: Secrets.makeToken(prefix: "tbx_"), expires: now + lifetime)
        state.withLock { state in
            if state.sessions.count >= Self.maxSessions {
                state.sessions = state.sessions.filter { $0.value.expires > now }
                if state.sessions.count >= Self.maxSessions,
                    let oldest = state.sessions.min(by: { $0.value.expires < $1.value.expires })
                {
                    state.sessions.removeValue(forKey: oldest.key)
                }
            }
            state.sessions[Secrets.hash(cookie)] = session
        }
        return (cookie, session)
    }

    /// The session a `Cookie` header names, if it is current.
    func session(cookieHeader: String?, now: Date) -> Session? {
        guard let cookie = Self.cookie(in: cookieHeader) else { return nil }
        return state.withLock { state in
            let key = Secrets.hash(cookie)
            guard let session = state.sessions[key] else { return nil }
            guard session.expires > now else {
                state.sessions.removeValue(forKey: key)
                return nil
            }
            return session
        }
    }

    /// Signs the browser out: its session is gone.
    func close(cookieHeader: String?) {
        guard let cookie = Self.cookie(in: cookieHeader) else { return }
        _ = state.withLock { $0.sessions.removeValue(forKey: Secrets.hash(cookie)) }
    }

    /// `Set-Cookie` for a new session (or, with nil, one that clears it).
    func setCookie(_ value: String?) -> String {
        let secure = secureCookie ? "; Secure" : ""
        guard let value else { return "\(Self.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0\(secure)" }
        return "\(Self.cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(lifetime))\(secure)"
    }

    /// This bridge's cookie in a `Cookie` header (at most 4 KiB read).
    static func cookie(in header: String?) -> String? {
        guard let header, header.utf8.count <= 4096 else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard pair.hasPrefix(cookieName + "=") else { continue }
            let value = String(pair.dropFirst(cookieName.count + 1))
            return value.isEmpty || value.utf8.count > 128 ? nil : value
        }
        return nil
    }
}
