import FoundationEssentials
import GRDB
import TraitBridgeModel

/// The history on disk, `<directory>/history.sqlite`: every value and connectivity change, bounded
/// by age and size.
///
/// A file of its own, beside the registry: its writes never wait behind the registry's (written on
/// the message path) nor make them wait; its size is the history's alone; it is safe to lose (a
/// damaged file is moved aside and history starts again, the registry is never touched). Written
/// by one thread (``HistoryRecorder``'s), read by the same one.
public final class HistoryStore: @unchecked Sendable {
    let queue: DatabaseQueue
    /// The database file.
    public let path: String
    /// Series ids by the series' hash, and each series' last stored change as its hash (a change of
    /// the same hash is not stored again). Hashes, not the series and changes themselves: 16 bytes an
    /// entry instead of some 150 (10 000 devices have 80 000 series); `Hasher`'s, seeded afresh in each
    /// process, so no one can choose texts that collide. Touched only by the thread that writes;
    /// caches of the file, emptied before a batch when they hold ``cacheLimit`` series (read again as needed).
    private var seriesIDs: [Int: Int64] = [:]
    private var lastChanges: [Int64: Int] = [:]
    /// 8 series a device for 32 768 devices.
    static let cacheLimit = 1 << 18

    /// Opens (and migrates) `<directory>/history.sqlite`, creating the folder when needed.
    public init(directory: String) throws(StoreError) {
        path = directory + "/history.sqlite"
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Losing the last seconds of history to a power cut is fine; an fsync per batch is not.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA journal_size_limit = 8388608")
            // Blocks touch few pages a batch: 4 MiB of them kept in memory is as fast as 16 MiB (0.55–0.76
            // against 0.76–0.85 µs a change in batches of 16 384; BENCHMARKS.md, History) and 5 MB less.
            try db.execute(sql: "PRAGMA cache_size = -4096")
        }
        queue = try DeviceStore.openMigrated(path: path, configuration: configuration, migrator: Self.migrator)
    }

    /// About how many changes opening the history in `directory` converts to blocks (migration h2: a file
    /// an earlier TraitBridge wrote, a row a change), so that the start can say why it waits; nil when none.
    public static func changesToConvert(directory: String) -> Int? {
        let path = directory + "/history.sqlite"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        var configuration = Configuration()
        configuration.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        defer { try? queue.close() }
        return try? queue.read { db -> Int? in
            guard try db.tableExists("history"), try !db.tableExists("historyBlock") else { return nil }
            let row = try Row.fetchOne(db, sql: "SELECT min(id), max(id) FROM history")
            guard let first = row?[0] as Int64?, let last = row?[1] as Int64? else { return nil }
            return Int(clamping: last - first + 1)
        }
    }

    /// Migrations are named and never edited; a change is a new migration.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("h1: history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE historySeries (
                      id INTEGER PRIMARY KEY,
                      device TEXT NOT NULL, trait TEXT NOT NULL, attribute TEXT NOT NULL,
                      UNIQUE (device, trait, attribute));
                    CREATE TABLE history (
                      id INTEGER PRIMARY KEY,
                      series INTEGER NOT NULL,
                      at INTEGER NOT NULL,
                      kind INTEGER NOT NULL,
                      value);
                    CREATE INDEX historyBySeries ON history (series, at);
                    """)
        }
        migrator.registerMigration("h2: history in blocks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE historyBlock (
                      id INTEGER PRIMARY KEY,
                      series INTEGER NOT NULL,
                      firstAt INTEGER NOT NULL,
                      lastAt INTEGER NOT NULL,
                      count INTEGER NOT NULL,
                      changes BLOB NOT NULL);
                    CREATE INDEX historyBlockBySeries ON historyBlock (series, lastAt);
                    """)
            try HistoryBlockWriter.convertRows(db)
            try db.execute(sql: "DROP TABLE history")
        }
        return migrator
    }

    // MARK: Writing

    /// Writes `records` in one transaction, leaving out a change equal to its series' last one: each
    /// series' changes in blocks (``HistoryBlock``), one row for many.
    ///
    /// - Returns: how many were stored.
    @discardableResult
    public func write(_ records: [HistoryRecord]) throws(StoreError) -> Int {
        guard !records.isEmpty else { return 0 }
        // Emptied between batches, never inside one: a series' open block is its last change until written.
        if seriesIDs.count >= Self.cacheLimit || lastChanges.count >= Self.cacheLimit { forgetCaches() }
        do {
            return try queue.write { db in
                var stored = 0
                var blocks = try HistoryBlockWriter(db)
                for record in records {
                    let series = try seriesID(record.series, in: db)
                    let fingerprint = Self.fingerprint(record.change)
                    if let fingerprint, try lastChange(of: series, in: db) == fingerprint { continue }
                    try blocks.append(series: series, at: Self.milliseconds(record.at), record.change)
                    lastChanges[series] = fingerprint ?? 0
                    stored += 1
                }
                try blocks.finish()
                return stored
            }
        } catch {
            forgetCaches()  // what this transaction cached may not be on disk: read it again
            throw .historyWriteFailed(path: path, reason: "\(error)")
        }
    }

    /// What makes two changes of a series the same: a value's value, a connectivity's state and locality
    /// (a new reason alone is no change: a device heard on two topics names one then the other); nil
    /// for a notification (a second press is a press).
    static func fingerprint(_ change: HistoryRecord.Change) -> Int? {
        var hasher = Hasher()
        switch change {
        case .value(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .connectivity(let connectivity):
            hasher.combine(1)
            hasher.combine(connectivity.state)
            hasher.combine(connectivity.locality)
        case .notification: return nil
        }
        return hasher.finalize()
    }

    /// Empties the caches: what they held is read again from the file when next needed.
    func forgetCaches() {
        seriesIDs = [:]
        lastChanges = [:]
    }

    private func seriesID(_ series: HistorySeries, in db: Database) throws -> Int64 {
        let key = series.hashValue
        if let id = seriesIDs[key] { return id }
        let arguments: StatementArguments = [series.device.rawValue, series.address.description, series.attribute]
        try db.cachedStatement(
            sql: "INSERT INTO historySeries (device, trait, attribute) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
        ).execute(arguments: arguments)
        let id =
            try Int64.fetchOne(
                db.cachedStatement(
                    sql: "SELECT id FROM historySeries WHERE device = ? AND trait = ? AND attribute = ?"),
                arguments: arguments) ?? 0
        seriesIDs[key] = id
        return id
    }

    /// The fingerprint of a series' last stored change (nil: none, or a notification).
    private func lastChange(of series: Int64, in db: Database) throws -> Int? {
        if let fingerprint = lastChanges[series] { return fingerprint }
        let blob = try Data.fetchOne(
            db.cachedStatement(
                sql: "SELECT changes FROM historyBlock WHERE series = ? ORDER BY lastAt DESC, id DESC LIMIT 1"),
            arguments: [series])
        guard let blob, let last = HistoryBlock.decode([UInt8](blob)).last else { return nil }
        let fingerprint = Self.fingerprint(last.change) ?? 0
        lastChanges[series] = fingerprint
        return fingerprint
    }

    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, let exact = Int64(exactly: value) else { return value > 0 ? .max : .min }
        return exact
    }

    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    // MARK: Size

    /// Bytes the history's pages hold (free pages left out): what ``prune`` keeps under its bound.
    public func usedBytes() throws(StoreError) -> Int64 {
        do {
            return try queue.read { db in
                let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
                let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                return (pages - free) * size
            }
        } catch {
            throw .historyReadFailed(path: path, reason: "\(error)")
        }
    }

    /// How many changes are stored.
    public func count() throws(StoreError) -> Int {
        do {
            return try queue.read { db in
                try Int.fetchOne(db, sql: "SELECT coalesce(sum(count), 0) FROM historyBlock") ?? 0
            }
        } catch {
            throw .historyReadFailed(path: path, reason: "\(error)")
        }
    }
}
