public import FoundationEssentials
import GRDB
public import TraitBridgeModel

/// The registry on disk (SQLite through GRDB): every device the bridge has seen, its name, room
/// and description, so ids, names and rooms survive restarts and known devices are published at
/// start before their sources speak.
///
/// Every write is one transaction; SQLite's journal makes an acknowledged write survive `kill -9`.
public final class DeviceStore: Sendable {
    let queue: DatabaseQueue
    /// The database file (`<directory>/traitbridge.sqlite`).
    public let path: String

    /// A stored device: the record and when it was first and last seen.
    public struct Row: Sendable, Hashable {
        public var record: DeviceRecord
        public var firstSeen: Date
        public var lastSeen: Date
        /// Parts of the stored record this version could not read back (left out of `record`).
        public var problems: [String]

        public var id: DeviceID { record.id }

        public init(record: DeviceRecord, firstSeen: Date, lastSeen: Date, problems: [String] = []) {
            self.record = record
            self.firstSeen = firstSeen
            self.lastSeen = lastSeen
            self.problems = problems
        }
    }

    /// Opens (and migrates) `<directory>/traitbridge.sqlite`, creating the folder when needed.
    public init(directory: String) throws(StoreError) {
        path = directory + "/traitbridge.sqlite"
        queue = try Self.openMigrated(path: path, configuration: Configuration(), migrator: Self.migrator)
    }

