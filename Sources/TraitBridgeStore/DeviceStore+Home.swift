public import FoundationEssentials
import GRDB

/// The home above the devices in the registry: the layout document (homes, rooms, zones, groups,
/// scenes), automation definitions and histories, and when the bridge last ran. Written through
/// ``DeviceStore/commit(_:at:)`` with the rest of an event's changes.
extension DeviceStore {
    /// The kept home layout document, or `nil` before the first layout change.
    public func layout() throws(StoreError) -> [UInt8]? {
        do {
            return try queue.read { db in
                let data = try Data.fetchOne(db, sql: "SELECT layout FROM homeLayout WHERE id = 1")
                return data.map { [UInt8]($0) }
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    /// The kept automation definitions and histories, and when the bridge last ran.
    public func automations() throws(StoreError) -> (
        definitions: [(id: String, definition: [UInt8])], histories: [String: [UInt8]], clock: Date?
    ) {
        do {
            return try queue.read { db in
                let definitions = try GRDB.Row.fetchAll(db, sql: "SELECT id, definition FROM automation ORDER BY id")
                    .map {
                        row in (row["id"] as String, [UInt8](row["definition"] as Data))
                    }
                var histories: [String: [UInt8]] = [:]
                for row in try GRDB.Row.fetchAll(db, sql: "SELECT id, history FROM automationHistory") {
                    histories[row["id"] as String] = [UInt8](row["history"] as Data)
                }
                let clock = try Double.fetchOne(db, sql: "SELECT at FROM bridgeClock WHERE id = 1")
                return (definitions, histories, clock.map { Date(timeIntervalSince1970: $0) })
            }
        } catch {
            throw .readFailed("\(error)")
        }
    }
}
