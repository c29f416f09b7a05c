/// A node's exchange layer over all its sessions (Core §4.10 and §4.12): it routes each received
/// message to its exchange, keeps the acknowledgements we owe and the reliable messages we wait
/// on, and says what to deliver, send or give up. Events in (a message received, a message sent,
/// the time), effects out; the session layer seals, sends and sleeps until ``nextDeadline``.
///
/// On receipt, in this order: ``Message/open(_:key:senderNodeID:)`` (or `decodeUnsecured`), the
/// peer's ``ReplayWindow``, then ``received(_:messageCounter:on:isDuplicate:now:)``.
public struct ExchangeLayer: Sendable {
    /// What the session layer does next.
    public enum Effect: Sendable, Hashable {
        /// Hand the message's payload to the exchange's handler; `isNewExchange` when the message
        /// opened the exchange (an unsolicited request).
        case deliver(ExchangeKey, isNewExchange: Bool)
        /// Seal ``ProtocolHeader/standaloneAck(of:on:)`` on the exchange's session and send it.
        case sendStandaloneAck(ExchangeKey, messageCounter: UInt32)
        /// Send these bytes again, unchanged.
        case retransmit(ExchangeKey, bytes: [UInt8])
        /// The peer never acknowledged this message: the exchange is closed; tell its owner.
        case exchangeFailed(ExchangeKey, messageCounter: UInt32)
    }

    public private(set) var exchanges: ExchangeTable
    private var retransmissions: RetransmissionTable
    private var acks = PendingAcks()

    /// Room for `limit` exchanges and as many reliable messages in flight; our exchange IDs start
    /// at a random value drawn from `generator`.
    public init(limit: Int = ExchangeTable.defaultLimit, using generator: inout some RandomNumberGenerator) {
        exchanges = ExchangeTable(limit: limit, using: &generator)
        retransmissions = RetransmissionTable(limit: limit)
    }

    /// When ``tick(now:using:)`` next has work: a standalone ack or a retransmission due.
    public var nextDeadline: ContinuousClock.Instant? {
        [acks.nextDeadline, retransmissions.nextDeadline].compactMap(\.self).min()
    }

    /// A message whose MIC verified arrived on `session`; `isDuplicate` is the replay window's verdict.
    /// Its ack (A) clears our waiting message even when its exchange is closed, so the last
    /// message of an exchange is still retransmitted until acknowledged. A duplicate is only
    /// acknowledged (if R), a standalone ack never delivered. Throws
    /// ``TransportError/tooManyExchanges(limit:)`` when it would open an exchange and the table is full.
    public mutating func received(
        _ header: ProtocolHeader, messageCounter: UInt32, on session: SessionKey, isDuplicate: Bool,
        now: ContinuousClock.Instant
    ) throws(TransportError) -> [Effect] {
        if !isDuplicate, let acknowledged = header.acknowledgedMessageCounter {
            _ = retransmissions.acknowledge(acknowledged, on: ExchangeKey(receivedOn: session, header))
        }
        let exchange: ExchangeKey
        let isNew: Bool
        switch try exchanges.route(header, on: session, isDuplicate: isDuplicate) {
        case .drop: return []
        case .acknowledgeAndDrop(let key): return [.sendStandaloneAck(key, messageCounter: messageCounter)]
        case .existing(let key): (exchange, isNew) = (key, false)
        case .opened(let key): (exchange, isNew) = (key, true)
        }
        var effects: [Effect] = []
        if header.needsAck {
            effects += acks.needsAck(messageCounter, on: exchange, isDuplicate: isDuplicate, now: now).map {
                .sendStandaloneAck($0.exchange, messageCounter: $0.messageCounter)
            }
        }
        if !isDuplicate, !header.isStandaloneAck { effects.append(.deliver(exchange, isNewExchange: isNew)) }
        return effects
    }

    /// Opens an exchange we initiate on `session`.
    public mutating func initiate(on session: SessionKey) throws(TransportError) -> ExchangeKey {
        try exchanges.initiate(on: session)
    }

    /// The protocol header of the next message on `exchange`: I when we initiated it, R when
    /// `isReliable`, and the ack we owe piggy-backed (it is then no longer owed).
    public mutating func header(
        for exchange: ExchangeKey, protocolID: ProtocolID, opcode: UInt8, isReliable: Bool
    ) throws(TransportError) -> ProtocolHeader {
        guard exchanges.contains(exchange) else { throw .unknownExchange(exchange) }
        if isReliable, retransmissions.isAwaitingAck(exchange) { throw .exchangeAwaitingAck(exchange) }
        return ProtocolHeader(
            isInitiator: exchange.role == .initiator, needsAck: isReliable,
            acknowledgedMessageCounter: acks.takePiggyback(on: exchange), opcode: opcode,
            exchangeID: exchange.exchangeID, protocolID: protocolID)
    }

    /// The message built with ``header(for:protocolID:opcode:isReliable:)`` went out at `now` as
    /// `bytes` with `messageCounter`; a reliable one now awaits its ack, first retransmitted after
    /// `backoff(baseInterval, 0)` (see ``MRPParameters/baseInterval(peerIsActive:)``).
    public mutating func sent(
        _ bytes: [UInt8], messageCounter: UInt32, on exchange: ExchangeKey, isReliable: Bool,
        baseInterval: Duration, now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) throws(TransportError) {
        guard isReliable else { return }
        try retransmissions.add(
            bytes, messageCounter: messageCounter, on: exchange, baseInterval: baseInterval, now: now,
            using: &generator)
    }

    /// Standalone acks whose 200 ms passed, retransmissions due, and exchanges given up at `now`.
    public mutating func tick(
        now: ContinuousClock.Instant, using generator: inout some RandomNumberGenerator
    ) -> [Effect] {
        var effects = acks.tick(now: now).map {
            Effect.sendStandaloneAck($0.exchange, messageCounter: $0.messageCounter)
        }
        for effect in retransmissions.tick(now: now, using: &generator) {
            switch effect {
            case .retransmit(let exchange, let bytes, _):
                effects.append(.retransmit(exchange, bytes: bytes))
            case .giveUp(let exchange, let messageCounter):
                exchanges.close(exchange)
                _ = acks.close(exchange)
                effects.append(.exchangeFailed(exchange, messageCounter: messageCounter))
            }
        }
        return effects
    }

    /// Closes `exchange`: an ack still owed goes alone now; a reliable message still waiting keeps
    /// being retransmitted until acknowledged or given up (as the SDK keeps the exchange alive).
    public mutating func close(_ exchange: ExchangeKey) -> [Effect] {
        exchanges.close(exchange)
        return acks.close(exchange).map { .sendStandaloneAck($0.exchange, messageCounter: $0.messageCounter) }
    }

    /// Whether a reliable message sent on `session` still awaits its ack (retransmitted until it comes
    /// or MRP gives up): what a session that closes once its last reply is delivered waits for.
    public func isAwaitingAck(on session: SessionKey) -> Bool { retransmissions.isAwaitingAck(on: session) }

    /// The session ended: its exchanges, owed acks and waiting messages are forgotten.
    public mutating func closeSession(_ session: SessionKey) {
        _ = exchanges.closeAll(on: session)
        retransmissions.removeAll(on: session)
        acks.removeAll(on: session)
    }
}
