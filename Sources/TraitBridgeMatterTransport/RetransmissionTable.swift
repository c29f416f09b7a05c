/// The reliable messages we sent that await an acknowledgement (Core §4.12.2, SDK
/// `ReliableMessageMgr` retransmission table): at most one per exchange, each retransmitted as the
/// same bytes (same counter) after the MRP backoff, until acknowledged or after the fifth
/// transmission's wait, when its exchange is given up. Time comes in with each call; the caller
/// sleeps until ``nextDeadline`` and calls ``tick(now:using:)``.
public struct RetransmissionTable: Sendable {
    /// What a tick asks the caller to do.
    public enum Effect: Sendable, Hashable {
        /// Send these bytes again, unchanged; `transmission` counts from 2 (the first retransmission).
        case retransmit(ExchangeKey, bytes: [UInt8], transmission: Int)
        /// The message with this counter was never acknowledged after ``MRPParameters/maxTransmissions``
        /// transmissions: close the exchange and tell its owner the peer is unreachable.
        case giveUp(ExchangeKey, messageCounter: UInt32)
    }

    private struct Entry: Sendable {
        var exchange: ExchangeKey
        var messageCounter: UInt32
        var bytes: [UInt8]
        var baseInterval: Duration
        /// Transmissions so far, minus one (the SDK's `sendCount`).
        var sendCount: Int
        var deadline: ContinuousClock.Instant
    }

    public let limit: Int
    /// In insertion order, so effects come out in a reproducible order.
    private var entries: [Entry] = []

    public init(limit: Int = ExchangeTable.defaultLimit) {
        precondition(limit > 0, "a retransmission table without room")
        self.limit = limit
    }

    public var count: Int { entries.count }

    /// When the next retransmission or give-up is due; nil when nothing awaits an ack.
    public var nextDeadline: ContinuousClock.Instant? { entries.map(\.deadline).min() }

    public func isAwaitingAck(_ exchange: ExchangeKey) -> Bool { entries.contains { $0.exchange == exchange } }

    /// Whether a message sent on any exchange of `session` still awaits its ack.
    public func isAwaitingAck(on session: SessionKey) -> Bool { entries.contains { $0.exchange.session == session } }

    /// Records `bytes`, just sent at `now` with R set, as awaiting the ack of `messageCounter`. The
    /// first wait is `backoff(baseInterval, 0, jitter)`; `baseInterval` comes from the peer's
    /// ``MRPParameters/baseInterval(peerIsActive:)``. The jitter byte is the low byte of
    /// `generator`'s next value, drawn anew for every wait.
    public mutating func add(
        _ bytes: [UInt8], messageCounter: UInt32, on exchange: ExchangeKey, baseInterval: Duration,
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) throws(TransportError) {
        guard !isAwaitingAck(exchange) else { throw .exchangeAwaitingAck(exchange) }
        guard entries.count < limit else { throw .retransmissionTableFull(limit: limit) }
        let wait = Self.backoff(baseInterval, sendCount: 0, &generator)
        entries.append(
            Entry(
                exchange: exchange, messageCounter: messageCounter, bytes: bytes, baseInterval: baseInterval,
                sendCount: 0, deadline: now + wait))
    }

    /// An acknowledgement of `counter` arrived on `exchange` (piggy-backed or standalone). True when it
    /// acknowledged the waiting message, which is then forgotten; an ack of anything else is
    /// ignored (a retransmitted piggy-back, most often).
    public mutating func acknowledge(_ counter: UInt32, on exchange: ExchangeKey) -> Bool {
        guard let index = entries.firstIndex(where: { $0.exchange == exchange && $0.messageCounter == counter })
        else { return false }
        entries.remove(at: index)
        return true
    }

    /// Forgets whatever `exchange` awaited (the exchange closed or its session ended).
    public mutating func remove(_ exchange: ExchangeKey) { entries.removeAll { $0.exchange == exchange } }

    /// Forgets everything awaited on `session` (it ended).
    public mutating func removeAll(on session: SessionKey) { entries.removeAll { $0.exchange.session == session } }

    /// Everything due at `now`: each entry past its deadline is given up if it has had its last
    /// transmission, otherwise retransmitted with the next, longer wait (SDK `ExecuteActions`).
    public mutating func tick(
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) -> [Effect] {
        var effects: [Effect] = []
        var kept: [Entry] = []
        for var entry in entries {
            guard entry.deadline <= now else {
                kept.append(entry)
                continue
            }
            guard entry.sendCount < MRPParameters.maxTransmissions - 1 else {
                effects.append(.giveUp(entry.exchange, messageCounter: entry.messageCounter))
                continue
            }
            entry.sendCount += 1
            entry.deadline = now + Self.backoff(entry.baseInterval, sendCount: entry.sendCount, &generator)
            effects.append(.retransmit(entry.exchange, bytes: entry.bytes, transmission: entry.sendCount + 1))
            kept.append(entry)
        }
        entries = kept
        return effects
    }

    private static func backoff(
        _ base: Duration, sendCount: Int, _ generator: inout some RandomNumberGenerator
    ) -> Duration {
        MRPParameters.backoff(
            baseInterval: base, sendCount: sendCount, jitter: UInt8(truncatingIfNeeded: generator.next()))
    }
}
