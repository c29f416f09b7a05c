import Hummingbird
import HummingbirdWebSocket
import NIOCore
import Synchronization
import TraitBridgeEngine

/// `GET /api/v1/changes/socket`: the change stream of `/api/v1/changes` over a WebSocket, for
/// clients that want one connection both ways. The same query (filters, `shape`, `window`,
/// `lastEventId` to resume), the same authentication (a bearer token, or the web UI's session
/// cookie), the same messages: one text frame each, `{"id", "event", "data"}`. A client that falls
/// behind is sent `dropped` and closed; one that closes its side ends its stream.
struct ChangeSocket: Sendable {
    let stream: ChangeStream
    let endpoints: APIEndpoints

    func register(on router: Router<SocketRequestContext>) {
        router.ws(
            "api/v1/changes/socket",
            shouldUpgrade: { request, _ in
                // Refused before the upgrade, as a problem the client can read.
                if case .failure(let refusal) = endpoints.role(of: request, writing: false) {
                    throw Refusal(response: refusal.response)
                }
                if case .failure(let refusal) = ChangeStream.options(request) {
                    throw Refusal(response: refusal.response)
                }
                return .upgrade([:])
            },
            onUpgrade: { inbound, outbound, context in
                guard case .success(let options) = ChangeStream.options(context.request) else { return }
                let subscription = stream.feed.subscribe(after: options.lastEventID)
                let watch = StallWatch(
                    channel: context.requestContext.channel, limit: stream.feed.clientStallLimit)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // The client's frames mean nothing here; its close ends the stream.
                        for try await _ in inbound {}
                    }
                    group.addTask { await watch.watch() }
                    group.addTask {
                        try await stream.run(options, subscription) { message in
                            try await watch.write { try await outbound.write(.text(String(buffer: message.frame))) }
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            })
    }

    /// A refusal before the upgrade: Hummingbird answers it as the response it carries.
    struct Refusal: HTTPResponseError {
        let response: Response
        var status: HTTPResponse.Status { response.status }
        var headers: HTTPFields { response.headers }

        func response(from request: Request, context: some RequestContext) throws -> Response { response }
    }
}

/// The request context of the WebSocket upgrades: Hummingbird's, with the handler the upgrade
/// runs.
struct SocketRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection, for a stream to end when its client stops reading (``StallWatch``).
    let channel: any Channel
    private let holder: HandlerHolder

    /// hummingbird-websocket keeps a copy of this context inside the handler reference the context
    /// holds, and never breaks that cycle: each upgrade leaked its context and, through `channel`,
    /// the connection (LeakSanitizer saw one per WebSocket client when serve stopped). The reference
    /// is held through a holder emptied when the connection closes.
    var webSocket: WebSocketHandlerReference<Self> { holder.reference }

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
        let holder = HandlerHolder()
        self.holder = holder
        source.channel.closeFuture.whenComplete { _ in holder.release() }
    }

    final class HandlerHolder: Sendable {
        private let held = Mutex<WebSocketHandlerReference<SocketRequestContext>?>(.init())
        /// The reference until the connection closed; a fresh, empty one after.
        var reference: WebSocketHandlerReference<SocketRequestContext> { held.withLock { $0 } ?? .init() }
        func release() { held.withLock { $0 = nil } }
    }
}
