import CoreMetrics
import FoundationEssentials
import Hummingbird
import Logging
import NIOCore
import TraitBridgeEngine
import TraitBridgeJSON

/// The OAuth routes as HTTP: the login/consent page, its post, and the token endpoint.
struct LinkingPages: Sendable {
    let linking: AccountLinking
    let maxBodyBytes: Int
    /// Told each wrong password and each attempt held back (the health topic counts them).
    var bridge: Bridge?
    var logger: Logger
    static let failures = Counter(label: "traitbridge_login_failures_total")
    static let waits = Counter(label: "traitbridge_login_waits_total")

    /// `GET /oauth/authorize?client_id…&redirect_uri…&state…&response_type=code`.
    func authorizePage(_ request: Request) -> Response {
        let query = FormFields(Array((request.uri.query ?? "").utf8))
        switch linking.authorizeRequest(query) {
        case .success(let checked): return page(.ok, form(checked, problem: nil))
        case .failure(let error): return page(.badRequest, "<p>\(Self.escape(error.message))</p>")
        }
    }

    /// `POST /oauth/authorize` (the form) from `client` (its address): on success a redirect back to
    /// Google with the code; a wrong password shows the form again (401); a client that failed too
    /// often is told to wait (429 with `Retry-After`), the form still there.
    func login(_ request: Request, client: String) async -> Response {
        guard let fields = await form(request) else { return page(.contentTooLarge, "<p>The form is too large.</p>") }
        let result = linking.login(fields, client: client, now: Date())
        if case .failure(let error) = result, error.isLoginFailure { note(error, client: client) }
        switch result {
        case .success(let location):
            return Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
        case .failure(let error) where error.isLoginFailure:
            guard case .success(let checked) = linking.authorizeRequest(fields) else {
                return page(.badRequest, "<p>\(Self.escape(error.message))</p>")
            }
            var response = page(
                error.retryAfter == nil ? .unauthorized : .tooManyRequests, form(checked, problem: error.message))
            if let seconds = error.retryAfter { response.headers[.retryAfter] = String(seconds) }
            return response
        case .failure(let error):
            return page(.badRequest, "<p>\(Self.escape(error.message))</p>")
        }
    }

    /// Logs and counts a wrong password or a held-back attempt (never what was typed: a password
    /// typed into the user field must not reach the log).
    func note(_ error: LinkingPageError, client: String) {
        if error.retryAfter != nil {
            Self.waits.increment()
            logger.notice("login from \(client) held back: \(error.message)")
        } else {
            Self.failures.increment()
            logger.warning("wrong user name or password on the login page from \(client)")
        }
        let counts = linking.loginCounts
        bridge?.noteLogins(failed: counts.failed, waited: counts.waited)
    }

    /// `POST /oauth/token`.
    func token(_ request: Request) async -> Response {
        guard let fields = await form(request) else {
            return answer(.init(status: 413, fields: [("error", .text("invalid_request"))]))
        }
        return answer(linking.token(fields, basic: Self.basicCredentials(request.headers[.authorization]), now: Date()))
    }

    private func answer(_ token: AccountLinking.TokenAnswer) -> Response {
        var object = JSONObject()
        for (name, value) in token.fields {
            switch value {
            case .text(let text): object.append(name, .string(text))
            case .number(let number): object.append(name, .int(Int64(number)))
            }
        }
        var headers: HTTPFields = [:]
        if token.status == 401 { headers[.wwwAuthenticate] = #"Basic realm="traitbridge""# }
        return FulfillmentServer.json(
            .init(code: token.status), JSONValue.object(object).serializedBytes(), headers: headers)
    }

    private func form(_ request: Request) async -> FormFields? {
        guard let buffer = try? await request.body.collect(upTo: maxBodyBytes) else { return nil }
        return FormFields(Array(buffer: buffer))
    }

    /// `Authorization: Basic base64(id:secret)`, as RFC 6749 §2.3.1 lets a client authenticate.
    static func basicCredentials(_ header: String?) -> (id: String, secret: String)? {
        guard let header, header.count <= 1024 else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: String(parts[1])),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (
            FormFields.decode(Array(text[..<colon].utf8)),
            FormFields.decode(Array(text[text.index(after: colon)...].utf8))
        )
    }

    private func form(_ request: AccountLinking.AuthorizeRequest, problem: String?) -> String {
        let hidden = [
            ("client_id", request.clientID), ("redirect_uri", request.redirectURI), ("state", request.state),
            ("response_type", "code"),
        ]
        .map { #"<input type="hidden" name="\#($0.0)" value="\#(Self.escape($0.1))">"# }.joined()
        return """
            <h1>Link TraitBridge</h1>
            <p>Google asks to see and control the devices of this bridge.</p>
            \(problem.map { #"<p role="alert"><strong>\#(Self.escape($0))</strong></p>"# } ?? "")
            <form method="post" action="authorize">\(hidden)
            <p><label>User <input name="username" autocomplete="username" required></label></p>
            <p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
            <p><button type="submit">Allow</button></p>
            </form>
            """
    }

    private func page(_ status: HTTPResponse.Status, _ body: String) -> Response {
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>TraitBridge</title>
            <meta name="viewport" content="width=device-width"></head><body>\(body)</body></html>
            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; form-action 'self'; frame-ancestors 'none'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// HTML text and attribute escaping.
    static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }
}
