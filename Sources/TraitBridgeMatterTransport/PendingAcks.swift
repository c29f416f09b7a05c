/// The acknowledgements we owe (Core §4.12, SDK `ReliableMessageContext`): a received message
/// with R set is acknowledged by the next message we send on its exchange (A flag and its counter)
/// or, if none is sent within 200 ms, by a standalone ack. One is kept per exchange; a second
/// reliable message on the same exchange flushes the first as a standalone ack, and a duplicate is
/// acknowledged at once, because no response will ever carry its ack.
public struct PendingAcks: Sendable {
    /// Send a standalone ack (``ProtocolHeader/standaloneAck(of:on:)``) of this counter on this exchange.
    public struct StandaloneAck: Sendable, Hashable {
        public var exchange: ExchangeKey
        public var messageCounter: UInt32

        public init(exchange: ExchangeKey, messageCounter: UInt32) {
            self.exchange = exchange
            self.messageCounter = messageCounter
        }
    }

    private struct Pending: Sendable {
        var exchange: ExchangeKey
        var messageCounter: UInt32
        var deadline: ContinuousClock.Instant
    }

    /// In arrival order, so standalone acks come out in a reproducible order. One per exchange, so
    /// bounded by the exchange table's limit.
    private var pending: [Pending] = []

    public init() {}

    public var count: Int { pending.count }

    /// When the oldest pending ack must go alone; nil when none is owed.
    public var nextDeadline: ContinuousClock.Instant? { pending.map(\.deadline).min() }

    /// The counter of the ack owed on `exchange`, if any, without taking it.
    public func owed(on exchange: ExchangeKey) -> UInt32? {
        pending.first { $0.exchange == exchange }?.messageCounter
    }

    /// A message with R set arrived on `exchange` at `now`. Returns the acks to send right away:
    /// the message's own if it is a duplicate, otherwise the one it displaces, if any.
    public mutating func needsAck(
        _ messageCounter: UInt32, on exchange: ExchangeKey, isDuplicate: Bool, now: ContinuousClock.Instant
    ) -> [StandaloneAck] {
        if isDuplicate { return [StandaloneAck(exchange: exchange, messageCounter: messageCounter)] }
        let displaced = take(on: exchange).map { [StandaloneAck(exchange: exchange, messageCounter: $0)] } ?? []
        let deadline = now + MRPParameters.standaloneAckTimeout
        pending.append(Pending(exchange: exchange, messageCounter: messageCounter, deadline: deadline))
        return displaced
    }

    /// The counter to piggy-back on the message we are about to send on `exchange`: call this when
    /// building its protocol header, and set `acknowledgedMessageCounter` to the result. The ack
    /// is then no longer owed.
    public mutating func takePiggyback(on exchange: ExchangeKey) -> UInt32? { take(on: exchange) }

    /// The acks whose 200 ms passed at `now`, to send alone.
    public mutating func tick(now: ContinuousClock.Instant) -> [StandaloneAck] {
        let due = pending.filter { $0.deadline <= now }
        pending.removeAll { $0.deadline <= now }
        return due.map { StandaloneAck(exchange: $0.exchange, messageCounter: $0.messageCounter) }
    }

    /// The exchange closes: an ack still owed goes alone now (SDK `ExchangeContext` flushes acks on close).
    public mutating func close(_ exchange: ExchangeKey) -> [StandaloneAck] {
        take(on: exchange).map { [StandaloneAck(exchange: exchange, messageCounter: $0)] } ?? []
    }

    /// Forgets every ack owed on `session` (it ended; there is nothing left to send them on).
    public mutating func removeAll(on session: SessionKey) { pending.removeAll { $0.exchange.session == session } }

    private mutating func take(on exchange: ExchangeKey) -> UInt32? {
        guard let index = pending.firstIndex(where: { $0.exchange == exchange }) else { return nil }
        return pending.remove(at: index).messageCounter
    }
}
