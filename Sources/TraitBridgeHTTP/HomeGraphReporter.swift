import AsyncHTTPClient
public import Foundation
public import Logging
import NIOCore
import NIOHTTP1
public import ServiceLifecycle
import Synchronization
import TraitBridgeCloud
public import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

/// Tells Google's Home Graph what changed, as a partner cloud must: Report State for each change
/// of an exported device's state (gathered for ``HomeGraphSettings/batch``, a device going offline
/// sent at once), Request Sync when devices come, go, or change name or room. For every linked
/// account; after DISCONNECT an account is no longer linked, so it hears nothing more.
///
/// The bridge tells it which devices changed (``Bridge/observeChanges(_:)``); it reads their
/// states from a snapshot when it sends, so a burst of changes to one device is one report.
public final class HomeGraphReporter: Service, Sendable {
    let settings: HomeGraphSettings
    let account: ServiceAccount
    let bridge: Bridge
    let linking: AccountLinking
    let logger: Logger
    let client: HTTPClient
    private let pending = Mutex(Pending())
    private let token = Mutex<(value: String, expires: Date)?>(nil)

    struct Pending {
        /// Devices whose state changed, and since when the oldest waits.
        var states: Set<DeviceID> = []
        var oldest: ContinuousClock.Instant?
        /// Since when a Request Sync waits.
        var syncSince: ContinuousClock.Instant?
        /// After a failure, nothing is sent before this.
        var retryAt: ContinuousClock.Instant?
        var failures = 0
    }

