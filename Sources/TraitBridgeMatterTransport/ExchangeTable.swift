/// The open exchanges of a node (Core §4.10): which received message belongs to which exchange,
/// when an unsolicited message opens a new one, and the IDs of the exchanges we open. It exists so
/// every message finds its conversation, or is dropped by the spec's rules, within a fixed bound.
///
/// The bound defaults to 16, connectedhomeip's `CHIP_CONFIG_MAX_EXCHANGE_CONTEXTS` (its Linux
/// platform config uses 8): a device answers a handful of controllers (a fabric each, 5 at least),
/// each with one or two interactions in flight plus a subscription's report, so 16 leaves room
/// while bounding what a peer that opens exchanges and never finishes them can make us hold.
public struct ExchangeTable: Sendable {
    /// connectedhomeip's default bound (`CHIP_CONFIG_MAX_EXCHANGE_CONTEXTS`).
    public static let defaultLimit = 16

    /// Where a received message goes.
    public enum Routing: Sendable, Hashable {
        /// To this open exchange.
        case existing(ExchangeKey)
        /// To a responder exchange just opened for it: an unsolicited message with I set.
        case opened(ExchangeKey)
        /// Nowhere, but its R flag asks for an acknowledgement: send a standalone ack on this key
        /// (an ephemeral exchange, not added to the table) and drop the message (§4.10; SDK
        /// `ExchangeManager::SendStandaloneAckIfNeeded`).
        case acknowledgeAndDrop(ExchangeKey)
        /// Nowhere, and nothing to send: no exchange matches, and the message neither opens one (no
        /// I, a duplicate, or a standalone ack) nor asks for an acknowledgement.
        case drop
    }

    public let limit: Int
    private var open: Set<ExchangeKey> = []
    private var nextExchangeID: UInt16

    /// A table whose own exchange IDs start at a random 16-bit value (SDK `ExchangeManager::Init`,
    /// `GetRandU16`), from the low 16 bits of `generator`'s next value.
    public init(limit: Int = defaultLimit, using generator: inout some RandomNumberGenerator) {
        precondition(limit > 0, "an exchange table without room")
        self.limit = limit
        self.nextExchangeID = UInt16(truncatingIfNeeded: generator.next())
    }

    public var count: Int { open.count }

    public func contains(_ exchange: ExchangeKey) -> Bool { open.contains(exchange) }

    /// Routes a message received on `session` whose counter the replay window judged
    /// (`isDuplicate`). A duplicate never opens an exchange (SDK `ExchangeManager::OnMessageReceived`);
    /// it still reaches its open exchange, where MRP acknowledges it at once and delivers nothing.
    /// Throws ``TransportError/tooManyExchanges(limit:)`` when it should open one and the table is
    /// full: drop the message unacknowledged, so the peer retries later, as the SDK does.
    public mutating func route(
        _ header: ProtocolHeader, on session: SessionKey, isDuplicate: Bool
    ) throws(TransportError) -> Routing {
        let key = ExchangeKey(receivedOn: session, header)
        if open.contains(key) { return .existing(key) }
        if header.isInitiator, !isDuplicate, !header.isStandaloneAck {
            guard open.count < limit else { throw .tooManyExchanges(limit: limit) }
            open.insert(key)
            return .opened(key)
        }
        return header.needsAck ? .acknowledgeAndDrop(key) : .drop
    }

    /// Opens an exchange we initiate on `session` (a subscription's report, for one) with the next
    /// exchange ID, skipping any still open on that session.
    public mutating func initiate(on session: SessionKey) throws(TransportError) -> ExchangeKey {
        guard open.count < limit else { throw .tooManyExchanges(limit: limit) }
        while true {
            let key = ExchangeKey(session: session, exchangeID: nextExchangeID, role: .initiator)
            nextExchangeID &+= 1
            if open.insert(key).inserted { return key }
        }
    }

    /// Closes one exchange; closing one that is not open does nothing.
    public mutating func close(_ exchange: ExchangeKey) { open.remove(exchange) }

    /// Closes every exchange of a session that ended, and says which they were.
    public mutating func closeAll(on session: SessionKey) -> [ExchangeKey] {
        let closing = open.filter { $0.session == session }
        open.subtract(closing)
        return closing.sorted { $0.exchangeID < $1.exchangeID }
    }
}
