import FoundationEssentials
import TraitBridgeJSON

/// What `bridge/health` says of the history: the recorder's running totals as last noted. A drop or
/// a failed write is said at once; the counts that move with every batch (stored, pruned, bytes) at
/// most once a minute, so the retained health topic is not republished every five seconds.
struct HistoryHealth: Sendable, Hashable {
    private(set) var totals: HistoryRecorder.Totals?
    private var notedAt: Date?
    static let quietSeconds = 60.0

    /// A new report at `now`; whether the health topic should say it.
    mutating func update(_ new: HistoryRecorder.Totals, now: Date) -> Bool {
        guard new != totals else { return false }
        let urgent = totals == nil || new.dropped != totals?.dropped || new.failedWrites != totals?.failedWrites
        if !urgent, let notedAt, now.timeIntervalSince(notedAt) < Self.quietSeconds { return false }
        totals = new
        notedAt = now
        return true
    }

    /// The health topic's `history` member (nil: no history kept).
    var payload: JSONObject? {
        guard let totals else { return nil }
        return [
            "stored": .int(Int64(totals.stored)), "dropped": .int(Int64(totals.dropped)),
            "pruned": .int(Int64(totals.pruned)), "failedWrites": .int(Int64(totals.failedWrites)),
            "bytes": .int(totals.bytes),
        ]
    }
}
