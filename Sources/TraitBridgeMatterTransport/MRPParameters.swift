/// The Message Reliability Protocol's timing (Core §4.12, parameters and constants): a peer's
/// retry intervals, which it announces in its session parameters (PBKDFParamRequest and Sigma1
/// tag 5, DNS-SD SII/SAI/SAT), and the constants and backoff formula every sender applies to them.
/// It exists so the retransmission schedule is computed exactly as connectedhomeip computes it
/// (`ReliableMessageMgr::GetBackoff`), integer arithmetic included.
public struct MRPParameters: Sendable, Hashable {
    /// SESSION_IDLE_INTERVAL (SII): the base interval while the peer is idle (SDK default 500 ms).
    public var idleRetransmissionInterval: Duration
    /// SESSION_ACTIVE_INTERVAL (SAI): the base interval while the peer is active (SDK default 300 ms).
    public var activeRetransmissionInterval: Duration
    /// SESSION_ACTIVE_THRESHOLD (SAT): how long after its last message a peer counts as active
    /// (SDK `kDefaultActiveTime`, 4000 ms).
    public var activeThreshold: Duration

    public init(
        idleRetransmissionInterval: Duration = .milliseconds(500),
        activeRetransmissionInterval: Duration = .milliseconds(300), activeThreshold: Duration = .milliseconds(4000)
    ) {
        self.idleRetransmissionInterval = idleRetransmissionInterval
        self.activeRetransmissionInterval = activeRetransmissionInterval
        self.activeThreshold = activeThreshold
    }

    /// The parameters a peer that announced none is assumed to have.
    public static let defaults = MRPParameters()

    /// MRP_MAX_TRANSMISSIONS: the first transmission and 4 retransmissions
    /// (SDK `CHIP_CONFIG_RMP_DEFAULT_MAX_RETRANS` = 4).
    public static let maxTransmissions = 5
    /// MRP_STANDALONE_ACK_TIMEOUT: how long an acknowledgement waits for a message to ride on
    /// before it goes alone (SDK `CHIP_CONFIG_RMP_DEFAULT_ACK_TIMEOUT`).
    public static let standaloneAckTimeout: Duration = .milliseconds(200)
    /// MRP_BACKOFF_BASE, applied as 16/10.
    public static let backoffBase = 1.6
    /// MRP_BACKOFF_JITTER, applied as a random byte over 1024 (at most 255/1024 ≈ 0.249).
    public static let backoffJitter = 0.25
    /// MRP_BACKOFF_MARGIN, applied as 1127/1024 (≈ 1.1006).
    public static let backoffMargin = 1.1
    /// MRP_BACKOFF_THRESHOLD: transmissions before the backoff starts growing.
    public static let backoffThreshold = 1

    /// Whether the peer counts as active (SDK `IsPeerActive`): it sent something less than
    /// `activeThreshold` ago.
    public func isPeerActive(lastHeard: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Bool {
        now - lastHeard < activeThreshold
    }

    /// The base interval for a retransmission timeout (SDK `CalculateNextRetransTime`): the active
    /// interval once the exchange has received a message from the peer or the peer is active, the
    /// idle interval otherwise.
    public func baseInterval(peerIsActive: Bool) -> Duration {
        peerIsActive ? activeRetransmissionInterval : idleRetransmissionInterval
    }

    /// How long to wait after transmission number `sendCount` (0 for the first) before the next
    /// one (Core §4.12.2.1): `i × 1.1 × 1.6^max(0, n − 1) × (1 + jitter × 0.25)`, computed as the
    /// SDK does in whole milliseconds: `i × 1127 / 1024`, then `× 16^e / 10^e` with e = n − 1
    /// clamped to 0...4, then `× (1024 + jitter) / 1024`, each step rounding down. `jitter` is the
    /// SDK's `Crypto::GetRandU8()`: 0 gives the shortest wait, 255 the longest. No ICD polling
    /// interval and no sender boost (`CHIP_CONFIG_MRP_RETRY_INTERVAL_SENDER_BOOST`, 0 off Thread).
    /// A base interval beyond 2^32 − 1 ms (what a peer can announce) counts as 2^32 − 1 ms.
    public static func backoff(baseInterval: Duration, sendCount: Int, jitter: UInt8) -> Duration {
        // A peer announces its intervals as 32-bit milliseconds; clamping there keeps every product below 2^63.
        let interval = min(max(0, baseInterval.wholeMilliseconds), Int64(UInt32.max)) * 1127 / 1024
        let exponent = min(max(sendCount - backoffThreshold, 0), 4)
        var numerator: Int64 = 1
        var denominator: Int64 = 1
        for _ in 0..<exponent {
            numerator *= 16
            denominator *= 10
        }
        let grown = interval * numerator / denominator
        return .milliseconds(grown * (1024 + Int64(jitter)) / 1024)
    }
}
