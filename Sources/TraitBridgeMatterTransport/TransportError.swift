public import TraitBridgeMatterCrypto

/// Why the message layer refused to do something: a message that does not decode or open, or a
/// table or counter at its limit. Each description says what the caller should do next; none holds
/// a key or a payload, so they are safe to log.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a message this node can read.
    case decode(MessageDecodeError)
    /// Sealing or opening failed; `.authenticationFailed` means a wrong key, nonce or altered bytes.
    case crypto(MatterCryptoError)
    /// A secure session used its last counter, 0xFFFFFFFF (Core §4.6.1): it may send nothing more.
    case messageCounterExhausted
    /// The exchange table holds `limit` exchanges already.
    case tooManyExchanges(limit: Int)
    /// A reliable message on `exchange` still awaits its acknowledgement (MRP allows one at a time).
    case exchangeAwaitingAck(ExchangeKey)
    /// The retransmission table holds `limit` messages already.
    case retransmissionTableFull(limit: Int)
    /// No exchange with this key is open.
    case unknownExchange(ExchangeKey)

    public var description: String {
        switch self {
        case .decode(let error):
            error.description
        case .crypto(.authenticationFailed):
            "the message's MIC does not match: wrong session key or sender node ID, or altered bytes; drop it"
        case .crypto(let error):
            error.description
        case .messageCounterExhausted:
            "this secure session's message counter is exhausted (Core §4.6.1) — close the session and"
                + " establish a new one (CASE) before sending"
        case .tooManyExchanges(let limit):
            "\(limit) exchanges are open — close finished ones, or answer the peer with Busy and retry later"
        case .exchangeAwaitingAck(let exchange):
            "\(exchange) still awaits an acknowledgement — wait for it (or the give-up) before the next"
                + " reliable message on this exchange"
        case .retransmissionTableFull(let limit):
            "\(limit) reliable messages await acknowledgement — wait for acks or give-ups before sending more"
        case .unknownExchange(let exchange):
            "\(exchange) is not open — it was closed or never created"
        }
    }
}
