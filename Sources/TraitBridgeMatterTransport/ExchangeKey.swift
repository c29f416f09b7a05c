/// The session layer's name for a session, which the exchange layer only compares: for example the
/// local session ID of a secure session, or an index per unsecured peer (all unsecured sessions
/// share session ID 0, so the header's session ID cannot tell them apart). It exists so exchanges
/// on different sessions never match, whatever their exchange IDs.
public struct SessionKey: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { "session \(rawValue)" }
}

/// Our side of an exchange.
public enum ExchangeRole: Sendable, Hashable {
    /// We sent its first message (I set on everything we send in it).
    case initiator
    /// The peer sent its first message.
    case responder
}

/// What identifies an exchange (Core §4.10): the session, the exchange ID and our role, since
/// both ends allocate exchange IDs independently and the same ID may be in use in each direction.
/// It exists so the exchange table, the retransmission table and the pending acks share one key.
public struct ExchangeKey: Sendable, Hashable, CustomStringConvertible {
    public var session: SessionKey
    public var exchangeID: UInt16
    public var role: ExchangeRole

    public init(session: SessionKey, exchangeID: UInt16, role: ExchangeRole) {
        self.session = session
        self.exchangeID = exchangeID
        self.role = role
    }

    /// The exchange a received message belongs to: ours as responder when the sender set I.
    public init(receivedOn session: SessionKey, _ header: ProtocolHeader) {
        self.init(session: session, exchangeID: header.exchangeID, role: header.isInitiator ? .responder : .initiator)
    }

    public var description: String {
        "exchange \(exchangeID) (\(role == .initiator ? "initiator" : "responder")) on \(session)"
    }
}
