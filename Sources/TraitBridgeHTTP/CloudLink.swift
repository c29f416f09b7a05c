import AsyncHTTPClient
import FoundationEssentials
public import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
public import ServiceLifecycle
import Synchronization
public import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// One partner cloud the bridge calls the way Google calls a partner: its fulfillment URL and a
/// bearer token, how often it is asked for its devices and their states.
public struct CloudLinkSettings: Sendable, Hashable {
    public var name: String
    /// The partner's fulfillment URL (`https://…/smarthome`, or `/api/google_assistant`).
    public var url: String
    /// The bearer token (read from `tokenFile` or `tokenEnv`; never printed).
    public var token: String
    public var pollInterval: Duration = .seconds(10)
    public var syncInterval: Duration = .seconds(300)
    public var timeout: Duration = .seconds(10)
    /// CA certificates (PEM) that sign the partner's certificate, when not the system's.
    public var caFile: String?
    /// The largest answer read; a larger one is refused (a hostile partner cannot fill memory).
    public var maxAnswerBytes = 16 << 20
    /// Devices per QUERY request.
    public var queryBatch = 200
    /// The partner's service-account public key (PEM): it may push Report State and Request Sync
    /// to this bridge's local Home Graph (`/token`, `/v1/devices:…`) with JWTs signed by its key.
    public var pushPublicKeyFile: String?
    /// The `iss` (client_email) its JWTs must carry, when given.
    public var pushIssuer: String?
    /// While the partner pushes its states, polling is only a safety net at this interval.
    public var safetyNetInterval: Duration { max(pollInterval * 6, .seconds(60)) }
    /// A device no answer has spoken of for this long (three missed safety-net polls) is `unknown`.
    public var staleness: Duration { safetyNetInterval * 3 }
    /// Set when the link was made with the OAuth flow: `token` is then an access token that is
    /// refreshed before it runs out, and after a 401.
    public var oauth: OAuthGrant?

    public init(name: String, url: String, token: String) {
        self.name = name
        self.url = url
        self.token = token
    }
}

/// A cloud link at run time: SYNC at start and every `syncInterval`, QUERY every `pollInterval`,
/// EXECUTE whenever the bridge hands it a command for the link's devices. A failure (refused
/// connection, TLS, timeout, HTTP error, a rejected token) marks the link's traits with the
/// reason and is retried with backoff; the next good answer clears it.
public final class CloudLink: Service, Sendable {
    let settings: CloudLinkSettings
    let bridge: Bridge
    let logger: Logger
    let transport: LinkTransport
    private let executions: AsyncStream<LinkRequest>
    private let continuation: AsyncStream<LinkRequest>.Continuation
    /// A Request Sync waiting, and when the partner last pushed Report State.
    private let pushes = Mutex<(syncRequested: Bool, lastPush: ContinuousClock.Instant?)>((false, nil))

