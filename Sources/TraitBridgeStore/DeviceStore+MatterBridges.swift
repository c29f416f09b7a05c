public import FoundationEssentials
import GRDB

/// Several Matter bridges (migration "v13: matter bridges"): serve splits the devices over up to 16 Matter
/// bridge nodes, each with its own identity, fabrics, ACL, resumption records, Basic Information and endpoint
/// numbers, kept under its bridge number. A registry of one bridge (v10…v12) holds bridge 1.
extension DeviceStore {
    /// The Matter bridge numbers: 1…16.
    public static let matterBridgeRange: ClosedRange<Int> = 1...16

    /// The bridges that have a state (a matterNode row), ascending. A row whose number is out of
    /// ``matterBridgeRange`` (a damaged or edited registry) is an error that names it.
    public func matterBridgeNumbers() throws(StoreError) -> [Int] {
        do {
            return try queue.read { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT id FROM matterNode ORDER BY id").map { row in
                    let bridge: Int = try Self.number(row, "id")
                    guard Self.matterBridgeRange.contains(bridge) else {
                        throw Unreadable(
                            "matterNode has a row with id \(bridge), not a bridge number "
                                + "(\(Self.matterBridgeRangeText)); delete that row of table matterNode")
                    }
                    return bridge
                }
            }
        } catch {
            throw .readFailed("the Matter bridges: \(error)")
        }
    }

    /// `matter reset` of bridge `bridge` (``matterBridgeRange``): keeps `record` as
    /// ``saveMatterBridge(_:bridge:now:)`` does and forgets that bridge's endpoint assignments and which
    /// devices it served (``matterBridgeDevices()``), in one transaction: the controllers that knew them are
    /// gone; its numbers start at 2 again. The other bridges' state and endpoints stay.
    public func resetMatterBridge(_ record: MatterBridgeRecord, bridge: Int = 1, now: Date) throws(StoreError) {
        try replaceMatterBridge(record, bridge: bridge, now: now) { db in
            try db.execute(sql: "DELETE FROM matterEndpoint WHERE bridge = ?", arguments: [bridge])
            try db.execute(sql: "DELETE FROM matterBridgeDevice WHERE bridge = ?", arguments: [bridge])
        }
    }

    /// Replaces bridge `bridge`'s state with `record`'s and does `also` in the same transaction; then the
    /// registry's files are made its owner's only (they hold operational keys and the passcode).
    func replaceMatterBridge(
        _ record: MatterBridgeRecord, bridge: Int, now: Date, also: (Database) throws -> Void = { _ in }
    ) throws(StoreError) {
        guard Self.matterBridgeRange.contains(bridge) else { throw .writeFailed(Self.notAMatterBridge(bridge)) }
        do {
            try queue.write { db in
                try Self.writeMatterBridge(record, bridge: bridge, now: now, db)
                try also(db)
            }
        } catch {
            throw .writeFailed("\(Self.matterBridgeState(bridge)): \(error)")
        }
        restrictToOwner()
    }

    /// Which bridge serves each device, by device id, as serve last split them: a restart puts each device
    /// back on its bridge. A row whose bridge is out of ``matterBridgeRange`` is an error that names the device.
    public func matterBridgeDevices() throws(StoreError) -> [String: Int] {
        do {
            return try queue.read { db in
                var devices: [String: Int] = [:]
                for row in try GRDB.Row.fetchAll(db, sql: "SELECT device, bridge FROM matterBridgeDevice") {
                    guard let device = try? Self.value(row, "device", as: String.self) else {
                        throw Unreadable("a row's device is not text; \(Self.matterBridgeDeviceRemedy)")
                    }
                    do {
                        let bridge: Int = try Self.number(row, "bridge")
                        guard Self.matterBridgeRange.contains(bridge) else {
                            throw Unreadable("bridge is \(bridge), not in \(Self.matterBridgeRangeText)")
                        }
                        devices[device] = bridge
                    } catch {
                        throw Unreadable("'\(device)': \(error); \(Self.matterBridgeDeviceRemedy)")
                    }
                }
                return devices
            }
        } catch {
            throw .readFailed("the Matter bridges' devices: \(error)")
        }
    }

    /// Changes which bridge serves devices, in one transaction: a number (``matterBridgeRange``) sets the
    /// device's bridge, nil forgets it. A number out of the range refuses the whole change, naming the device.
    public func updateMatterBridgeDevices(_ changes: [String: Int?]) throws(StoreError) {
        guard !changes.isEmpty else { return }
        let sorted = changes.sorted { $0.key < $1.key }
        for (device, bridge) in sorted {
            if let bridge, !Self.matterBridgeRange.contains(bridge) {
                throw .writeFailed("the Matter bridges' devices: '\(device)': \(Self.notAMatterBridge(bridge))")
            }
        }
        do {
            try queue.write { db in
                for (device, bridge) in sorted {
                    if let bridge {
                        try db.execute(
                            sql: "INSERT INTO matterBridgeDevice (device, bridge) VALUES (?, ?) "
                                + "ON CONFLICT(device) DO UPDATE SET bridge = excluded.bridge",
                            arguments: [device, bridge])
                    } else {
                        try db.execute(sql: "DELETE FROM matterBridgeDevice WHERE device = ?", arguments: [device])
                    }
                }
            }
        } catch {
            throw .writeFailed("the Matter bridges' devices: \(error)")
        }
    }

    /// Migration "v13: matter bridges". matterNode and matterBasicInformation keep their integer id, which was
    /// always 1: it is now the bridge number. matterFabric, matterAccessControl, matterResumption and
    /// matterEndpoint are made again with a `bridge` column first (their rows copied as bridge 1; every other
    /// column as it was): their keys are per bridge (fabric index, position, resumption ID, endpoint key and
    /// number), a UniqueID stays unique over all bridges. matterBridgeDevice is new: which bridge serves each
    /// device.
    static func migrateToMatterBridges(_ db: Database) throws {
        try rebuild("matterFabric", db) { table in
            table.column("bridge", .integer).notNull()
            table.column("fabricIndex", .integer).notNull()
            table.column("rootCertificate", .blob).notNull()  // Matter TLV
            table.column("intermediateCertificate", .blob)
            table.column("nodeCertificate", .blob).notNull()
            table.column("ipkEpochKey", .blob).notNull()
            table.column("operationalKey", .blob).notNull()  // raw P-256 private key
            table.column("vendorID", .integer).notNull()
            table.column("label", .text).notNull()
            table.primaryKey(["bridge", "fabricIndex"])
        }
        try rebuild("matterAccessControl", db) { table in
            table.column("bridge", .integer).notNull()
            table.column("position", .integer).notNull()
            table.column("fabricIndex", .integer).notNull()
            table.column("privilege", .integer).notNull()
            table.column("authMode", .integer).notNull()
            table.column("subjects", .blob)  // 8 bytes big-endian each; NULL: any subject
            table.primaryKey(["bridge", "position"])
        }
        try rebuild("matterResumption", db) { table in
            table.column("bridge", .integer).notNull()
            table.column("position", .integer).notNull()  // least recently used first
            table.column("resumptionID", .blob).notNull()
            table.column("fabricIndex", .integer).notNull()
            table.column("peerNodeID", .blob).notNull()  // 8 bytes big-endian
            table.column("caseAuthenticatedTags", .blob).notNull()  // 4 bytes big-endian each
            table.column("sharedSecret", .blob).notNull()  // a secret (owner-only file)
            table.primaryKey(["bridge", "position"])
            table.uniqueKey(["bridge", "resumptionID"])
        }
        try rebuild("matterEndpoint", db) { table in
            table.column("bridge", .integer).notNull()
            table.column("key", .text).notNull()  // a device id, or "<device id>/<device type key>" for a part
            table.column("endpoint", .integer).notNull()  // 2…65534, never given twice on a bridge
            table.column("uniqueID", .text).notNull().unique()  // 32 lowercase hex digits, over all bridges
            table.column("assignedAt", .double).notNull()  // seconds since 1970
            table.primaryKey(["bridge", "key"])
            table.uniqueKey(["bridge", "endpoint"])
        }
        try db.create(table: "matterBridgeDevice") { table in
            table.primaryKey("device", .text)  // a device id
            table.column("bridge", .integer).notNull()  // the bridge that serves it (matterBridgeRange)
        }
    }

    /// Makes `name` again as `define` says, its rows copied with bridge 1 (the old table's columns by name).
    private static func rebuild(
        _ name: String, _ db: Database, define: (TableDefinition) throws -> Void
    ) throws {
        let columns = try db.columns(in: name).map { "\"\($0.name)\"" }.joined(separator: ", ")
        try db.create(table: name + "V13", body: define)
        try db.execute(sql: "INSERT INTO \"\(name)V13\" (bridge, \(columns)) SELECT 1, \(columns) FROM \"\(name)\"")
        try db.drop(table: name)
        try db.rename(table: name + "V13", to: name)
    }

    /// "1…16", as errors say it.
    static var matterBridgeRangeText: String { "\(matterBridgeRange.lowerBound)…\(matterBridgeRange.upperBound)" }

    /// The refusal of a bridge number out of ``matterBridgeRange``.
    static func notAMatterBridge(_ bridge: Int) -> String {
        "\(bridge) is not a Matter bridge number (\(matterBridgeRangeText))"
    }

    /// How errors about bridge `bridge`'s state begin.
    static func matterBridgeState(_ bridge: Int) -> String { "Matter bridge \(bridge)'s state" }

    private static let matterBridgeDeviceRemedy =
        "delete that row of table matterBridgeDevice (the device is placed on a bridge again)"
}
