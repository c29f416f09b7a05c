public import FoundationEssentials
import GRDB

/// The Matter bridge's state as the registry keeps it: its setup identity (the passcode is kept,
/// as HomeKit's setup code is, so `matter show` can print the codes; the PASE verifier is derived
/// again from it and the salt) and what commissioning left (each fabric's certificates, IPK and
/// operational key, and the ACL). It exists as plain numbers and bytes so the registry needs no
/// Matter module; the CLI turns it into the device's types and checks it there.
public struct MatterBridgeRecord: Sendable, Hashable {
    /// The onboarding identity.
    public struct Setup: Sendable, Hashable {
        public var passcode: UInt32
        public var discriminator: UInt16
        public var salt: [UInt8]
        public var iterations: Int

        public init(passcode: UInt32, discriminator: UInt16, salt: [UInt8], iterations: Int) {
            self.passcode = passcode
            self.discriminator = discriminator
            self.salt = salt
            self.iterations = iterations
        }
    }

    /// One committed fabric: certificates in Matter TLV, the IPK epoch key, the raw P-256 key.
    public struct Fabric: Sendable, Hashable {
        public var index: UInt8
        public var rootCertificate: [UInt8]
        public var intermediateCertificate: [UInt8]?
        public var nodeCertificate: [UInt8]
        public var ipkEpochKey: [UInt8]
        public var operationalKey: [UInt8]
        public var vendorID: UInt16
        public var label: String

        public init(
            index: UInt8, rootCertificate: [UInt8], intermediateCertificate: [UInt8]?, nodeCertificate: [UInt8],
            ipkEpochKey: [UInt8], operationalKey: [UInt8], vendorID: UInt16, label: String
        ) {
            self.index = index
            self.rootCertificate = rootCertificate
            self.intermediateCertificate = intermediateCertificate
            self.nodeCertificate = nodeCertificate
            self.ipkEpochKey = ipkEpochKey
            self.operationalKey = operationalKey
            self.vendorID = vendorID
            self.label = label
        }
    }

    /// One ACL entry; `subjects` nil: any subject.
    public struct AccessControlEntry: Sendable, Hashable {
        public var fabricIndex: UInt8
        public var privilege: UInt8
        public var authMode: UInt8
        public var subjects: [UInt64]?
        /// Each target's cluster, endpoint and device type (nil: any); nil: the entry covers everything.
        public var targets: [Target]?

        public init(
            fabricIndex: UInt8, privilege: UInt8, authMode: UInt8, subjects: [UInt64]?, targets: [Target]? = nil
        ) {
            self.fabricIndex = fabricIndex
            self.privilege = privilege
            self.authMode = authMode
            self.subjects = subjects
            self.targets = targets
        }
    }

    /// What an ACL entry covers: a cluster, an endpoint, a device type, or a cluster on one of them.
    public struct Target: Sendable, Hashable {
        public var cluster: UInt32?
        public var endpoint: UInt16?
        public var deviceType: UInt32?

        public init(cluster: UInt32?, endpoint: UInt16?, deviceType: UInt32?) {
            self.cluster = cluster
            self.endpoint = endpoint
            self.deviceType = deviceType
        }
    }

    public var setup: Setup
    /// RegulatoryLocationTypeEnum (2: indoor and outdoor) and the country code ("XX": unknown).
    public var regulatoryConfig: UInt8
    public var countryCode: String
    public var fabrics: [Fabric]
    public var accessControl: [AccessControlEntry]
    /// The CASE resumption records of the fabrics, least recently used first (at most
    /// ``resumptionLimit`` are kept: the most recent).
    public var resumptions: [Resumption]
    /// The ids and writable labels Basic Information served; nil before a start that recorded them.
    public var basicInformation: BasicInformation?

    public init(
        setup: Setup, regulatoryConfig: UInt8 = 2, countryCode: String = "XX", fabrics: [Fabric] = [],
        accessControl: [AccessControlEntry] = [], resumptions: [Resumption] = [],
        basicInformation: BasicInformation? = nil
    ) {
        self.setup = setup
        self.regulatoryConfig = regulatoryConfig
        self.countryCode = countryCode
        self.fabrics = fabrics
        self.accessControl = accessControl
        self.resumptions = resumptions
        self.basicInformation = basicInformation
    }
}