    /// `onRefresh` is told each access token an OAuth link buys (the registry keeps it).
    public init(
        settings: CloudLinkSettings, bridge: Bridge, logger: Logger,
        onRefresh: @escaping @Sendable (String, OAuthGrant) -> Void = { _, _ in }
    ) throws {
        self.settings = settings
        self.bridge = bridge
        self.logger = logger
        self.transport = LinkTransport(settings: settings, onRefresh: onRefresh)
        // Bounded: commands beyond 256 waiting are dropped (and answered by the command timeout).
        (executions, continuation) = AsyncStream.makeStream(
            of: LinkRequest.self, bufferingPolicy: .bufferingNewest(256))
        let continuation = self.continuation
        bridge.sendLinkRequests(for: settings.name) { continuation.yield($0) }
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.poll() }
                group.addTask {
                    for await request in self.executions {
                        if Task.isCancelled { break }
                        await self.execute(request)
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        continuation.finish()
        await transport.shutdown()
    }

    /// The partner pushed Report State (polling slows to a safety net for ten minutes).
    func notePush() { pushes.withLock { $0.lastPush = .now } }

    /// The partner asked for a SYNC (Request Sync): it is sent within 100 ms.
    func requestSync() { pushes.withLock { $0.syncRequested = true } }

    /// Waits `duration`, or less when a Request Sync arrives.
    private func wait(_ duration: Duration) async {
        let end = ContinuousClock.now + duration
        while ContinuousClock.now < end, !Task.isCancelled {
            if pushes.withLock({ $0.syncRequested }) { return }
            try? await Task.sleep(for: min(.milliseconds(100), end - .now))
        }
    }

    /// SYNC, then QUERY on the poll interval and SYNC again on the sync interval (or when the
    /// partner asks); after a failure the next try waits 1 s, doubling to the poll interval's tenfold.
    func poll() async {
        var lastSync: ContinuousClock.Instant?
        var delay = Duration.seconds(1)
        // The bridge starts beside the link; its first answers are for a running bridge (≤ 30 s).
        for _ in 0..<300 where !bridge.isRunning && !Task.isCancelled { try? await Task.sleep(for: .milliseconds(100)) }
        while !Task.isCancelled {
            let now = ContinuousClock.now
            var ok = true
            let requested = pushes.withLock { pushes in
                defer { pushes.syncRequested = false }
                return pushes.syncRequested
            }
            if requested || (lastSync.map({ now - $0 >= settings.syncInterval }) ?? true) {
                if let answer = await post(LinkTransport.intent("SYNC"), intent: "SYNC") {
                    bridge.linkSynced(answer, link: settings.name)
                    lastSync = now
                } else {
                    ok = false
                }
            }
            if ok { ok = await query() }
            let pushed = pushes.withLock { $0.lastPush.map { ContinuousClock.now - $0 < .seconds(600) } ?? false }
            let interval = pushed ? settings.safetyNetInterval : settings.pollInterval
            delay = ok ? interval : min(delay * 2, settings.pollInterval * 10)
            await wait(ok ? interval : delay)
            if ok { delay = .seconds(1) }
        }
    }

    /// QUERY of every device of the link, in batches.
    func query() async -> Bool {
        let ids = bridge.linkDeviceIDs(settings.name)
        var start = 0
        while start < ids.count {
            let batch = ids[start..<min(ids.count, start + settings.queryBatch)]
            start += settings.queryBatch
            let devices: JSONValue = .array(batch.map { ["id": .string($0)] })
            guard let answer = await post(LinkTransport.intent("QUERY", payload: ["devices": devices]), intent: "QUERY")
            else {
                return false
            }
            bridge.linkAnswered(answer, link: settings.name)
        }
        return true
    }

    /// One EXECUTE: its answer settles the command; no answer ends it with the reason (and
    /// marks the link's traits as any failed request does).
    func execute(_ request: LinkRequest) async {
        switch await transport.send(request.body, intent: "EXECUTE") {
        case .success(let answer):
            bridge.linkExecuted(answer, link: settings.name, requestID: request.requestID)
        case .failure(let failure):
            bridge.linkRequestFailed(request.requestID, link: settings.name, error: failure.message)
            bridge.linkFailed(settings.name, error: "\(failure.message) (\(settings.url))", state: failure.state)
        }
    }

    /// POSTs one intent; the answer's bytes, or `nil` after telling the bridge why it failed
    /// (the bridge logs it with the link's name and marks the link's traits).
    func post(_ body: [UInt8], intent: String) async -> [UInt8]? {
        let started = ContinuousClock.now
        let result = await transport.send(body, intent: intent)
        bridge.countLinkRequest(
            link: settings.name, intent: intent, succeeded: (try? result.get()) != nil, since: started)
        switch result {
        case .success(let answer): return answer
        case .failure(let failure):
            bridge.linkFailed(settings.name, error: "\(failure.message) (\(settings.url))", state: failure.state)
            return nil
        }
    }
}

extension Duration {
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
