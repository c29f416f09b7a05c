import FoundationEssentials
import GRDB

/// Gathers one transaction's changes into blocks, one open block a series, and inserts each block
/// as it fills (or its next change falls outside it) and the rest at ``finish()``.
struct HistoryBlockWriter {
    private var insert: RowWriter
    private var open: [Int64: HistoryBlock] = [:]
    /// The series in the order their open block began: blocks are inserted oldest first, the order
    /// pruning removes them in.
    private var order: [Int64] = []

    init(_ db: Database) throws {
        insert = try RowWriter(
            db, sql: "INSERT INTO historyBlock (series, firstAt, lastAt, count, changes) VALUES (?, ?, ?, ?, ?)")
    }

    mutating func append(series: Int64, at: Int64, _ change: HistoryRecord.Change) throws {
        if let block = open[series], !block.accepts(at: at) {
            try write(block, series: series)
            open[series] = nil
        }
        if open[series] == nil { order.append(series) }
        open[series, default: HistoryBlock()].append(at: at, change)
    }

    /// Inserts every block still open.
    mutating func finish() throws {
        for series in order {
            guard let block = open.removeValue(forKey: series) else { continue }
            try write(block, series: series)
        }
        order = []
    }

    private mutating func write(_ block: HistoryBlock, series: Int64) throws {
        try insert.run { row in
            try row.int64(series)
            try row.int64(block.firstAt)
            try row.int64(block.lastAt)
            try row.int(block.count)
            try row.bytes(block.bytes)
        }
    }

    /// Migration h2: the rows of h1's `history` table (a change each) into blocks, in the order they
    /// were written.
    static func convertRows(_ db: Database) throws {
        var writer = try HistoryBlockWriter(db)
        let rows = try Row.fetchCursor(db, sql: "SELECT series, at, kind, value FROM history ORDER BY id")
        while let row = try rows.next() {
            let change = HistoryValueCoding.decode(kind: row[2], value: row[3])
            try writer.append(series: row[0], at: row[1], change)
            if writer.open.count >= 1 << 16 { try writer.finish() }  // bounded, however many series
        }
        try writer.finish()
    }
}
