import FoundationEssentials
import GRDB
import TraitBridgeJSON
import TraitBridgeModel

/// Imported cloud devices: their origin (what the SYNC said beyond the model) in `cloudOrigin`,
/// the device itself as a device record. Registries before v8 kept the SYNC entries instead
/// (`cloudDevice`); the bridge imports those once more at its first start and keeps them typed.
extension DeviceStore {
    static func createCloudOrigins(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE cloudOrigin (
                  c2cID TEXT PRIMARY KEY NOT NULL, deviceID TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
                  traits TEXT NOT NULL, attributes TEXT NOT NULL, customData TEXT, defaultNames TEXT NOT NULL,
                  nicknames TEXT NOT NULL, roomHint TEXT, structureHint TEXT, willReportState INTEGER NOT NULL,
                  notificationSupportedByAgent INTEGER, deviceInfo TEXT, traitValues TEXT NOT NULL,
                  importedAt REAL NOT NULL) WITHOUT ROWID
                """)
    }

    /// Inserts or replaces a cloud device's origin (its device is upserted beside it).
    static func upsert(_ origin: CloudOriginRecord, importedAt: Date, in db: Database) throws {
        var writer = try RowWriter(
            db,
            sql: """
                INSERT OR REPLACE INTO cloudOrigin (c2cID, deviceID, name, type, traits, attributes, customData,
                  defaultNames, nicknames, roomHint, structureHint, willReportState, notificationSupportedByAgent,
                  deviceInfo, traitValues, importedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try writer.run { row in
            try row.text(origin.c2cID)
            try row.text(origin.deviceID.rawValue)
            try row.text(origin.name)
            try row.text(origin.type)
            try row.text(listText(origin.traits))
            try row.text(origin.attributes)
            try row.text(origin.customData)
            try row.text(listText(origin.defaultNames))
            try row.text(listText(origin.nicknames))
            try row.text(origin.roomHint)
            try row.text(origin.structureHint)
            try row.bool(origin.willReportState)
            try row.int(origin.notificationSupportedByAgent.map { $0 ? 1 : 0 })
            try row.text(origin.deviceInfo)
            try row.text(origin.traitValues)
            try row.value(importedAt.timeIntervalSince1970.databaseValue)
        }
    }

    /// The origins of every kept cloud device, by C2C id; a row whose device id is no longer valid
    /// is skipped. Their devices are among ``all()``'s rows.
    public func cloudOrigins() throws(StoreError) -> [CloudOriginRecord] {
        do {
            return try queue.read { db in
                var result: [CloudOriginRecord] = []
                let rows = try GRDB.Row.fetchCursor(
                    db,
                    sql: """
                        SELECT c2cID, deviceID, name, type, traits, attributes, customData, defaultNames, nicknames,
                          roomHint, structureHint, willReportState, notificationSupportedByAgent, deviceInfo,
                          traitValues
                        FROM cloudOrigin ORDER BY c2cID
                        """)
                while let row = try rows.next() {
                    guard let deviceID = try? DeviceID(row[1] as String) else { continue }
                    let notification: Int64? = row[12]
                    result.append(
                        CloudOriginRecord(
                            c2cID: columnText(row, 0), deviceID: deviceID, name: columnText(row, 2),
                            type: columnText(row, 3), traits: readList(columnText(row, 4)),
                            attributes: columnText(row, 5), customData: optionalColumnText(row, 6),
                            defaultNames: readList(columnText(row, 7)), nicknames: readList(columnText(row, 8)),
                            roomHint: optionalColumnText(row, 9), structureHint: optionalColumnText(row, 10),
                            willReportState: row[11], notificationSupportedByAgent: notification.map { $0 != 0 },
                            deviceInfo: optionalColumnText(row, 13), traitValues: columnText(row, 14)))
                }
                return result
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// The SYNC entries a registry before v8 kept, by C2C id (empty once the bridge has imported
    /// them into typed records).
    public func legacyCloudEntries() throws(StoreError) -> [(c2cID: String, entry: [UInt8])] {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT c2cID, entry FROM cloudDevice ORDER BY c2cID").map { row in
                    let entry: Data = row["entry"]
                    return (row["c2cID"] as String, [UInt8](entry))
                }
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }
}

/// A list of strings as a JSON array (`[]` for none).
func listText(_ items: [String]) -> String {
    guard !items.isEmpty else { return "[]" }
    var writer = JSONStreamWriter(capacity: 16 * items.count)
    writer.beginArray()
    for item in items { writer.string(item) }
    writer.endArray()
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// ``listText(_:)`` read back; anything else reads as an empty list.
func readList(_ text: String) -> [String] {
    (try? JSONDocument.parse(Array(text.utf8), maxDepth: 2))?.root.elements.compactMap(\.string) ?? []
}
