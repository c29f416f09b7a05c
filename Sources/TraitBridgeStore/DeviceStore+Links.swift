public import FoundationEssentials
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

extension DeviceStore {
    /// The cloud links kept in the registry (`traitbridge cloud link add`), by name: each one's
    /// settings as JSON, tokens included (the registry's files are readable by their owner only).
    public func cloudLinks() throws(StoreError) -> [(name: String, settings: [UInt8])] {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT name, settings FROM cloudLink ORDER BY name").map { row in
                    let settings: Data = row["settings"]
                    return (row["name"] as String, [UInt8](settings))
                }
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// Adds or replaces a link (a refreshed OAuth token replaces the settings it was in).
    public func saveCloudLink(name: String, settings: [UInt8], now: Date) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO cloudLink (name, settings, updatedAt) VALUES (?, ?, ?)",
                    arguments: [name, Data(settings), now.timeIntervalSince1970])
            }
        } catch {
            throw .writeFailed("\(error)")
        }
        restrictToOwner()
    }

    /// Removes a link; whether there was one.
    public func removeCloudLink(name: String) throws(StoreError) -> Bool {
        do {
            return try queue.write { db in
                try db.execute(sql: "DELETE FROM cloudLink WHERE name = ?", arguments: [name])
                return db.changesCount > 0
            }
        } catch {
            throw .writeFailed("\(error)")
        }
    }

    /// The registry holds secrets now: its files are made readable by their owner only.
    func restrictToOwner() {
        for suffix in ["", "-wal", "-shm"] { _ = chmod(path + suffix, 0o600) }
    }
}