extension DeviceStore {
    /// The state of Matter bridge `bridge` (``matterBridgeRange``); nil before its first start (`matter reset`
    /// always writes one). Only that bridge's rows are read; a number out of the range is an error naming it.
    public func matterBridge(_ bridge: Int = 1) throws(StoreError) -> MatterBridgeRecord? {
        let what = Self.matterBridgeState(bridge)
        guard Self.matterBridgeRange.contains(bridge) else { throw .readFailed(Self.notAMatterBridge(bridge)) }
        do {
            return try queue.read { db -> MatterBridgeRecord? in
                guard
                    let node = try GRDB.Row.fetchOne(
                        db, sql: "SELECT * FROM matterNode WHERE id = ?", arguments: [bridge])
                else { return nil }
                let setup = MatterBridgeRecord.Setup(
                    passcode: try Self.number(node, "passcode"), discriminator: try Self.number(node, "discriminator"),
                    salt: try Self.bytes(node, "salt"), iterations: try Self.number(node, "iterations"))
                var record = MatterBridgeRecord(
                    setup: setup, regulatoryConfig: try Self.number(node, "regulatoryConfig"),
                    countryCode: try Self.value(node, "countryCode", as: String.self))
                let fabrics = try GRDB.Row.fetchAll(
                    db, sql: "SELECT * FROM matterFabric WHERE bridge = ? ORDER BY fabricIndex", arguments: [bridge])
                for row in fabrics {
                    record.fabrics.append(
                        MatterBridgeRecord.Fabric(
                            index: try Self.number(row, "fabricIndex"),
                            rootCertificate: try Self.bytes(row, "rootCertificate"),
                            intermediateCertificate: try Self.value(row, "intermediateCertificate", as: Data?.self)
                                .map { [UInt8]($0) },
                            nodeCertificate: try Self.bytes(row, "nodeCertificate"),
                            ipkEpochKey: try Self.bytes(row, "ipkEpochKey"),
                            operationalKey: try Self.bytes(row, "operationalKey"),
                            vendorID: try Self.number(row, "vendorID"),
                            label: try Self.value(row, "label", as: String.self)))
                }
                let entries = try GRDB.Row.fetchAll(
                    db, sql: "SELECT * FROM matterAccessControl WHERE bridge = ? ORDER BY position", arguments: [bridge]
                )
                for row in entries {
                    let subjects = try Self.value(row, "subjects", as: Data?.self).map {
                        try Self.subjects([UInt8]($0))
                    }
                    let targets = try Self.value(row, "targets", as: Data?.self).map {
                        try Self.targets([UInt8]($0))
                    }
                    record.accessControl.append(
                        MatterBridgeRecord.AccessControlEntry(
                            fabricIndex: try Self.number(row, "fabricIndex"),
                            privilege: try Self.number(row, "privilege"),
                            authMode: try Self.number(row, "authMode"), subjects: subjects, targets: targets))
                }
                record.resumptions = try Self.matterResumptions(bridge: bridge, db)
                record.basicInformation = try Self.matterBasicInformation(bridge: bridge, db)
                return record
            }
        } catch {
            throw .readFailed("\(what): \(error)")
        }
    }

    /// Keeps the state of Matter bridge `bridge` (``matterBridgeRange``), all of it in one transaction: its
    /// node row, fabrics, ACL, resumption records and Basic Information are replaced with `record`'s; the
    /// other bridges' rows and every endpoint assignment stay. The registry's files are its owner's only: it
    /// holds operational keys and the passcode.
    public func saveMatterBridge(_ record: MatterBridgeRecord, bridge: Int = 1, now: Date) throws(StoreError) {
        try replaceMatterBridge(record, bridge: bridge, now: now)
    }

