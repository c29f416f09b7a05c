import FoundationEssentials
import GRDB

extension MatterBridgeRecord {
    /// The most CASE resumption records kept: more than the device holds (16), so none it holds is lost.
    public static let resumptionLimit = 64

    /// One CASE resumption record (connectedhomeip `DefaultSessionResumptionStorage` keeps the same:
    /// resumption ID → fabric and peer node id, the shared secret, the peer's CASE Authenticated Tags).
    /// The shared secret resumes a session without a certificate: it is as secret as an operational key.
    public struct Resumption: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
        public var resumptionID: [UInt8]
        public var sharedSecret: [UInt8]
        public var fabricIndex: UInt8
        public var peerNodeID: UInt64
        public var caseAuthenticatedTags: [UInt32]

        public init(
            resumptionID: [UInt8], sharedSecret: [UInt8], fabricIndex: UInt8, peerNodeID: UInt64,
            caseAuthenticatedTags: [UInt32]
        ) {
            self.resumptionID = resumptionID
            self.sharedSecret = sharedSecret
            self.fabricIndex = fabricIndex
            self.peerNodeID = peerNodeID
            self.caseAuthenticatedTags = caseAuthenticatedTags
        }

        /// The fabric and peer; never the secret.
        public var description: String {
            "Resumption(fabric \(fabricIndex), node \(String(peerNodeID, radix: 16, uppercase: true)))"
        }
        /// `dump` shows no field: the secret stays out of it too.
        public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
    }

    /// What Basic Information served: the vendor and product it attested as (the QR payload names them),
    /// and its writable NodeLabel and Location as last served (a controller may have written them).
    public struct BasicInformation: Sendable, Hashable {
        public var vendorID: UInt16
        public var productID: UInt16
        /// nil: none kept yet.
        public var nodeLabel: String?
        public var location: String?
        /// `matterBridge.name` when ``nodeLabel`` was kept (nil: none configured): a name configured since
        /// takes the kept label's place.
        public var configuredName: String?

        public init(
            vendorID: UInt16, productID: UInt16, nodeLabel: String? = nil, location: String? = nil,
            configuredName: String? = nil
        ) {
            self.vendorID = vendorID
            self.productID = productID
            self.nodeLabel = nodeLabel
            self.location = location
            self.configuredName = configuredName
        }
    }
}

extension DeviceStore {
    /// The tables of migration "v11: matter resumptions and basic information"; registries of v10 read
    /// as having neither (no record to resume, the ids and labels of the configuration). v13 gives
    /// matterResumption a bridge column (``migrateToMatterBridges(_:)``).
    static func createMatterSessionTables(_ db: Database) throws {
        try db.create(table: "matterResumption") { table in
            table.primaryKey("position", .integer)  // least recently used first
            table.column("resumptionID", .blob).notNull().unique()
            table.column("fabricIndex", .integer).notNull()
            table.column("peerNodeID", .blob).notNull()  // 8 bytes big-endian
            table.column("caseAuthenticatedTags", .blob).notNull()  // 4 bytes big-endian each
            table.column("sharedSecret", .blob).notNull()  // a secret (owner-only file)
        }
        try db.create(table: "matterBasicInformation") { table in
            table.primaryKey("id", .integer)  // the bridge number (from v13; v11 and v12 kept one row, id 1)
            table.column("vendorID", .integer).notNull()
            table.column("productID", .integer).notNull()
            table.column("nodeLabel", .text)
            table.column("location", .text)
            table.column("configuredName", .text)
        }
    }

    /// Bridge `bridge`'s resumption records, least recently used first; at most
    /// ``MatterBridgeRecord/resumptionLimit`` (the most recent) of a registry that holds more.
    static func matterResumptions(bridge: Int, _ db: Database) throws -> [MatterBridgeRecord.Resumption] {
        let rows = try GRDB.Row.fetchAll(
            db, sql: "SELECT * FROM matterResumption WHERE bridge = ? ORDER BY position DESC LIMIT ?",
            arguments: [bridge, MatterBridgeRecord.resumptionLimit])
        return try rows.reversed().map { row in
            let node = try bytes(row, "peerNodeID")
            guard node.count == 8 else { throw Unreadable("a resumption record's peerNodeID is not 8 bytes") }
            let tags = try bytes(row, "caseAuthenticatedTags")
            guard tags.count % 4 == 0 else { throw Unreadable("a resumption record's CATs are not 4-byte ids") }
            return MatterBridgeRecord.Resumption(
                resumptionID: try bytes(row, "resumptionID"), sharedSecret: try bytes(row, "sharedSecret"),
                fabricIndex: try number(row, "fabricIndex"),
                peerNodeID: node.reduce(UInt64(0)) { $0 << 8 | UInt64($1) },
                caseAuthenticatedTags: stride(from: 0, to: tags.count, by: 4).map { start in
                    tags[start..<start + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                })
        }
    }

    /// Bridge `bridge`'s Basic Information row (its id is the bridge number).
    static func matterBasicInformation(bridge: Int, _ db: Database) throws -> MatterBridgeRecord.BasicInformation? {
        let row = try GRDB.Row.fetchOne(
            db, sql: "SELECT * FROM matterBasicInformation WHERE id = ?", arguments: [bridge])
        guard let row else { return nil }
        return MatterBridgeRecord.BasicInformation(
            vendorID: try number(row, "vendorID"), productID: try number(row, "productID"),
            nodeLabel: try value(row, "nodeLabel", as: String?.self),
            location: try value(row, "location", as: String?.self),
            configuredName: try value(row, "configuredName", as: String?.self))
    }

    /// Replaces bridge `bridge`'s resumption records (the most recent ``MatterBridgeRecord/resumptionLimit``)
    /// and Basic Information row with `record`'s; inside ``saveMatterBridge(_:bridge:now:)``'s transaction.
    static func saveMatterSessions(_ record: MatterBridgeRecord, bridge: Int, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM matterResumption WHERE bridge = ?", arguments: [bridge])
        for (position, resumption) in record.resumptions.suffix(MatterBridgeRecord.resumptionLimit).enumerated() {
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO matterResumption (bridge, position, resumptionID, fabricIndex,
                    peerNodeID, caseAuthenticatedTags, sharedSecret) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    bridge, position, Data(resumption.resumptionID), Int64(resumption.fabricIndex),
                    Data(bigEndian(resumption.peerNodeID)),
                    Data(
                        resumption.caseAuthenticatedTags.flatMap { tag in
                            (0..<4).reversed().map { UInt8(truncatingIfNeeded: tag >> ($0 * 8)) }
                        }), Data(resumption.sharedSecret),
                ])
        }
        try db.execute(sql: "DELETE FROM matterBasicInformation WHERE id = ?", arguments: [bridge])
        if let information = record.basicInformation {
            try db.execute(
                sql: """
                    INSERT INTO matterBasicInformation (id, vendorID, productID, nodeLabel, location, configuredName)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    bridge, Int64(information.vendorID), Int64(information.productID), information.nodeLabel,
                    information.location, information.configuredName,
                ])
        }
    }
}
