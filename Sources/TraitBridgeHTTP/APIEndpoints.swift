import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgePresentation

/// The HTTP API under `/api/v1`, as `api/openapi.json` describes it (served at
/// `/api/v1/openapi.json`; the tests check every answer against it): the devices with per-trait
/// connectivity, one device, a command through the unified command path, homes, health. Every
/// operation but the document needs a bearer token from the store `/smarthome` uses; every error
/// is an RFC 9457 problem. The handlers only translate: the state answers from a copy of itself.
struct APIEndpoints: Sendable {
    let bridge: Bridge
    let linking: AccountLinking
    /// The OpenAPI document this build carries.
    let document: [UInt8]
    /// The devices' changes, for `/api/v1/changes` (absent: the route answers 404).
    var feed: ChangeFeed?
    /// The web UI's signed-in browsers, which call the API with their session cookie.
    var sessions: WebSessions?
    /// Reads a written value given in a person's form (`21.5 °C`, `heat`, `40 % open`).
    var presenter = ValuePresenter(table: PresentationTable())
    let maxBodyBytes = 64 * 1024

    /// Each path and the methods it answers; any other method is 405 with `Allow`.
    static let paths: [(path: String, methods: [HTTPRequest.Method])] =
        [
            ("api/v1/openapi.json", [.get]), ("api/v1/health", [.get]), ("api/v1/devices", [.get]),
            ("api/v1/devices/:device", [.get]), ("api/v1/devices/:device/commands", [.post]),
            ("api/v1/devices/:device/history", [.get]), ("api/v1/availability", [.get]),
            ("api/v1/changes", [.get]), ("api/v1/changes/socket", [.get]), ("api/v1/homes", [.get]),
        ] + homePaths