    /// Replaces bridge `bridge`'s state with `record`'s, inside the caller's transaction.
    static func writeMatterBridge(_ record: MatterBridgeRecord, bridge: Int, now: Date, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO matterNode (id, passcode, discriminator, salt, iterations,
                regulatoryConfig, countryCode, updatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                bridge, Int64(record.setup.passcode), Int64(record.setup.discriminator), Data(record.setup.salt),
                Int64(record.setup.iterations), Int64(record.regulatoryConfig), record.countryCode,
                now.timeIntervalSince1970,
            ])
        try db.execute(sql: "DELETE FROM matterFabric WHERE bridge = ?", arguments: [bridge])
        for fabric in record.fabrics {
            try db.execute(
                sql: """
                    INSERT INTO matterFabric (bridge, fabricIndex, rootCertificate, intermediateCertificate,
                    nodeCertificate, ipkEpochKey, operationalKey, vendorID, label)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    bridge, Int64(fabric.index), Data(fabric.rootCertificate),
                    fabric.intermediateCertificate.map { Data($0) },
                    Data(fabric.nodeCertificate), Data(fabric.ipkEpochKey), Data(fabric.operationalKey),
                    Int64(fabric.vendorID), fabric.label,
                ])
        }
        try db.execute(sql: "DELETE FROM matterAccessControl WHERE bridge = ?", arguments: [bridge])
        for (position, entry) in record.accessControl.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO matterAccessControl (bridge, position, fabricIndex, privilege, authMode, subjects,
                    targets) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    bridge, position, Int64(entry.fabricIndex), Int64(entry.privilege), Int64(entry.authMode),
                    entry.subjects.map { Data($0.flatMap(Self.bigEndian)) },
                    entry.targets.map { Data($0.flatMap(Self.targetBytes)) },
                ])
        }
        try Self.saveMatterSessions(record, bridge: bridge, db)
    }

    /// The tables of the Matter bridge (migration "v10: matter bridge"); v13 gives matterFabric and
    /// matterAccessControl a bridge column (``migrateToMatterBridges(_:)``).
    static func createMatterTables(_ db: Database) throws {
        try db.create(table: "matterNode") { table in
            // The bridge number (``matterBridgeRange``, from v13; v10…v12 kept one row, id 1): its setup identity
            // and regulatory config.
            table.primaryKey("id", .integer)
            table.column("passcode", .integer).notNull()  // kept for `matter show` (owner-only file)
            table.column("discriminator", .integer).notNull()
            table.column("salt", .blob).notNull()
            table.column("iterations", .integer).notNull()
            table.column("regulatoryConfig", .integer).notNull()
            table.column("countryCode", .text).notNull()
            table.column("updatedAt", .double).notNull()
        }
        try db.create(table: "matterFabric") { table in
            table.primaryKey("fabricIndex", .integer)
            table.column("rootCertificate", .blob).notNull()  // Matter TLV
            table.column("intermediateCertificate", .blob)
            table.column("nodeCertificate", .blob).notNull()
            table.column("ipkEpochKey", .blob).notNull()
            table.column("operationalKey", .blob).notNull()  // raw P-256 private key
            table.column("vendorID", .integer).notNull()
            table.column("label", .text).notNull()
        }
        try db.create(table: "matterAccessControl") { table in
            table.primaryKey("position", .integer)
            table.column("fabricIndex", .integer).notNull()
            table.column("privilege", .integer).notNull()
            table.column("authMode", .integer).notNull()
            table.column("subjects", .blob)  // 8 bytes big-endian each; NULL: any subject
        }
    }

    /// A stored integer as `Value`, refused (never trapped on) when it is not one or does not fit: a
    /// damaged or edited registry.
    static func number<Value: FixedWidthInteger>(_ row: GRDB.Row, _ column: String) throws -> Value {
        let stored = try value(row, column, as: Int64?.self)
        guard let stored, let value = Value(exactly: stored) else {
            throw Unreadable("\(column) is \(stored.map(String.init) ?? "missing"), not a \(Value.self)")
        }
        return value
    }

    /// The column's value; what GRDB says of one it cannot decode is not repeated (it shows the row).
    static func value<Value: DatabaseValueConvertible>(
        _ row: GRDB.Row, _ column: String, as type: Value.Type
    ) throws -> Value {
        do { return try row.decode(type, forColumn: column) } catch {
            throw Unreadable("\(column) holds a value of another type")
        }
    }

    static func bytes(_ row: GRDB.Row, _ column: String) throws -> [UInt8] {
        [UInt8](try value(row, column, as: Data.self))
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func subjects(_ bytes: [UInt8]) throws -> [UInt64] {
        guard bytes.count % 8 == 0 else { throw Unreadable("an ACL entry's subjects are not 8-byte ids") }
        return stride(from: 0, to: bytes.count, by: 8).map { start in
            bytes[start..<start + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }

    /// A target as 11 bytes: which fields it has (bit 0 cluster, 1 endpoint, 2 device type), then the
    /// cluster (4), the endpoint (2) and the device type (4), big-endian, 0 where absent.
    static func targetBytes(_ target: MatterBridgeRecord.Target) -> [UInt8] {
        let flags =
            (target.cluster == nil ? 0 : 1) | (target.endpoint == nil ? 0 : 2) | (target.deviceType == nil ? 0 : 4)
        return [UInt8(flags)] + bigEndian(UInt64(target.cluster ?? 0)).suffix(4)
            + bigEndian(UInt64(target.endpoint ?? 0)).suffix(2) + bigEndian(UInt64(target.deviceType ?? 0)).suffix(4)
    }

    private static func targets(_ bytes: [UInt8]) throws -> [MatterBridgeRecord.Target] {
        guard bytes.count % 11 == 0 else { throw Unreadable("an ACL entry's targets are not 11-byte records") }
        return try stride(from: 0, to: bytes.count, by: 11).map { start in
            let record = Array(bytes[start..<start + 11])
            guard record[0] & ~7 == 0 else { throw Unreadable("an ACL target's flags are \(record[0])") }
            func number(_ range: Range<Int>) -> UInt64 { record[range].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
            return MatterBridgeRecord.Target(
                cluster: record[0] & 1 == 0 ? nil : UInt32(truncatingIfNeeded: number(1..<5)),
                endpoint: record[0] & 2 == 0 ? nil : UInt16(truncatingIfNeeded: number(5..<7)),
                deviceType: record[0] & 4 == 0 ? nil : UInt32(truncatingIfNeeded: number(7..<11)))
        }
    }

    /// A stored value that is not what its column holds.
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
