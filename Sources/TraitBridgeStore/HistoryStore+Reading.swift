import FoundationEssentials
import GRDB
import TraitBridgeModel

/// How migration h1 stored a change, a row each: a kind and a typed value (the kinds are the block's too).
enum HistoryValueCoding {
    enum Kind: Int64 {
        case null = 0, bool, int, double, string, json, connectivity, notification
    }

    /// A stored change read back; a row this version cannot read is a null value (never a throw:
    /// one odd row must not hide the rest of a device's history).
    static func decode(kind: Int64, value: DatabaseValue) -> HistoryRecord.Change {
        switch (Kind(rawValue: kind), value.storage) {
        case (.bool, .int64(let number)): return .value(.bool(number != 0))
        case (.int, .int64(let number)): return .value(.int(number))
        case (.double, .double(let number)): return .value(.double(number))
        case (.double, .int64(let number)): return .value(.double(Double(number)))
        case (.string, .string(let text)): return .value(.string(text))
        case (.json, .string(let text)):
            let decoded = try? JSONDecoder().decode(AttributeValue.self, from: Data(text.utf8))
            return .value(decoded ?? .null)
        case (.connectivity, .string(let text)):
            if let decoded = try? JSONDecoder().decode(HistoryConnectivity.self, from: Data(text.utf8)) {
                return .connectivity(decoded)
            }
            return .value(.null)
        case (.notification, .string(let text)): return .notification(text)
        default: return .value(.null)
        }
    }
}

extension HistoryStore {
    /// A device's records in `filter`'s range, oldest first: the newest `limit` when more match.
    public func page(_ filter: HistoryFilter) throws(StoreError) -> HistoryPage {
        do {
            return try queue.read { db in
                var seriesSQL = "SELECT id, trait, attribute FROM historySeries WHERE device = ?"
                var arguments: StatementArguments = [filter.device.rawValue]
                if let trait = filter.trait {
                    if trait.contains("/") {
                        seriesSQL += " AND trait = ?"
                        arguments += [trait]
                    } else {
                        seriesSQL += " AND trait LIKE ? ESCAPE '\\'"
                        arguments += ["%/" + Self.escapedForLike(trait)]
                    }
                }
                if let attribute = filter.attribute {
                    seriesSQL += " AND attribute = ?"
                    arguments += [attribute == "connectivity" ? "" : attribute]
                }
                var series: [Int64: HistorySeries] = [:]
                for row in try Row.fetchAll(db, sql: seriesSQL, arguments: arguments) {
                    let trait: String = row[1]
                    guard let address = Self.address(trait) else { continue }
                    series[row[0]] = HistorySeries(device: filter.device, address: address, attribute: row[2])
                }
                guard !series.isEmpty else { return HistoryPage(records: [], before: [], truncated: false) }
                let ids = series.keys.sorted()
                let from = Self.milliseconds(filter.from)
                let to = Self.milliseconds(filter.to)
                let limit = min(max(1, filter.limit), Int.max - 1)  // one more is read: never past Int.max
                var found: [(key: ChangeKey, record: HistoryRecord)] = []
                var before: [HistoryRecord] = []
                for id in ids {
                    guard let key = series[id] else { continue }
                    let changes = try Self.changes(of: id, from: from, to: to, newest: limit + 1, in: db)
                    found += changes.inRange.map { ($0.key, Self.record(key, $0.entry)) }
                    Self.keepNewest(&found, limit + 1, key: \.key)
                    // A state holds on into the range; a notification before it is over.
                    if key.attribute != HistoryRecord.notificationAttribute, let last = changes.before {
                        before.append(Self.record(key, last))
                    }
                }
                // The newest `limit` in range, then oldest first.
                let truncated = found.count > limit
                let records = found.prefix(limit).reversed().map(\.record)
                return HistoryPage(records: Array(records), before: before, truncated: truncated)
            }
        } catch {
            throw .historyReadFailed(path: path, reason: "\(error)")
        }
    }

    private static func record(_ series: HistorySeries, _ entry: HistoryBlock.Entry) -> HistoryRecord {
        HistoryRecord(
            device: series.device, address: series.address, attribute: series.attribute,
            at: date(milliseconds: entry.at), change: entry.change)
    }

    /// Orders changes as they happened: by time, then as written (block, place in it).
    struct ChangeKey: Comparable {
        var at: Int64
        var block: Int64
        var index: Int

        static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.at, lhs.block, lhs.index) < (rhs.at, rhs.block, rhs.index)
        }
    }

    /// One series' changes from `from` to `to` in time order (the newest `newest` of them), and its last
    /// change before `from` (what held at the start). Reads the blocks that reach into the range and the
    /// last one before it; holds at most twice `newest` changes and one block, however long the range.
    static func changes(
        of series: Int64, from: Int64, to: Int64, newest: Int = .max, in db: Database
    ) throws -> (before: HistoryBlock.Entry?, inRange: [(key: ChangeKey, entry: HistoryBlock.Entry)]) {
        let keep = max(1, newest)
        var before: (key: ChangeKey, entry: HistoryBlock.Entry)?
        var inRange: [(key: ChangeKey, entry: HistoryBlock.Entry)] = []
        func read(_ sql: String, _ arguments: StatementArguments) throws {
            let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
            while let row = try rows.next() {
                let block: Int64 = row[0]
                let blob: Data = row[1]
                for (place, entry) in HistoryBlock.decode([UInt8](blob)).enumerated() {
                    let key = ChangeKey(at: entry.at, block: block, index: place)
                    if entry.at < from {
                        if before.map({ $0.key < key }) ?? true { before = (key, entry) }
                    } else if entry.at <= to {
                        inRange.append((key, entry))
                    }
                }
                if inRange.count / 2 > keep { keepNewest(&inRange, keep, key: \.key) }
            }
        }
        try read(
            "SELECT id, changes FROM historyBlock WHERE series = ? AND lastAt >= ? AND firstAt <= ?",
            [series, from, to])
        try read(
            "SELECT id, changes FROM historyBlock WHERE series = ? AND lastAt < ? "
                + "ORDER BY lastAt DESC, id DESC LIMIT 1", [series, from])
        keepNewest(&inRange, keep, key: \.key)
        inRange.reverse()
        return (before?.entry, inRange)
    }

    /// Keeps the newest `count` of `items` (by `key`), newest first.
    static func keepNewest<Item>(_ items: inout [Item], _ count: Int, key: (Item) -> ChangeKey) {
        items.sort { key($0) > key($1) }
        if items.count > count { items.removeLast(items.count - count) }
    }

    static func address(_ text: String) -> TraitAddress? {
        guard let slash = text.lastIndex(of: "/"),
            let trait = TraitID(parsing: String(text[text.index(after: slash)...]))
        else { return nil }
        return TraitAddress(deviceTypeKey: String(text[..<slash]), traitID: trait)
    }

    private static func escapedForLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