    func register(on router: Router<ClientRequestContext>) {
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .options, .trace, .init("QUERY")!]
        for (path, allowed) in Self.paths {
            let allow = (allowed + (allowed.contains(.get) ? [.head] : [])).map(\.rawValue).joined(separator: ", ")
            for method in methods where !allowed.contains(method) {
                router.on(RouterPath(path), method: method) { request, _ in
                    var response = Self.problem(
                        .methodNotAllowed, "method not allowed", "\(request.method.rawValue) is not one of \(allow)",
                        request)
                    response.headers[.allow] = allow
                    return response
                }
            }
        }
        router.get("api/v1/openapi.json") { _, _ in
            FulfillmentServer.json(.ok, document, headers: [.cacheControl: "max-age=300"])
        }
        router.get("api/v1/health") { request, _ in authorized(request) { health() } }
        router.get("api/v1/devices") { request, _ in authorized(request) { devices(request) } }
        router.get("api/v1/devices/:device") { request, context in
            authorized(request) {
                let name = Self.parameter(context, "device")
                if let display = request.uri.queryParameters["display"],
                    let refusal = Self.refuseParameter("display", String(display), request)
                {
                    return refusal
                }
                guard let document = bridge.snapshot.deviceDocument(name) else {
                    return Self.problem(
                        .notFound, "no such device",
                        "no device has the id or name '\(name)'"
                            + bridge.snapshot.didYouMean(name, kind: .device), request)
                }
                let shown = Self.wantsDisplay(request) ? withDisplay(document: document) : document
                return FulfillmentServer.json(.ok, shown)
            }
        }
        router.post("api/v1/devices/:device/commands") { request, context in
            await authorizedAsync(request, needs: .control) {
                await command(request, device: Self.parameter(context, "device"))
            }
        }
        if let feed {
            let stream = ChangeStream(bridge: bridge, feed: feed)
            router.get("api/v1/changes") { request, context in
                authorized(request) { stream.respond(request, channel: context.channel) }
            }
            router.get("api/v1/changes/socket") { request, _ in
                authorized(request) {
                    // The query is checked as the upgrade checks it: a bad one is 400 either way.
                    if case .failure(let refusal) = ChangeStream.options(request) { return refusal.response }
                    return Self.problem(
                        .upgradeRequired, "upgrade required",
                        "this is a WebSocket: send Connection: Upgrade and Upgrade: websocket", request)
                }
            }
        }
        router.get("api/v1/homes") { request, _ in
            authorized(request) { FulfillmentServer.json(.ok, bridge.snapshot.homeList()) }
        }
        registerHome(on: router)
        registerHistory(on: router)
    }

    // MARK: Operations

    private func health() -> Response {
        let (_, body) = OperationsEndpoints.readiness(
            of: bridge.snapshot, registryOpen: bridge.store != nil, countingDevices: true)
        return FulfillmentServer.json(.ok, JSONValue.object(body).serializedBytes())
    }

    private func devices(_ request: Request) -> Response {
        var filter = DeviceFilter()
        for (name, value) in request.uri.queryParameters {
            let text = String(value)
            if let refusal = Self.refuseParameter(name, text, request) { return refusal }
            _ = Self.applyFilter(name, text, to: &filter)  // unknown parameters are ignored, as a browser's are
        }
        let snapshot = bridge.snapshot
        let list = snapshot.deviceList(filter)
        guard Self.wantsDisplay(request) else { return FulfillmentServer.json(.ok, list) }
        return FulfillmentServer.json(.ok, withDisplay(list, snapshot))
    }

    /// At most this many devices of a list get their `display` (the web UI's cards are bounded so too).
    static let maxDisplayed = 500

    /// `?display=true`: values in people's words too (`display`), beside the values as sent.
    static func wantsDisplay(_ request: Request) -> Bool {
        request.uri.queryParameters["display"].map { $0 == "true" || $0 == "1" } ?? false
    }

    /// A device list with each device's headline (`"display": "on, brightness 79 %"`), for the first
    /// ``maxDisplayed``; `displayed` says how many have one.
    private func withDisplay(_ list: [UInt8], _ snapshot: BridgeState) -> [UInt8] {
        guard case .object(var root)? = try? JSONDocument.parse(list).root.value,
            case .array(var devices)? = root["devices"]
        else { return list }
        for index in devices.indices.prefix(Self.maxDisplayed) {
            guard case .object(var device) = devices[index], case .string(let id)? = device["id"],
                let document = snapshot.deviceDocument(id).flatMap({ try? JSONDocument.parse($0).root.value })
            else { continue }
            let state = document["state"] ?? .null
            device["display"] = .string(presenter.headline(state: state, description: document["description"]))
            devices[index] = .object(device)
        }
        root["devices"] = .array(devices)
        root["displayed"] = .int(Int64(min(devices.count, Self.maxDisplayed)))
        return JSONValue.object(root).serializedBytes()
    }

    /// A device document with every value in people's words (`"display": {"light/matter.OnOff.onOff": "on"}`).
    func withDisplay(document: [UInt8]) -> [UInt8] {
        guard case .object(var root)? = try? JSONDocument.parse(document).root.value else { return document }
        root["display"] = .object(presenter.display(state: root["state"] ?? .null, description: root["description"]))
        return JSONValue.object(root).serializedBytes()
    }

    private func command(_ request: Request, device name: String) async -> Response {
        guard let id = bridge.snapshot.deviceID(named: name) else {
            return Self.problem(
                .notFound, "no such device",
                "no device has the id or name '\(name)'"
                    + bridge.snapshot.didYouMean(name, kind: .device), request)
        }
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: maxBodyBytes) } catch {
            return Self.problem(
                .contentTooLarge, "command too large", "a command is at most \(maxBodyBytes) bytes", request)
        }
        let payload: [UInt8]
        do throws(InputRefusal) { payload = try personsForm(Array(buffer: body)) } catch {
            return Self.problem(
                .unprocessableContent, "command refused: valueOutOfRange", error.message, request,
                kind: "valueOutOfRange", extra: [("code", "valueOutOfRange")])
        }
        let answer = await bridge.command(id, payload: payload)
        guard let result = try? JSONDocument.parse(answer).root, let status = result["status"]?.string else {
            return Self.problem(.internalServerError, "no answer", "the bridge gave no result", request)
        }
        guard status == "error" else { return FulfillmentServer.json(.ok, answer) }
        let code = result["code"]?.string ?? "protocolError"
        let detail = result["message"]?.string ?? code
        var extra: [(String, JSONValue)] = [("code", .string(code))]
        if let challenge = result["challenge"]?.string { extra.append(("challenge", .string(challenge))) }
        let httpStatus: HTTPResponse.Status =
            switch code {
            case "deviceNotFound": .notFound
            case "protocolError": .badRequest
            default: .unprocessableContent
            }
        return Self.problem(httpStatus, "command refused: \(code)", detail, request, kind: code, extra: extra)
    }

    /// A write whose value is text in a person's form (`"21.5 °C"`, `"heat"`, `"40 % open"`), with the
    /// model's value in its place; anything else as it came (the bridge checks and refuses it). A
    /// number beyond what its unit reaches is refused here, in the person's unit.
    func personsForm(_ body: [UInt8]) throws(InputRefusal) -> [UInt8] {
        guard body.count <= maxBodyBytes, let root = try? JSONDocument.parse(body).root.value,
            case .object(var command) = root, case .string(let text)? = command["value"],
            case .string(let trait)? = command["trait"], case .string(let attribute)? = command["attribute"],
            let traitID = TraitID(parsing: trait),
            let metadata = try? bridge.snapshot.catalog.attributeMetadata(traitID, attribute)
        else { return body }
        let key = ValuePresenter.key(trait: trait, attribute: attribute)
        guard let value = try presenter.read(text, of: key, metadata: metadata) else { return body }
        command["value"] = value.jsonValue
        return JSONValue.object(command).serializedBytes()
    }

    // MARK: Parameters

    /// A query parameter over 256 bytes, or a connectivity that is none: the problem to answer.
    static func refuseParameter(_ name: Substring, _ text: String, _ request: Request) -> Response? {
        if text.utf8.count > 256 {
            return problem(.badRequest, "parameter too long", "'\(name)' is over 256 bytes", request)
        }
        if name == "display", !["true", "false", "1", "0"].contains(text) {
            return problem(.badRequest, "bad display", "display '\(text)' is not true or false", request)
        }
        if name == "connectivity", !["online", "offline", "partiallyOnline", "unknown"].contains(text) {
            return problem(
                .badRequest, "unknown connectivity",
                "connectivity '\(text)' is not one of online, offline, partiallyOnline, unknown", request)
        }
        return nil
    }

    /// Sets the device filter a parameter names (`home`, `room`, `zone`, `type`, `trait`,
    /// `connectivity`, `source`); false for any other parameter.
    static func applyFilter(_ name: Substring, _ text: String, to filter: inout DeviceFilter) -> Bool {
        switch name {
        case "home": filter.home = text
        case "room": filter.room = text
        case "zone": filter.zone = text
        case "type": filter.type = text
        case "trait": filter.trait = text
        case "source": filter.source = text
        case "connectivity": filter.connectivity = text
        default: return false
        }
        return true
    }

    // MARK: Authentication and problems

    func authorized(_ request: Request, _ body: () -> Response) -> Response {
        switch role(of: request, writing: false) {
        case .success: return body()
        case .failure(let refusal): return refusal.response
        }
    }

    /// Like ``authorized(_:_:)``, for an operation that needs at least `needs` (403 otherwise).
    func authorizedAsync(_ request: Request, needs: APIRole, _ body: () async -> Response) async -> Response {
        switch role(of: request, writing: true) {
        case .success(let role) where role >= needs: return await body()
        case .success(let role):
            return Self.problem(
                .forbidden, "forbidden",
                "this token's role is \(role.rawValue); this needs "
                    + (needs == .admin ? "admin " : "\(needs.rawValue) or admin ")
                    + "(the third field of its line in http.bearerTokensFile)", request)
        case .failure(let refusal): return refusal.response
        }
    }

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The caller's role: a bearer token's, or without one a signed-in browser's session (the web
    /// UI), whose writes must carry the session's CSRF token; the refusal otherwise.
    func role(of request: Request, writing: Bool) -> Result<APIRole, Refused> {
        let header = request.headers[.authorization]
        if header == nil, let sessions,
            let session = sessions.session(cookieHeader: request.headers[.cookie], now: Date())
        {
            if writing, !Secrets.matches(request.headers[Self.csrfHeader] ?? "", session.csrf) {
                return .failure(
                    Refused(
                        response: Self.problem(
                            .forbidden, "missing CSRF token",
                            "a signed-in browser's writes carry X-CSRF-Token (the page's csrf-token meta); reload it",
                            request)))
            }
            return .success(session.role)
        }
        switch linking.role(header, now: Date()) {
        case .success(let role): return .success(role)
        case .failure(let refusal): return .failure(Refused(response: Self.unauthorized(refusal, request)))
        }
    }

    /// A refusal, as the response to send.
    struct Refused: Error {
        var response: Response
    }

    private static func unauthorized(_ refusal: AccountLinking.Refusal, _ request: Request) -> Response {
        let detail =
            switch refusal {
            case .missing: "send Authorization: Bearer TOKEN (a token of http.bearerTokensFile, or an account's)"
            case .malformed: "the Authorization header is not 'Bearer TOKEN'"
            case .unknown: "the token is unknown or revoked"
            case .expired: "the token has expired: refresh it"
            case .registry: "the token could not be checked: the registry failed (see the bridge's log)"
            }
        var response = problem(.unauthorized, "unauthorized", detail, request)
        response.headers[.wwwAuthenticate] = refusal.challenge
        return response
    }

    /// An RFC 9457 problem: `type` names the kind, `instance` the request's path.
    static func problem(
        _ status: HTTPResponse.Status, _ title: String, _ detail: String, _ request: Request,
        kind: String? = nil, extra: [(String, JSONValue)] = []
    ) -> Response {
        let slug = kind ?? title.lowercased().replacingOccurrences(of: " ", with: "-")
        var object: JSONObject = [
            "type": .string("urn:traitbridge:problem:" + slug),
            "title": .string(title), "status": .int(Int64(status.code)), "detail": .string(detail),
            "instance": .string(String(request.uri.path.prefix(512))),
        ]
        for (name, value) in extra { object.append(name, value) }
        var response = FulfillmentServer.json(status, JSONValue.object(object).serializedBytes())
        response.headers[.contentType] = "application/problem+json"
        return response
    }

    static func parameter(_ context: ClientRequestContext, _ name: String) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }
}
