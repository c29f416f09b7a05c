/// The counter a node stamps on the messages it sends (Core §4.6.1): the one global counter for
/// the unsecured session, or one per secure session. It starts at a random value in [1, 2^28]
/// (SDK `MessageCounter::GetDefaultInitialValuePredecessor() + 1`) so a session's age is not
/// visible on the wire, and the peer's reception state, which starts at 0, sees the first message
/// as new. It exists so the rollover rules live in one place.
public struct MessageCounter: Sendable, Hashable {
    /// Which counter, which decides what happens after 0xFFFFFFFF.
    public enum Kind: Sendable, Hashable {
        /// The global unencrypted counter: it rolls over to 0 (the SDK's `++` on a uint32).
        case globalUnencrypted
        /// A secure session's counter: it never rolls over; after 0xFFFFFFFF the session is spent
        /// (Core §4.6.1, SDK `CHIP_ERROR_MESSAGE_COUNTER_EXHAUSTED`).
        case secureSession
    }

    /// The mask of the random initial value (SDK `kMessageCounterRandomInitMask`): 28 bits.
    public static let randomInitialValueMask: UInt32 = 0x0FFF_FFFF

    public let kind: Kind
    /// The last counter handed out (before the first: the random value's predecessor).
    private var lastUsed: UInt32

    /// A counter whose first value is `(random & 0x0FFFFFFF) + 1`, from the low 32 bits of
    /// `generator`'s next value.
    public init(kind: Kind, using generator: inout some RandomNumberGenerator) {
        self.init(kind: kind, lastUsed: UInt32(truncatingIfNeeded: generator.next()) & Self.randomInitialValueMask)
    }

    /// A counter that hands out `lastUsed + 1` next (tests of the rollover edge).
    init(kind: Kind, lastUsed: UInt32) {
        self.kind = kind
        self.lastUsed = lastUsed
    }

    /// The value the next message carries. A secure session's counter throws
    /// ``TransportError/messageCounterExhausted`` once 0xFFFFFFFF has been used.
    public mutating func next() throws(TransportError) -> UInt32 {
        switch kind {
        case .globalUnencrypted:
            lastUsed &+= 1
        case .secureSession:
            guard lastUsed != .max else { throw .messageCounterExhausted }
            lastUsed += 1
        }
        return lastUsed
    }
}