    /// Opens an SQLite file of ours in WAL mode (its folder made when needed) and runs its migrations,
    /// refusing a file a newer TraitBridge wrote. One process opens and migrates at a time: a new
    /// file's switch to WAL takes an exclusive lock SQLite does not wait for, and two processes would
    /// both run the migrations.
    static func openMigrated(path: String, configuration base: Configuration, migrator: DatabaseMigrator)
        throws(StoreError) -> DatabaseQueue
    {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw Self.openingError(path: path, error)
        }
        let lock = try MigrationLock(path: path + ".lock")
        defer { withExtendedLifetime(lock) {} }
        let queue: DatabaseQueue
        do {
            var configuration = base
            configuration.journalMode = .wal
            // Wait for a lock held by another connection (a previous bridge still closing, which
            // checkpoints the WAL) instead of failing at once.
            configuration.busyMode = .timeout(5)
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw Self.openingError(path: path, error)
        }
        do {
            let unknown = try queue.read { db in
                try migrator.appliedIdentifiers(db).subtracting(migrator.migrations)
            }
            guard unknown.isEmpty else { throw StoreError.newerSchema(path: path, migrations: unknown.sorted()) }
            try migrator.migrate(queue)
        } catch let error as StoreError {
            throw error
        } catch {
            throw Self.openingError(path: path, error)
        }
        return queue
    }

    /// A file that is not SQLite (or is damaged) says so and what to do; anything else, as it is.
    static func openingError(path: String, _ error: any Error) -> StoreError {
        if let database = error as? DatabaseError,
            [ResultCode.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(database.resultCode.primaryResultCode)
        {
            return .damaged(path: path, reason: database.message ?? "\(database.resultCode)")
        }
        return .cannotOpen(path: path, reason: "\(error)")
    }

    /// Migrations are named and never edited; a change is a new migration.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: devices") { db in
            try db.create(table: "device") { table in
                table.primaryKey("id", .text)
                table.column("name", .text).notNull()
                table.column("roomName", .text)
                table.column("sourceFamily", .text).notNull()
                table.column("sourceInstance", .text).notNull()
                table.column("nativeID", .text).notNull()
                table.column("description", .blob).notNull()
                table.column("firstSeen", .datetime).notNull()
                table.column("lastSeen", .datetime).notNull()
            }
        }
        migrator.registerMigration("v2: cloud devices") { db in
            try db.create(table: "cloudDevice") { table in
                table.primaryKey("c2cID", .text)
                table.column("entry", .blob).notNull()
                table.column("importedAt", .datetime).notNull()
            }
        }
        migrator.registerMigration("v3: user placements") { db in
            try db.create(table: "placement") { table in
                table.primaryKey("id", .text)
                table.column("name", .text)
                table.column("roomName", .text)
            }
        }
        migrator.registerMigration("v4: linking tokens") { db in
            try db.create(table: "linkingToken") { table in
                table.primaryKey("hash", .text)
                table.column("kind", .text).notNull()
                table.column("agentUserID", .text).notNull()
                table.column("clientID", .text).notNull()
                table.column("createdAt", .double).notNull()  // seconds since 1970
                table.column("expiresAt", .double)
            }
            try db.create(index: "linkingTokenByUser", on: "linkingToken", columns: ["agentUserID"])
        }
        migrator.registerMigration("v5: cloud links") { db in
            try db.create(table: "cloudLink") { table in
                table.primaryKey("name", .text)
                table.column("settings", .blob).notNull()  // JSON, with the link's tokens
                table.column("updatedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v6: home layout") { db in
            try db.create(table: "homeLayout") { table in
                table.primaryKey("id", .integer)  // one row: the whole layout, written in one piece
                table.column("layout", .blob).notNull()  // JSON of the homes (``HomeLayoutCodec``)
                table.column("updatedAt", .double).notNull()
            }
            try db.alter(table: "placement") { table in table.add(column: "homeID", .text) }
        }
        migrator.registerMigration("v7: automations") { db in
            try db.create(table: "automation") { table in
                table.primaryKey("id", .text)
                table.column("definition", .blob).notNull()  // JSON of the definition
            }
            try db.create(table: "automationHistory") { table in
                table.primaryKey("id", .text)
                table.column("history", .blob).notNull()  // JSON list of the last runs
            }
            try db.create(table: "bridgeClock") { table in
                table.primaryKey("id", .integer)
                table.column("at", .double).notNull()  // when the bridge last ran (missed timer fires)
            }
        }
        migrator.registerMigration("v8: typed device records") { db in
            try createDeviceParts(db)
            try createCloudOrigins(db)
            try LegacyDescription.convert(db)
        }
        migrator.registerMigration("v9: homekit accessories") { db in
            try db.create(table: "homeKitAccessory") { table in
                table.primaryKey("name", .text)
                table.column("identity", .blob).notNull()  // JSON: long-term key, pairings, ids (owner-only file)
                table.column("updatedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v10: matter bridge") { db in try createMatterTables(db) }
        migrator.registerMigration("v11: matter resumptions and basic information") { db in
            try createMatterSessionTables(db)
        }
        migrator.registerMigration("v12: matter endpoints") { db in try createMatterEndpointTable(db) }
        migrator.registerMigration("v13: matter bridges") { db in try migrateToMatterBridges(db) }
        migrator.registerMigration("v14: matter acl targets") { db in
            // An administrator writes the ACL now: an entry may cover some clusters, endpoints or device types.
            try db.alter(table: "matterAccessControl") { table in table.add(column: "targets", .blob) }
        }
        return migrator
    }

    /// Writes a batch in one transaction: all of it is on disk, or none of it.
    public func commit(_ batch: Batch, at now: Date) throws(StoreError) {
        guard !batch.isEmpty else { return }
        do {
            try queue.write { db in
                for id in batch.removals {
                    try Self.delete(id, in: db)
                }
                let seen = now.databaseValue
                for record in batch.upserts { try Self.upsert(record, seen: seen, in: db) }
                for (origin, device) in batch.cloudDevices {
                    try Self.upsert(device, seen: seen, in: db)
                    try Self.upsert(origin, importedAt: now, in: db)
                }
                if batch.dropsLegacyCloudEntries { try db.execute(sql: "DELETE FROM cloudDevice") }
                for (id, placement) in batch.placements {
                    if placement.isEmpty {
                        try db.cachedStatement(sql: "DELETE FROM placement WHERE id = ?").execute(arguments: [
                            id.rawValue
                        ])
                    } else {
                        try db.cachedStatement(
                            sql: "INSERT INTO placement (id, name, roomName, homeID) VALUES (?, ?, ?, ?) "
                                + "ON CONFLICT(id) DO UPDATE SET name = excluded.name, roomName = excluded.roomName, "
                                + "homeID = excluded.homeID"
                        ).execute(arguments: [id.rawValue, placement.name, placement.room, placement.home])
                    }
                }
                for (id, definition) in batch.automations {
                    if let definition {
                        try db.execute(
                            sql: "INSERT INTO automation (id, definition) VALUES (?, ?) "
                                + "ON CONFLICT(id) DO UPDATE SET definition = excluded.definition",
                            arguments: [id, Data(definition)])
                    } else {
                        try db.execute(sql: "DELETE FROM automation WHERE id = ?", arguments: [id])
                        try db.execute(sql: "DELETE FROM automationHistory WHERE id = ?", arguments: [id])
                    }
                }
                for (id, history) in batch.histories {
                    try db.execute(
                        sql: "INSERT INTO automationHistory (id, history) VALUES (?, ?) "
                            + "ON CONFLICT(id) DO UPDATE SET history = excluded.history",
                        arguments: [id, Data(history)])
                }
                if let clock = batch.clock {
                    try db.execute(
                        sql:
                            "INSERT INTO bridgeClock (id, at) VALUES (1, ?) "
                            + "ON CONFLICT(id) DO UPDATE SET at = excluded.at",
                        arguments: [clock.timeIntervalSince1970])
                }
                if let layout = batch.layout {
                    try db.execute(
                        sql: "INSERT INTO homeLayout (id, layout, updatedAt) VALUES (1, ?, ?) "
                            + "ON CONFLICT(id) DO UPDATE SET layout = excluded.layout, updatedAt = excluded.updatedAt",
                        arguments: [Data(layout), now.timeIntervalSince1970])
                }
            }
        } catch {
            throw .writeFailed("\(error)")
        }
    }

    /// Saves what the user decided about devices, in one transaction. Placements outlive the
    /// device's record: a device removed and paired again under the same id gets its name and room back.
    public func savePlacements(_ placements: [(id: DeviceID, placement: UserPlacement)]) throws(StoreError) {
        var batch = Batch()
        batch.placements = placements
        try commit(batch, at: Date())
    }

    /// Every kept placement, by device id; rows with an id that is no longer valid are skipped.
    public func placements() throws(StoreError) -> [DeviceID: UserPlacement] {
        do {
            return try queue.read { db in
                var result: [DeviceID: UserPlacement] = [:]
                for row in try GRDB.Row.fetchAll(db, sql: "SELECT id, name, roomName, homeID FROM placement") {
                    guard let id = try? DeviceID(row["id"] as String) else { continue }
                    result[id] = UserPlacement(name: row["name"], room: row["roomName"], home: row["homeID"])
                }
                return result
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// Inserts or updates a device; `firstSeen` is kept from the first insert.
    public func upsert(_ record: DeviceRecord, seen: Date) throws(StoreError) {
        try apply(upserts: [record], removals: [], seen: seen)
    }

    /// Several changes in one transaction (a `bridge/devices` with 100 devices is one commit).
    public func apply(upserts: [DeviceRecord], removals: [DeviceID], seen: Date) throws(StoreError) {
        var batch = Batch()
        batch.upserts = upserts
        batch.removals = removals
        try commit(batch, at: seen)
    }

    /// Records when devices were last heard from (batched by the caller).
    public func touch(_ ids: [DeviceID], seen: Date) throws(StoreError) {
        guard !ids.isEmpty else { return }
        do {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: "UPDATE device SET lastSeen = ? WHERE id = ?")
                let seen = seen.databaseValue
                for id in ids { try statement.execute(arguments: [seen, id.rawValue]) }
            }
        } catch {
            throw .writeFailed("\(error)")
        }
    }

    public func remove(_ id: DeviceID) throws(StoreError) {
        try apply(upserts: [], removals: [id], seen: Date())
    }
}

/// Why the registry could not be read or written; the text says where.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    /// Not a SQLite file, or a damaged one.
    case damaged(path: String, reason: String)
    /// Written by a newer TraitBridge (migrations this version does not know).
    case newerSchema(path: String, migrations: [String])
    case writeFailed(String)
    case readFailed(String)
    /// The history's file (`history.sqlite`) could not be written or read: safe to lose, unlike the registry.
    case historyWriteFailed(path: String, reason: String)
    case historyReadFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open \(Self.what(path)) \(path): \(reason); check --data-dir and its permissions"
        case .damaged(let path, let reason) where Self.isHistory(path):
            "the history \(path) is not a readable TraitBridge history (\(reason)); move it away "
                + "(mv \(path) \(path).broken) and start again: the changes kept so far are lost, the registry is not"
        case .damaged(let path, let reason):
            "the registry \(path) is not a readable TraitBridge registry (\(reason)); move it away "
                + "(mv \(path) \(path).broken) and start again: devices come back from their sources, but names and "
                + "rooms set with rename/move are lost"
        case .newerSchema(let path, let migrations):
            "\(Self.what(path)) \(path) was written by a newer TraitBridge (it has "
                + "\(migrations.joined(separator: ", ")), which this version does not know); run that version, or move "
                + "the file away (mv \(path) \(path).newer) to start afresh"
        case .writeFailed(let reason): "registry write failed: \(reason)"
        case .readFailed(let reason): "registry read failed: \(reason)"
        case .historyWriteFailed(let path, let reason):
            "history write failed (\(path)): \(reason); these changes are not kept, the bridge goes on: check the "
                + "disk's free space and the file's permissions"
        case .historyReadFailed(let path, let reason): "history read failed (\(path)): \(reason)"
        }
    }

    private static func isHistory(_ path: String) -> Bool { path.hasSuffix("history.sqlite") }
    private static func what(_ path: String) -> String { isHistory(path) ? "the history" : "the registry" }
}
