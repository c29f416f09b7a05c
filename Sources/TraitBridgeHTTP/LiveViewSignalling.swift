import AsyncHTTPClient
import FoundationEssentials
public import Logging
import NIOCore
import NIOHTTP1
public import ServiceLifecycle
public import TraitBridgeEngine
import TraitBridgeJSON

/// The HTTP edge of cameras' live views: sends each offer the bridge asks for to the camera's
/// endpoint (go2rtc's `POST /api/webrtc?src=…`, `application/sdp` in and out, WHEP's shape) and
/// hands the answer back as an event; ends a session at the resource the camera named (`DELETE`).
/// A partner cloud's camera is signalled as Google's CameraStream does: JSON `{"action": "offer",
/// "deviceId", "sdp"}` with the stream's bearer token, answered `{"action": "answer", "sdp"}`.
/// Signalling only: no media passes here. Bounded: 64 KB an answer, 8 s a request, 32 at once
/// (more wait), 256 waiting (more are dropped and their commands time out, saying so).
public final class LiveViewSignalling: Service, Sendable {
    let bridge: Bridge
    let logger: Logger
    private let client: HTTPClient
    private let requests: AsyncStream<SignallingRequest>
    private let continuation: AsyncStream<SignallingRequest>.Continuation
    static let maxAnswerBytes = 65_536
    static let timeout: TimeAmount = .seconds(8)
    static let concurrent = 32

    public init(bridge: Bridge, logger: Logger) {
        self.bridge = bridge
        self.logger = logger
        client = HTTPClient(
            configuration: .init(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(3), read: Self.timeout)))
        (requests, continuation) = AsyncStream.makeStream(
            of: SignallingRequest.self, bufferingPolicy: .bufferingNewest(256))
        let continuation = self.continuation
        bridge.sendSignalling { continuation.yield($0) }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                var running = 0
                for await request in self.requests {
                    if Task.isCancelled { break }
                    if running >= Self.concurrent {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { await self.perform(request) }
                }
                group.cancelAll()
            }
        }
        continuation.finish()
        try? await client.shutdown()
    }

    private func perform(_ request: SignallingRequest) async {
        switch request.kind {
        case .offer(let sdp):
            let answer = await offer(sdp, to: request.url)
            if case .failed(let reason) = answer {
                logger.notice("live view offer \(request.requestID) to \(Self.shown(request.url)): \(reason)")
            }
            bridge.signallingAnswered(answer, requestID: request.requestID)
        case .partnerOffer(let sdp, let token, let c2cID):
            let body: JSONValue = ["action": "offer", "deviceId": .string(c2cID), "sdp": .string(sdp)]
            let answer = await partnerOffer(body, token: token, to: request.url)
            if case .failed(let reason) = answer {
                logger.notice("live view offer \(request.requestID) to \(Self.shown(request.url)): \(reason)")
            }
            bridge.signallingAnswered(answer, requestID: request.requestID)
        case .partnerEnd(let token, let c2cID):
            let body: JSONValue = ["action": "end", "deviceId": .string(c2cID)]
            if case .failed(let reason) = await partnerOffer(body, token: token, to: request.url, expectsAnswer: false)
            {
                logger.debug("ending live view \(request.requestID) at \(Self.shown(request.url)): \(reason)")
            }
        case .end:
            var delete = HTTPClientRequest(url: request.url)
            delete.method = .DELETE
            do {
                let response = try await client.execute(delete, timeout: Self.timeout)
                _ = try? await response.body.collect(upTo: 4096)
            } catch {
                logger.debug("ending live view \(request.requestID) at \(Self.shown(request.url)): \(error)")
            }
        }
    }

    /// POSTs the offer; the answer, or why there is none (its HTTP status, a timeout, a refusal).
    func offer(_ sdp: String, to url: String) async -> SignallingAnswer {
        switch await post(url, type: "application/sdp", body: ByteBuffer(string: sdp), bearer: nil) {
        case .failure(let reason): return .failed(reason.description)
        case .success(let (status, body, location)):
            guard status == .ok || status == .created else { return .failed("it answered HTTP \(status.code)") }
            let resource = location.flatMap { Self.resolve($0, against: url) }
            return .answer(sdp: String(decoding: body.readableBytesView, as: UTF8.self), resource: resource)
        }
    }

    /// POSTs Google's signalling JSON with the stream token; the answer's SDP when one is expected.
    func partnerOffer(_ body: JSONValue, token: String, to url: String, expectsAnswer: Bool = true) async
        -> SignallingAnswer
    {
        let bytes = ByteBuffer(bytes: body.serializedBytes())
        switch await post(url, type: "application/json", body: bytes, bearer: token.isEmpty ? nil : token) {
        case .failure(let reason): return .failed(reason.description)
        case .success(let (status, answer, _)):
            let root = try? JSONDocument.parse(Array(answer.readableBytesView)).root
            guard status == .ok else {
                let said = root?["error"]?.string.map { ": \($0.prefix(300))" } ?? ""
                return .failed("it answered HTTP \(status.code)\(said)")
            }
            guard expectsAnswer else { return .answer(sdp: "", resource: nil) }
            guard let sdp = root?["sdp"]?.string else {
                return .failed("its answer is not Google's signalling JSON ({\"action\": \"answer\", \"sdp\": …})")
            }
            return .answer(sdp: sdp, resource: nil)
        }
    }

    /// One bounded POST: the status, the body (at most 64 KB) and its `Location`, or why none came.
    private func post(_ url: String, type: String, body: ByteBuffer, bearer: String?) async -> Result<
        (HTTPResponseStatus, ByteBuffer, String?), SignallingFailure
    > {
        var post = HTTPClientRequest(url: url)
        post.method = .POST
        post.headers.add(name: "Content-Type", value: type)
        if let bearer { post.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        post.body = .bytes(body)
        do {
            let response = try await client.execute(post, timeout: Self.timeout)
            do {
                let bytes = try await response.body.collect(upTo: Self.maxAnswerBytes)
                return .success((response.status, bytes, response.headers.first(name: "Location")))
            } catch {
                return .failure(SignallingFailure("its answer is over \(Self.maxAnswerBytes) bytes"))
            }
        } catch {
            return .failure(SignallingFailure("\(error)"))
        }
    }

    /// A `Location` as an absolute URL on the endpoint's own origin (another origin is ignored:
    /// the bridge ends sessions only where it sent the offer).
    static func resolve(_ location: String, against url: String) -> String? {
        guard location.utf8.count <= 1024, !location.contains(where: \.isWhitespace) else { return nil }
        guard let origin = origin(of: url) else { return nil }
        if location.hasPrefix("/") { return origin + location }
        return Self.origin(of: location) == origin ? location : nil
    }

    /// `scheme://host:port` of an http(s) URL.
    static func origin(of url: String) -> String? {
        for scheme in ["http://", "https://"] where url.hasPrefix(scheme) {
            let host = url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            return host.isEmpty ? nil : scheme + host
        }
        return nil
    }

    /// An endpoint as logs show it: its origin and path, no query (a stream's name may be private).
    static func shown(_ url: String) -> String { String(url.prefix { $0 != "?" }) }
}

/// Why a signalling request got no usable answer, in words for the command's result.
struct SignallingFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
