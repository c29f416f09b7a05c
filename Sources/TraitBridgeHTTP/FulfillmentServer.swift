import FoundationEssentials
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
public import Logging
import NIOCore
import NIOSSL
import TraitBridgeCloud
public import TraitBridgeEngine
import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgePresentation

/// The HTTP side of `serve`: Google's fulfillment endpoint and account linking on one listener.
///
/// `POST /smarthome` (bearer token) → ``Bridge/smartHome(_:body:agentUserID:source:)``;
/// `GET`/`POST /oauth/authorize` and `POST /oauth/token` → ``AccountLinking``. Every answer is
/// made here, in Google's or OAuth's shape: nothing a caller sends can end in a 500 with a trace.
public enum FulfillmentServer {
    /// The Hummingbird application (a swift-service-lifecycle service); `onListening` gets the
    /// base URL once the socket is bound.
    public static func application(
        settings: FulfillmentSettings, bridge: Bridge, linking: AccountLinking, logger: Logger,
        homeGraph: LinkHomeGraph? = nil, operations: OperationsEndpoints? = nil, apiDocument: [UInt8]? = nil,
        changeFeed: ChangeFeed? = nil, webSessions: WebSessions? = nil,
        presenter: ValuePresenter = ValuePresenter(table: PresentationTable()),
        onListening: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(FulfillmentSetupError) -> some ApplicationProtocol {
        let router = Router(context: ClientRequestContext.self)
        operations?.register(on: router)
        let pages = LinkingPages(linking: linking, maxBodyBytes: 16 * 1024, bridge: bridge, logger: logger)
        let socketRouter = Router(context: SocketRequestContext.self)
        if let apiDocument {
            let endpoints = APIEndpoints(
                bridge: bridge, linking: linking, document: apiDocument, feed: changeFeed, sessions: webSessions,
                presenter: presenter)
            endpoints.register(on: router)
            if let changeFeed {
                ChangeSocket(stream: ChangeStream(bridge: bridge, feed: changeFeed), endpoints: endpoints)
                    .register(on: socketRouter)
            }
            if let webSessions {
                WebPages(bridge: bridge, sessions: webSessions, linking: linking, pages: pages, presenter: presenter)
                    .register(on: router)
            }
        }
        let listening = ListeningURL()
        let smartHome = SmartHomeEndpoint(
            bridge: bridge, linking: linking, settings: settings, logger: logger, listening: listening)
        router.post("smarthome") { request, _ in await smartHome.respond(request) }
        let cameraStream = CameraStreamEndpoint(bridge: bridge, logger: logger)
        router.post(RouterPath(stringLiteral: CameraStreamEndpoint.path)) { request, _ in
            await cameraStream.respond(request)
        }
        router.get("oauth/authorize") { request, _ in pages.authorizePage(request) }
        router.post("oauth/authorize") { request, context in await pages.login(request, client: context.client) }
        router.post("oauth/token") { request, _ in await pages.token(request) }
        // Always there when links may push (a link added while serve runs may have a key).
        if let homeGraph {
            router.post("token") { request, _ in await homeGraph.token(request) }
            router.post("v1/devices:reportStateAndNotification") { request, _ in await homeGraph.reportState(request) }
            router.post("v1/devices:requestSync") { request, _ in await homeGraph.requestSync(request) }
        }
        let configuration = ApplicationConfiguration(
            address: .hostname(settings.host, port: settings.port), serverName: "TraitBridge")
        let server: HTTPServerBuilder
        if let certificate = settings.tlsCertificateFile, let key = settings.tlsKeyFile {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate).map {
                    NIOSSLCertificateSource.certificate($0)
                }
                let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
                let tls = TLSConfiguration.makeServerConfiguration(
                    certificateChain: chain, privateKey: .privateKey(privateKey))
                server = try .tls(.http1WebSocketUpgrade(webSocketRouter: socketRouter), tlsConfiguration: tls)
            } catch {
                throw .tls("\(certificate), \(key): \(error)")
            }
        } else {
            server = .http1WebSocketUpgrade(webSocketRouter: socketRouter)
        }
        return Application(
            router: router, server: server, configuration: configuration,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? settings.port
                listening.set(settings.baseURL(port: port))
                homeGraph?.listening(at: settings.baseURL(port: port), settings: settings, port: port)
                onListening(settings.baseURL(port: port))
            }, logger: logger)
    }

    static func json(_ status: HTTPResponse.Status, _ bytes: [UInt8], headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// The request context of the bridge's listener: Hummingbird's core context and the address the
/// connection came from (the login pages hold back wrong passwords per client address).
public struct ClientRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address (without its port), or `unknown` (a Unix socket).
    public let client: String
    /// The connection, for a stream to end when its client stops reading (``StallWatch``).
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
        channel = source.channel
    }
}

