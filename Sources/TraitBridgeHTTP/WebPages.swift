import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgePresentation

/// The web UI under `/ui`: server-rendered pages (devices by room, one device trait by trait, the
/// home above the devices), a small script of our own that calls the HTTP API with the session
/// cookie and its CSRF token, and follows `/api/v1/changes` to redraw what changed. No build step,
/// no framework, nothing from another origin. Sign-in: the owner's password (`http.oauth`,
/// throttled like the OAuth page) or a one-time code (`/ui/login?code=…`, the demo prints one).
struct WebPages: Sendable {
    let bridge: Bridge
    let sessions: WebSessions
    let linking: AccountLinking
    let pages: LinkingPages
    let presenter: ValuePresenter
    /// At most this many devices on the devices page (a filter narrows them; the page says so).
    static let maxCards = 500

    func register(on router: Router<ClientRequestContext>) {
        router.get("ui/login") { request, context in loginPage(request, client: context.client) }
        router.post("ui/login") { request, context in await login(request, client: context.client) }
        router.post("ui/logout") { request, _ in logout(request) }
        router.get("ui/assets/app.js") { _, _ in Self.asset(WebAssets.script, type: "text/javascript; charset=utf-8") }
        router.get("ui/assets/app.css") { _, _ in Self.asset(WebAssets.style, type: "text/css; charset=utf-8") }
        router.get("ui/assets/icon.svg") { _, _ in Self.asset(WebAssets.icon, type: "image/svg+xml") }
        router.get("ui") { request, _ in signedIn(request) { session in devicesPage(request, session) } }
        router.get("ui/home") { request, _ in await signedInAsync(request) { session in await homePage(session) } }
        router.get("ui/devices/:device") { request, context in
            await signedInAsync(request) { session in
                let name = APIEndpoints.parameter(context, "device")
                let range = request.uri.queryParameters["range"].flatMap { WebHTML.HistoryRange(rawValue: String($0)) }
                return await devicePage(name, range: range ?? .day, session)
                    ?? Self.page(.notFound, "No such device", WebHTML.missing(name))
            }
        }
        router.get("ui/home/sections") { request, _ in
            signedIn(request) { session in
                Self.fragment(.ok, WebHTML(state: bridge.snapshot, role: session.role, presenter: presenter).homePage())
            }
        }
        fragment("ui/cards/:device", on: router) { $0.card($1) }
        fragment("ui/devices/:device/traits", on: router) { $0.traits($1) }
    }

    /// A piece of a page the script redraws (a card, a trait table), for a signed-in browser; 404
    /// (empty) when there is no such device.
    private func fragment(
        _ path: RouterPath, on router: Router<ClientRequestContext>,
        _ render: @escaping @Sendable (WebHTML, String) -> String?
    ) {
        router.get(path) { request, context in
            signedIn(request) { session in
                let html = render(
                    WebHTML(state: bridge.snapshot, role: session.role, presenter: presenter),
                    APIEndpoints.parameter(context, "device"))
                return html.map { Self.fragment(.ok, $0) } ?? Self.fragment(.notFound, "")
            }
        }
    }

    // MARK: Pages

    private func devicesPage(_ request: Request, _ session: WebSessions.Session) -> Response {
        var filter = DeviceFilter()
        for (name, value) in request.uri.queryParameters where value.utf8.count <= 256 {
            _ = APIEndpoints.applyFilter(name, String(value), to: &filter)
        }
        let render = WebHTML(state: bridge.snapshot, role: session.role, presenter: presenter)
        return Self.page(.ok, "Devices", render.devicesByRoom(filter, limit: Self.maxCards), session: session)
    }

    /// The device part by part, then its history over `range` (read from the history's file).
    private func devicePage(_ name: String, range: WebHTML.HistoryRange, _ session: WebSessions.Session) async
        -> Response?
    {
        let render = WebHTML(state: bridge.snapshot, role: session.role, presenter: presenter)
        guard let (title, body) = render.devicePage(name), let id = render.state.deviceID(named: name) else {
            return nil
        }
        let now = Date()
        let ask: JSONValue = [
            "device": .string(id.rawValue), "from": .string(Timestamp.iso8601(now - range.seconds)),
            "to": .string(Timestamp.iso8601(now)), "limit": 10_000,
        ]
        let bytes = await bridge.request("history", payload: ask.serializedBytes())
        let answer = (try? JSONDocument.parse(bytes).root.value) ?? ["status": "error", "message": "no answer"]
        let history = render.historySection(answer, id: id.rawValue, range: range)
        return Self.page(.ok, title, body + history, session: session)
    }

