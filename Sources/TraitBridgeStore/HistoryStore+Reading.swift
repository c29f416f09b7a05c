import FoundationEssentials
import GRDB
import TraitBridgeModel

/// How a change is stored: a kind and a typed value (numbers stay numbers, no JSON for a scalar).
enum HistoryValueCoding {
    enum Kind: Int64 {
        case null = 0, bool, int, double, string, json, connectivity, notification
    }

    static func encode(_ change: HistoryRecord.Change) throws -> (Int64, DatabaseValue) {
        switch change {
        case .connectivity(let connectivity):
            let text = String(decoding: try JSONEncoder().encode(connectivity), as: UTF8.self)
            return (Kind.connectivity.rawValue, text.databaseValue)
        case .notification(let text): return (Kind.notification.rawValue, text.databaseValue)
        case .value(let value):
            switch value {
            case .null: return (Kind.null.rawValue, .null)
            case .bool(let flag): return (Kind.bool.rawValue, (flag ? 1 : 0).databaseValue)
            case .int(let number): return (Kind.int.rawValue, number.databaseValue)
            case .double(let number): return (Kind.double.rawValue, number.databaseValue)
            case .string(let text): return (Kind.string.rawValue, text.databaseValue)
            case .list, .structure:
                let text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
                return (Kind.json.rawValue, text.databaseValue)
            }
        }
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
                let list = ids.map(String.init).joined(separator: ",")
                let from = Self.milliseconds(filter.from)
                let to = Self.milliseconds(filter.to)
                let limit = max(1, filter.limit)
                // The newest `limit + 1` in range (one more says whether some were left out), then oldest first.
                let rows = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT series, at, kind, value FROM history WHERE series IN (\(list)) AND at >= ? AND at <= ? "
                        + "ORDER BY at DESC, id DESC LIMIT ?",
                    arguments: [from, to, limit + 1])
                let truncated = rows.count > limit
                let records = rows.prefix(limit).reversed().compactMap { row in
                    Self.record(row, series: series)
                }
                var before: [HistoryRecord] = []
                // A state holds on into the range; a notification before it is over.
                for id in ids where series[id]?.attribute != HistoryRecord.notificationAttribute {
                    let row = try Row.fetchOne(
                        db,
                        sql: "SELECT series, at, kind, value FROM history WHERE series = ? AND at < ? "
                            + "ORDER BY at DESC, id DESC LIMIT 1",
                        arguments: [id, from])
                    if let row, let record = Self.record(row, series: series) { before.append(record) }
                }
                return HistoryPage(records: Array(records), before: before, truncated: truncated)
            }
        } catch {
            throw .historyReadFailed(path: path, reason: "\(error)")
        }
    }

    private static func record(_ row: Row, series: [Int64: HistorySeries]) -> HistoryRecord? {
        guard let key = series[row[0]] else { return nil }
        return HistoryRecord(
            device: key.device, address: key.address, attribute: key.attribute,
            at: date(milliseconds: row[1]), change: HistoryValueCoding.decode(kind: row[2], value: row[3]))
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