    public init(
        settings: HomeGraphSettings, bridge: Bridge, linking: AccountLinking, logger: Logger
    ) throws(FulfillmentSetupError) {
        self.settings = settings
        self.account = try ServiceAccount(path: settings.serviceAccountKeyFile)
        self.bridge = bridge
        self.linking = linking
        self.logger = logger
        self.client = HTTPClient(
            configuration: .init(
                redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(15))))
        bridge.observeChanges { [weak self] states, descriptions in self?.note(states, descriptions) }
    }

    /// Called by the bridge inside its lock: only takes note.
    private func note(_ states: [DeviceID], _ descriptions: [DeviceID]) {
        let now = ContinuousClock.now
        pending.withLock { pending in
            if !states.isEmpty {
                pending.states.formUnion(states)
                if pending.oldest == nil { pending.oldest = now }
            }
            if !descriptions.isEmpty, pending.syncSince == nil { pending.syncSince = now }
        }
    }

    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(100))
                await self.flush(now: .now)
            }
        }
        try await client.shutdown()
    }

    /// Sends what is due: states that waited a batch (or any that went offline), and a Request
    /// Sync that waited its delay. What fails is kept and tried again with backoff.
    func flush(now: ContinuousClock.Instant) async {
        let (ids, oldest, sync, blocked) = pending.withLock { ($0.states, $0.oldest, $0.syncSince, $0.retryAt) }
        if let blocked, now < blocked { return }
        if !ids.isEmpty {
            let states = bridge.snapshot.smartHomeReportStates(ids.sorted())
            let anyOffline = states.members.contains { $0.value["online"] == .bool(false) }
            if anyOffline || (oldest.map { now - $0 >= settings.batch } ?? false) {
                pending.withLock { pending in
                    pending.states.subtract(ids)
                    pending.oldest = pending.states.isEmpty ? nil : now
                }
                await send(states, ids: ids)
            }
        }
        if let sync, now - sync >= settings.syncDelay {
            pending.withLock { $0.syncSince = nil }
            await requestSync()
        }
    }

    private func send(_ states: JSONObject, ids: Set<DeviceID>) async {
        guard !states.isEmpty else { return }
        let entries = states.members
        for account in linking.linkedAccounts() {
            var start = 0
            while start < entries.count {
                let chunk = entries[start..<min(entries.count, start + settings.maxDevicesPerReport)]
                start += settings.maxDevicesPerReport
                var devices = JSONObject()
                for (key, value) in chunk { devices.append(key, value) }
                let body: JSONValue = [
                    "requestId": .string(UUID().uuidString), "agentUserId": .string(account),
                    "payload": ["devices": ["states": .object(devices)]],
                ]
                guard await post("/v1/devices:reportStateAndNotification", body) else {
                    failed(keeping: ids)
                    return
                }
            }
        }
        pending.withLock { $0.failures = 0 }
    }

    private func requestSync() async {
        for account in linking.linkedAccounts() {
            let body: JSONValue = ["agentUserId": .string(account), "async": true]
            guard await post("/v1/devices:requestSync", body) else {
                pending.withLock { pending in
                    if pending.syncSince == nil { pending.syncSince = .now }
                }
                failed(keeping: [])
                return
            }
        }
    }

    /// Backoff after a failure: 1 s, doubling to a minute; the devices wait for the next try.
    private func failed(keeping ids: Set<DeviceID>) {
        pending.withLock { pending in
            pending.states.formUnion(ids)
            if pending.oldest == nil, !pending.states.isEmpty { pending.oldest = .now }
            pending.failures += 1
            pending.retryAt = .now + .seconds(min(60, 1 << min(pending.failures - 1, 6)))
        }
    }

    /// One authorized POST to Home Graph; false (and a log line naming the URL) when it failed.
    private func post(_ path: String, _ body: JSONValue) async -> Bool {
        let url = settings.baseURL + path
        do {
            let access = try await accessToken()
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Authorization", value: "Bearer \(access)")
            request.body = .bytes(ByteBuffer(bytes: body.serializedBytes()))
            let response = try await client.execute(request, timeout: .seconds(15))
            let answer = try await response.body.collect(upTo: 64 * 1024)
            guard (200..<300).contains(response.status.code) else {
                if response.status == .unauthorized { token.withLock { $0 = nil } }
                logger.warning(
                    "Home Graph refused: HTTP \(response.status.code) \(String(buffer: answer).prefix(300))",
                    metadata: ["tb.http.url": "\(url)"])
                return false
            }
            return true
        } catch {
            logger.warning("Home Graph not reached: \(error)", metadata: ["tb.http.url": "\(url)"])
            return false
        }
    }

    /// The access token from the service account's `token_uri`, kept until a minute before it expires.
    private func accessToken() async throws -> String {
        let now = Date()
        if let kept = token.withLock({ $0 }), kept.expires > now + 60 { return kept.value }
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let form =
            "grant_type=" + FormFields.encode("urn:ietf:params:oauth:grant-type:jwt-bearer") + "&assertion="
            + FormFields.encode(try account.assertion(now: now))
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await client.execute(request, timeout: .seconds(15))
        let bytes = Array(buffer: try await response.body.collect(upTo: 64 * 1024))
        guard response.status == .ok, let root = try? JSONDocument.parse(bytes).root,
            let value = root["access_token"]?.string
        else {
            throw HomeGraphError.token(url: account.tokenURI, status: Int(response.status.code))
        }
        let lifetime = root["expires_in"]?.double ?? 3600
        token.withLock { $0 = (value, now + max(60, min(lifetime, 86_400))) }
        return value
    }
}

/// Why Home Graph could not be called; the text names the URL, never a token.
enum HomeGraphError: Error, CustomStringConvertible {
    case token(url: String, status: Int)

    var description: String {
        switch self {
        case .token(let url, let status):
            "the service account's token endpoint \(url) answered HTTP \(status) without a token; "
                + "check the key file (is the key revoked?)"
        }
    }
}

extension AccountLinking {
    /// The accounts Google knows: those with a static token, and those linked through OAuth that
    /// still hold a refresh token (DISCONNECT and `cloud tokens revoke` remove them).
    public func linkedAccounts(now: Date = Date()) -> [String] {
        var accounts = Set(staticTokens.users.values)
        if let tokens = try? store?.tokens() {
            for token in tokens where token.kind == .refresh && token.isValid(at: now) {
                accounts.insert(token.agentUserID)
            }
        }
        return accounts.sorted()
    }
}