/// `POST /smarthome`: authenticate, read the envelope, hand the intent to the bridge.
struct SmartHomeEndpoint: Sendable {
    let bridge: Bridge
    let linking: AccountLinking
    let settings: FulfillmentSettings
    let logger: Logger
    let listening: ListeningURL

    func respond(_ request: Request) async -> Response {
        let agentUserID: String
        let role: APIRole
        switch linking.caller(request.headers[.authorization], now: Date()) {
        case .success(let caller): (agentUserID, role) = caller
        case .failure(let refusal):
            if case .registry(let reason) = refusal { logger.error("token lookup failed: \(reason)") }
            let body = GoogleC2C.errorResponse(
                requestID: "", errorCode: "authFailure",
                debugString: "a valid bearer token is required (Authorization: Bearer …)")
            return FulfillmentServer.json(
                .unauthorized, body.serializedBytes(), headers: [.wwwAuthenticate: refusal.challenge])
        }
        let body: [UInt8]
        do {
            body = Array(buffer: try await request.body.collect(upTo: settings.maxBodyBytes))
        } catch {
            let answer = GoogleC2C.errorResponse(
                requestID: "", errorCode: "protocolError",
                debugString:
                    "the request body is over \(settings.maxBodyBytes) bytes (http.maxBodyBytes), or was cut off")
            return FulfillmentServer.json(.contentTooLarge, answer.serializedBytes())
        }
        let envelope: SmartHomeRequest
        do {
            envelope = try SmartHomeRequest.parse(body, source: "POST /smarthome")
        } catch {
            let answer = GoogleC2C.errorResponse(
                requestID: error.requestID ?? "", errorCode: error.errorCode, debugString: error.description)
            return FulfillmentServer.json(.badRequest, answer.serializedBytes())
        }
        if envelope.intent == .execute, role < .control {
            let answer = GoogleC2C.errorResponse(
                requestID: envelope.requestID, errorCode: "authFailure",
                debugString: "this token's role is \(role.rawValue); EXECUTE needs control or admin")
            return FulfillmentServer.json(.forbidden, answer.serializedBytes())
        }
        if envelope.intent == .disconnect {
            do {
                let revoked = try linking.disconnect(agentUserID: agentUserID)
                logger.notice(
                    "DISCONNECT: account unlinked, \(revoked) token(s) revoked",
                    metadata: ["tb.http.user": "\(agentUserID)"])
            } catch {
                logger.error("DISCONNECT: tokens not revoked: \(error)", metadata: ["tb.http.user": "\(agentUserID)"])
            }
        }
        // GetCameraStream's answer names where to signal, with a token made from this nonce.
        var stream: CameraStreamContext?
        if envelope.intent == .execute, let base = listening.value {
            var generator = SystemRandomNumberGenerator()
            let nonce = (0..<4).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: "-")
            stream = CameraStreamContext(
                signalingURL: base + "/" + CameraStreamEndpoint.path, iceServers: settings.iceServers, nonce: nonce)
        }
        let answer = await bridge.smartHome(
            envelope, body: body, agentUserID: agentUserID, source: "POST /smarthome \(envelope.requestID)",
            stream: stream)
        return FulfillmentServer.json(.ok, answer)
    }
}
