public import FoundationEssentials
import GRDB

extension DeviceStore {
    /// The HomeKit bridge `name`'s identity as JSON (its long-term secret key, its controllers'
    /// pairings, the ids it gave); nil before its first start.
    public func homeKitIdentity(name: String) throws(StoreError) -> [UInt8]? {
        do {
            return try queue.read { db in
                let data = try Data.fetchOne(
                    db, sql: "SELECT identity FROM homeKitAccessory WHERE name = ?",
                    arguments: [name])
                return data.map { [UInt8]($0) }
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// Keeps the bridge's identity (the registry's files are its owner's only: it holds a secret key).
    public func saveHomeKitIdentity(name: String, identity: [UInt8], now: Date) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO homeKitAccessory (name, identity, updatedAt) VALUES (?, ?, ?)",
                    arguments: [name, Data(identity), now.timeIntervalSince1970])
            }
        } catch {
            throw .writeFailed("\(error)")
        }
        restrictToOwner()
    }

    /// Forgets the bridge `name`'s identity (`homekit reset --new`: its accessories go to the others).
    public func removeHomeKitIdentity(name: String) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM homeKitAccessory WHERE name = ?", arguments: [name])
            }
        } catch {
            throw .writeFailed("\(error)")
        }
    }
}
