public import FoundationEssentials
import GRDB

extension HistoryStore {
    /// What one pruning pass removed, and whether its budget ran out before it was done.
    public struct Pruned: Sendable, Hashable {
        public var byAge = 0
        public var bySize = 0
        /// Work was left for the next pass (the chunk budget ran out).
        public var isPartial = false
    }

    /// Deletes changes older than `maxAge` before `now` (none when nil) (from the oldest written: the order
    /// blocks were written in is the time order, but for a clock stepped back; a block goes when its newest
    /// change is older, so up to ``HistoryBlock/span`` more is kept), then the oldest changes while the history
    /// holds more than `maxBytes` (down to 90 % of it, so the next batch does not start again).
    ///
    /// In chunks of `chunk` blocks, one transaction each, at most `chunks` of them: the writer
    /// stores the pending batches between two passes, so pruning a large file never holds them up
    /// for long. Freed pages are reused by later writes; the file does not shrink.
    @discardableResult
    public func prune(
        now: Date, maxAge: Duration?, maxBytes: Int64, chunk: Int = 5_000, chunks: Int = 10
    ) throws(StoreError) -> Pruned {
        var pruned = Pruned()
        var budget = max(1, chunks)
        do {
            while let maxAge, budget > 0 {
                let cutoff = Self.milliseconds(now - Double(maxAge.components.seconds))
                budget -= 1
                let (blocks, changes) = try deleteOldest(chunk, before: cutoff)
                pruned.byAge += changes
                if blocks < chunk { break }
            }
            var target: Int64?
            while budget > 0 {
                let used = try usedBytes()
                if target == nil {
                    guard used > maxBytes else { break }
                    target = maxBytes / 10 * 9
                }
                guard let target, used > target else { break }
                budget -= 1
                let (blocks, changes) = try deleteOldest(chunk, before: nil)
                pruned.bySize += changes
                if blocks == 0 { break }
            }
            pruned.isPartial = budget == 0
            // A series' last change may be gone: the next equal value is stored again.
            if pruned.byAge + pruned.bySize > 0 { forgetCaches() }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .historyWriteFailed(path: path, reason: "pruning: \(error)")
        }
        return pruned
    }

    /// Deletes the blocks among the oldest `chunk` written (whose newest change is before `cutoff`, when given).
    /// - Returns: the blocks and changes deleted.
    private func deleteOldest(_ chunk: Int, before cutoff: Int64?) throws -> (blocks: Int, changes: Int) {
        try queue.write { db in
            var condition = "id IN (SELECT id FROM historyBlock ORDER BY id LIMIT ?)"
            var arguments: StatementArguments = [chunk]
            if let cutoff {
                condition += " AND lastAt < ?"
                arguments += [cutoff]
            }
            let changes =
                try Int.fetchOne(
                    db, sql: "SELECT coalesce(sum(count), 0) FROM historyBlock WHERE \(condition)",
                    arguments: arguments) ?? 0
            try db.execute(sql: "DELETE FROM historyBlock WHERE \(condition)", arguments: arguments)
            return (db.changesCount, changes)
        }
    }

    /// Deletes the series no change names any more (a device gone, its changes pruned), so the
    /// series table and the writer's caches do not keep every device ever seen. One index lookup
    /// per series; the writer runs it once a day.
    @discardableResult
    public func removeEmptySeries() throws(StoreError) -> Int {
        do {
            let removed = try queue.write { db in
                try db.execute(
                    sql:
                        "DELETE FROM historySeries "
                        + "WHERE NOT EXISTS (SELECT 1 FROM historyBlock WHERE series = historySeries.id)"
                )
                return db.changesCount
            }
            if removed > 0 { forgetCaches() }
            return removed
        } catch {
            throw .historyWriteFailed(path: path, reason: "removing empty series: \(error)")
        }
    }
}
