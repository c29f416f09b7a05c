/// What a node remembers of one peer's message counters to spot duplicates and replays (Core
/// §4.6.5 "message reception state"): the largest counter seen and a 32-bit bitmap of the 32
/// counters below it (bit i: counter max − 1 − i was received). It exists because an attacker can
/// replay a captured datagram, and MRP retransmits on purpose: both must be recognised.
///
/// Feed it only messages whose MIC verified (``Message/open(_:key:senderNodeID:)``): a forged
/// counter must never move the window. The first message from a peer is trusted and sets the
/// maximum, with every bit set (nothing older is accepted), as matter.js, rs-matter and
/// CircuitMatter do; connectedhomeip instead starts secure sessions at maximum 0 with a clear
/// bitmap, which differs only when the peer's first counter is below 33.
public struct ReplayWindow: Sendable, Hashable {
    /// MSG_COUNTER_WINDOW_SIZE (Core §4.6.5; SDK `CHIP_CONFIG_MESSAGE_COUNTER_WINDOW_SIZE`).
    public static let size = 32

    /// Which rules apply.
    public enum Kind: Sendable, Hashable {
        /// A CASE or PASE session (§4.6.5.1): no rollover; anything not newer than the maximum and not
        /// an unseen counter in the window is a duplicate.
        case secureUnicast
        /// The unsecured session (§4.6.5.2): counters roll over (newer means up to 2^31 − 1 ahead),
        /// and a counter behind the window is new — the peer rebooted with a new random counter —
        /// so the window restarts there.
        case unsecured
    }

    /// What a received counter is.
    public enum Verdict: Sendable, Hashable {
        /// Not seen before: process the message.
        case new
        /// Seen before, or too old to tell (`reason`). Deliver nothing and create no exchange; but if
        /// the message has R set, acknowledge it now with a standalone ack on its exchange, because
        /// the peer retransmits until it hears one (§4.12; SDK `HandleNeedsAckInner`).
        case duplicate(Duplicate)
    }

    /// Why a counter is a duplicate.
    public enum Duplicate: Sendable, Hashable {
        /// It equals the largest counter seen.
        case maximum
        /// It lies in the window and its bit is set.
        case seenInWindow
        /// It is more than 32 below the largest counter seen (secure sessions only).
        case behindWindow
    }

    public let kind: Kind
    private var maximum: UInt32?
    private var bitmap: UInt32 = 0

    public init(kind: Kind) { self.kind = kind }

    /// The largest counter accepted so far; nil before the first message.
    public var maximumCounter: UInt32? { maximum }

    /// Classifies `counter` and, when it is new, records it.
    public mutating func receive(_ counter: UInt32) -> Verdict {
        guard let maximum else {
            restart(at: counter)
            return .new
        }
        if counter == maximum { return .duplicate(.maximum) }
        let ahead = counter &- maximum
        let isNewer = kind == .secureUnicast ? counter > maximum : ahead < 1 << 31
        if isNewer {
            bitmap = ahead > Self.size ? 0 : bitmap << ahead | 1 << (ahead - 1)
            self.maximum = counter
            return .new
        }
        let behind = maximum &- counter
        if behind <= Self.size {
            let bit: UInt32 = 1 << (behind - 1)
            if bitmap & bit != 0 { return .duplicate(.seenInWindow) }
            bitmap |= bit
            return .new
        }
        guard kind == .unsecured else { return .duplicate(.behindWindow) }
        restart(at: counter)
        return .new
    }

    private mutating func restart(at counter: UInt32) {
        maximum = counter
        bitmap = .max
    }
}