    private func homePage(_ session: WebSessions.Session) async -> Response {
        let render = WebHTML(state: bridge.snapshot, role: session.role, presenter: presenter)
        // The script redraws the sections from /ui/home/sections when something changes.
        var body = #"<div id="home-sections">"# + render.homePage() + "</div>"
        // Then the devices that dropped most over the last day and week (read once, with the page).
        var answers: [(title: String, answer: JSONValue)] = []
        let now = Date()
        for (title, seconds) in [("Last day", 86_400.0), ("Last week", 604_800.0)] {
            let ask: JSONValue = [
                "from": .string(Timestamp.iso8601(now - seconds)), "to": .string(Timestamp.iso8601(now)),
            ]
            let bytes = await bridge.request("history-availability", payload: ask.serializedBytes())
            answers.append((title, (try? JSONDocument.parse(bytes).root.value) ?? ["status": "error"]))
        }
        body += render.availabilitySection(answers)
        return Self.page(.ok, "Home", body, session: session)
    }

    // MARK: Signing in and out

    private func loginPage(_ request: Request, client: String) -> Response {
        if let code = request.uri.queryParameters["code"] {
            // Opening the link only asks: a chat app's link preview must not use the code up.
            guard sessions.isRedeemable(String(code), now: Date()) else { return Self.usedLink }
            return Self.page(.ok, "Sign in", WebHTML.oneTimeForm(code: String(code)))
        }
        return Self.page(.ok, "Sign in", WebHTML.loginForm(problem: nil))
    }

    private static var usedLink: Response {
        page(.unauthorized, "Sign in", WebHTML.loginForm(problem: "That one-time link was used or has expired."))
    }

    private func login(_ request: Request, client: String) async -> Response {
        guard Self.sameOrigin(request) else {
            return Self.page(.forbidden, "Sign in", WebHTML.loginForm(problem: "The form came from another site."))
        }
        guard let buffer = try? await request.body.collect(upTo: 16 * 1024) else {
            return Self.page(.contentTooLarge, "Sign in", WebHTML.loginForm(problem: "The form is too large."))
        }
        let fields = FormFields(Array(buffer: buffer))
        if let code = fields["code"] {
            guard let role = sessions.redeem(code, now: Date()) else { return Self.usedLink }
            return signIn(user: "one-time login", role: role)
        }
        let result = linking.checkPassword(
            account: fields["username"] ?? "", password: fields["password"] ?? "", client: client, now: Date())
        switch result {
        case .success(let user): return signIn(user: user, role: .admin)
        case .failure(let error):
            pages.note(error, client: client)
            var response = Self.page(
                error.retryAfter == nil ? .unauthorized : .tooManyRequests, "Sign in",
                WebHTML.loginForm(problem: error.message))
            if let seconds = error.retryAfter { response.headers[.retryAfter] = String(seconds) }
            return response
        }
    }

    private func signIn(user: String, role: APIRole) -> Response {
        let (cookie, _) = sessions.open(user: user, role: role, now: Date())
        var response = Self.redirect("/ui/")
        response.headers[.setCookie] = sessions.setCookie(cookie)
        return response
    }

    private func logout(_ request: Request) -> Response {
        guard Self.sameOrigin(request) else { return Self.page(.forbidden, "Sign out", "<p>Not from this site.</p>") }
        sessions.close(cookieHeader: request.headers[.cookie])
        var response = Self.redirect("/ui/login")
        response.headers[.setCookie] = sessions.setCookie(nil)
        return response
    }

    /// A page for a signed-in browser; anyone else goes to the login page.
    private func signedIn(_ request: Request, _ body: (WebSessions.Session) -> Response) -> Response {
        guard let session = sessions.session(cookieHeader: request.headers[.cookie], now: Date()) else {
            return Self.redirect("/ui/login")
        }
        return body(session)
    }

    /// The same for a page that waits on the bridge (its history).
    private func signedInAsync(_ request: Request, _ body: (WebSessions.Session) async -> Response) async -> Response {
        guard let session = sessions.session(cookieHeader: request.headers[.cookie], now: Date()) else {
            return Self.redirect("/ui/login")
        }
        return await body(session)
    }

    /// A browser's post names this listener as its origin (or sends none, as old browsers do).
    static func sameOrigin(_ request: Request) -> Bool {
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority ?? request.headers[HTTPField.Name("Host")!] else { return false }
        return origin == "http://" + host || origin == "https://" + host
    }

    // MARK: Responses

    static let securityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static func page(
        _ status: HTTPResponse.Status, _ title: String, _ body: String, session: WebSessions.Session? = nil
    ) -> Response {
        let html = WebHTML.document(title: title, body: body, csrf: session?.csrf, role: session?.role)
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: securityPolicy, .xContentTypeOptions: "nosniff",
                // Not no-referrer: with it, a browser's form posts say `Origin: null`.
                .init("Referrer-Policy")!: "same-origin",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func fragment(_ status: HTTPResponse.Status, _ html: String) -> Response {
        Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .xContentTypeOptions: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    static func asset(_ text: String, type: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: type, .cacheControl: "max-age=300", .xContentTypeOptions: "nosniff"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
