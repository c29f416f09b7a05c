import DequeModule
import FoundationEssentials
public import ServiceLifecycle
import Synchronization
public import TraitBridgeEngine
public import TraitBridgeJSON
public import TraitBridgeModel

/// The devices' changes as the HTTP API streams them: each device the bridge publishes anew
/// becomes one numbered event (added, updated or removed, with the device's summary then) in a
/// bounded ring. A client is only a cursor into that ring, woken when events arrive: it never
/// makes the bridge wait, and one that falls behind the ring's oldest event has lost changes, so
/// it is told and dropped (it resumes with its last event id, and is sent the whole list when
/// that is older than the ring). The bridge's observer, called inside its lock, only notes ids;
/// the feed's own task reads a copy of the state and makes the events.
public final class ChangeFeed: Service, Sendable {
    public enum Kind: String, Sendable { case added, updated, removed }

    /// One change: its number (the SSE event id), the device, what happened, its summary after.
    public struct Event: Sendable {
        public let sequence: Int
        public let device: DeviceID
        public let kind: Kind
        public let summary: JSONValue?
    }

    private struct Shared {
        var pending: Set<DeviceID> = []
        var ring: ChangeRing
        var clients: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextClient = 0
    }

    let bridge: Bridge
    private let shared: Mutex<Shared>
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation

    /// How long one message may wait for a client to take it before its connection is closed.
    public let clientStallLimit: Duration

    /// `capacity`: events kept for clients that resume or fall behind; `clientStallLimit`: how
    /// long a client that stopped reading keeps its connection.
    public init(bridge: Bridge, capacity: Int = 4096, clientStallLimit: Duration = .seconds(60)) {
        self.bridge = bridge
        self.clientStallLimit = clientStallLimit
        (wake, wakeContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        let first = FiniteNumber.int64(rounding: Date().timeIntervalSince1970 * 1000).map { Int($0) } ?? 1
        shared = Mutex(
            Shared(ring: ChangeRing(capacity: capacity, known: Set(bridge.snapshot.deviceIDs), first: first)))
        bridge.observeChanges { [weak self] states, descriptions in
            guard let self else { return }
            shared.withLock { shared in
                shared.pending.formUnion(states)
                shared.pending.formUnion(descriptions)
            }
            wakeContinuation.yield()
        }
    }

    /// Makes events of what changed, each time the bridge says something did, until shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.wake { self.drain() }
        }
        shared.withLock { shared in for client in shared.clients.values { client.finish() } }
    }

    /// Stops the feed (tests without a service group).
    public func stop() { wakeContinuation.finish() }

    func drain() {
        let ids = shared.withLock { shared in
            defer { shared.pending.removeAll() }
            return shared.pending
        }
        guard !ids.isEmpty else { return }
        let state = bridge.snapshot
        let made = ids.sorted { $0.rawValue < $1.rawValue }.map { id in (id, state.deviceSummary(id)) }
        let clients = shared.withLock { shared in
            for (id, summary) in made { shared.ring.record(id, summary: summary) }
            return Array(shared.clients.values)
        }
        for client in clients { client.yield() }
    }

    /// A client's id, its wake-ups, where its cursor starts, and whether it needs the whole list.
    public typealias Subscription = (client: Int, wake: AsyncStream<Void>, after: Int, isReset: Bool)

    /// What a new client starts from: its id, its wake-ups, and where its cursor starts. With
    /// `after` (a Last-Event-ID) still in the ring, it gets every event after it; otherwise
    /// `isReset` says it must be sent the whole list first (`after` is then the newest event).
    public func subscribe(after: Int?) -> Subscription {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        return shared.withLock { shared in
            let id = shared.nextClient
            shared.nextClient += 1
            shared.clients[id] = continuation
            let start = shared.ring.start(after: after)
            if !start.isReset, start.after < shared.ring.newest { continuation.yield() }
            return (id, stream, start.after, start.isReset)
        }
    }

    public func unsubscribe(_ client: Int) {
        shared.withLock { $0.clients.removeValue(forKey: client) }?.finish()
    }

    /// The events after `cursor`, or nil when some of them have left the ring (the client fell
    /// behind: it has lost changes).
    public func events(after cursor: Int) -> [Event]? {
        shared.withLock { $0.ring.events(after: cursor) }
    }

    /// The newest event's number (0 before any).
    public var newest: Int { shared.withLock { $0.ring.newest } }
}

/// The numbered changes a ``ChangeFeed`` keeps (at most `capacity`, the oldest dropped first),
/// and which devices it has seen (so a change is `added`, `updated` or `removed`).
struct ChangeRing: Sendable {
    let capacity: Int
    private(set) var events: Deque<ChangeFeed.Event> = []
    private var known: Set<DeviceID>
    private var next = 1

    /// `first`: the first event's number. A feed starts at the milliseconds since 1970, so an id a
    /// client kept from an earlier run of the bridge is older than anything this run holds (the
    /// client is sent the whole list), never taken for one of this run's events.
    init(capacity: Int, known: Set<DeviceID> = [], first: Int = 1) {
        self.capacity = max(16, capacity)
        self.known = known
        next = max(1, first)
    }

    /// A device published anew: its summary now, or nil when it is gone.
    mutating func record(_ id: DeviceID, summary: JSONValue?) {
        let kind: ChangeFeed.Kind
        if summary == nil {
            guard known.remove(id) != nil else { return }
            kind = .removed
        } else {
            kind = known.insert(id).inserted ? .added : .updated
        }
        events.append(ChangeFeed.Event(sequence: next, device: id, kind: kind, summary: summary))
        next += 1
        if events.count > capacity { events.removeFirst() }
    }

    var newest: Int { next - 1 }

    /// Where a client starts: after `after` when every event since is still here, else at the
    /// newest event with the whole list first (`isReset`).
    func start(after: Int?) -> (after: Int, isReset: Bool) {
        let oldest = events.first?.sequence ?? next
        if let after, after <= newest, after >= oldest - 1 { return (after, false) }
        return (newest, true)
    }

    /// The events after `cursor`; nil when some of them are no longer kept.
    func events(after cursor: Int) -> [ChangeFeed.Event]? {
        guard let first = events.first else { return [] }
        guard cursor >= first.sequence - 1 else { return nil }
        // Numbers are consecutive, so the first event after the cursor is found without a scan.
        let skip = min(events.count, cursor - (first.sequence - 1))
        return Array(events.dropFirst(skip))
    }
}
