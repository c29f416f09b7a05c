import FoundationEssentials
import GRDB
import TraitBridgeModel

/// Device records as rows: the device (identity and info in columns), its sources, its other ids,
/// its device types and their traits, each in a table of its own keyed by the device id.
extension DeviceStore {
    /// The tables of typed device records (migration "v8"); a device's parts go with its row.
    static func createDeviceParts(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE device ADD COLUMN vendorID INTEGER;
                ALTER TABLE device ADD COLUMN productID INTEGER;
                ALTER TABLE device ADD COLUMN uniqueID TEXT;
                ALTER TABLE device ADD COLUMN serialNumber TEXT;
                ALTER TABLE device ADD COLUMN manufacturer TEXT;
                ALTER TABLE device ADD COLUMN model TEXT;
                ALTER TABLE device ADD COLUMN hardwareVersion TEXT;
                ALTER TABLE device ADD COLUMN softwareVersion TEXT;
                ALTER TABLE device ADD COLUMN isMatterDevice INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE deviceSource (
                  deviceID TEXT NOT NULL, position INTEGER NOT NULL,
                  family TEXT NOT NULL, instance TEXT NOT NULL, nativeID TEXT NOT NULL,
                  PRIMARY KEY (deviceID, position)) WITHOUT ROWID;
                CREATE TABLE deviceOtherID (
                  deviceID TEXT NOT NULL, position INTEGER NOT NULL,
                  agentID TEXT, otherID TEXT NOT NULL,
                  PRIMARY KEY (deviceID, position)) WITHOUT ROWID;
                CREATE TABLE deviceType (
                  deviceID TEXT NOT NULL, position INTEGER NOT NULL,
                  key TEXT NOT NULL, type TEXT NOT NULL, isPrimary INTEGER NOT NULL,
                  PRIMARY KEY (deviceID, position)) WITHOUT ROWID;
                CREATE TABLE deviceTrait (
                  deviceID TEXT NOT NULL, typePosition INTEGER NOT NULL,
                  position INTEGER NOT NULL, trait TEXT NOT NULL,
                  sourceFamily TEXT, sourceInstance TEXT, sourceNativeID TEXT,
                  attributes TEXT NOT NULL, commands TEXT NOT NULL,
                  PRIMARY KEY (deviceID, typePosition, position)) WITHOUT ROWID;
                """)
    }

    /// Inserts or replaces a device and its parts; `firstSeen` is kept from the first insert. The
    /// statements are compiled once per connection (a list of 10 000 devices is one transaction),
    /// and a new device (every device of a first start) costs no look-up of parts to replace.
    static func upsert(_ record: DeviceRecord, seen: DatabaseValue, in db: Database) throws {
        var insert = try RowWriter(
            db,
            sql: """
                INSERT INTO device (id, firstSeen, lastSeen, description, name, roomName, sourceFamily,
                  sourceInstance, nativeID, vendorID, productID, uniqueID, serialNumber, manufacturer, model,
                  hardwareVersion, softwareVersion, isMatterDevice)
                VALUES (?, ?, ?, x'', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING
                """)
        try insert.run { row in
            try row.text(record.id.rawValue)
            try row.value(seen)
            try row.value(seen)
            try row.describe(record)
        }
        if insert.changedRows == 0 {
            var update = try RowWriter(
                db,
                sql: """
                    UPDATE device SET lastSeen = ?, description = x'', name = ?, roomName = ?, sourceFamily = ?,
                      sourceInstance = ?, nativeID = ?, vendorID = ?, productID = ?, uniqueID = ?, serialNumber = ?,
                      manufacturer = ?, model = ?, hardwareVersion = ?, softwareVersion = ?, isMatterDevice = ?
                    WHERE id = ?
                    """)
            try update.run { row in
                try row.value(seen)
                try row.describe(record)
                try row.text(record.id.rawValue)
            }
            try deleteParts(of: record.id, in: db)
        }
        try writeParts(of: record, in: db)
    }

    /// Removes a device and its parts.
    static func delete(_ id: DeviceID, in db: Database) throws {
        var delete = try RowWriter(db, sql: "DELETE FROM device WHERE id = ?")
        try delete.run { try $0.text(id.rawValue) }
        try deleteParts(of: id, in: db)
    }

    static func deleteParts(of id: DeviceID, in db: Database) throws {
        for table in ["deviceSource", "deviceOtherID", "deviceType", "deviceTrait"] {
            var delete = try RowWriter(db, sql: "DELETE FROM \(table) WHERE deviceID = ?")
            try delete.run { try $0.text(id.rawValue) }
        }
    }

    /// Writes the parts of a device whose row exists and has none. Its first source is in the
    /// device row; `deviceSource` holds the others (a device merged from several sources).
    static func writeParts(of record: DeviceRecord, in db: Database) throws {
        let id = record.id.rawValue
        var sources = try RowWriter(
            db, sql: "INSERT INTO deviceSource (deviceID, position, family, instance, nativeID) VALUES (?, ?, ?, ?, ?)")
        for (position, source) in record.sources.enumerated().dropFirst() {
            try sources.run { row in
                try row.text(id)
                try row.int(position)
                try row.text(source.family)
                try row.text(source.instance)
                try row.text(source.nativeID)
            }
        }
        var others = try RowWriter(
            db, sql: "INSERT INTO deviceOtherID (deviceID, position, agentID, otherID) VALUES (?, ?, ?, ?)")
        for (position, other) in record.identity.otherDeviceIDs.enumerated() {
            try others.run { row in
                try row.text(id)
                try row.int(position)
                try row.text(other.agentID)
                try row.text(other.deviceID)
            }
        }
        var types = try RowWriter(
            db, sql: "INSERT INTO deviceType (deviceID, position, key, type, isPrimary) VALUES (?, ?, ?, ?, ?)")
        var traits = try RowWriter(
            db,
            sql: """
                INSERT INTO deviceTrait (deviceID, typePosition, position, trait, sourceFamily, sourceInstance,
                  sourceNativeID, attributes, commands) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for (typePosition, type) in record.types.enumerated() {
            try types.run { row in
                try row.text(id)
                try row.int(typePosition)
                try row.text(type.key)
                try row.text(type.type.description)
                try row.bool(type.isPrimaryType)
            }
            for (position, trait) in type.traits.enumerated() {
                try traits.run { row in
                    try row.text(id)
                    try row.int(typePosition)
                    try row.int(position)
                    try row.text(trait.id.description)
                    try row.text(trait.source?.family)
                    try row.text(trait.source?.instance)
                    try row.text(trait.source?.nativeID)
                    try row.text(trait.attributes)
                    try row.text(listText(trait.commands))
                }
            }
        }
    }

    /// Every stored device, by id. Rows with an id that is no longer valid are skipped; a part that
    /// no longer reads (a type or trait id this version does not parse) is left out and named in
    /// the row's ``Row/problems``.
    public func all() throws(StoreError) -> [Row] {
        do {
            return try queue.read { db in try Self.readDevices(db) }
        } catch {
            throw .readFailed("\(error)")
        }
    }

    private static func readDevices(_ db: Database) throws -> [Row] {
        var reader = PartReader()
        var sources: [String: [SourceReference]] = [:]
        let sourceRows = try GRDB.Row.fetchCursor(
            db, sql: "SELECT deviceID, family, instance, nativeID FROM deviceSource ORDER BY deviceID, position")
        while let row = try sourceRows.next() {
            sources[row[0], default: []].append(
                SourceReference(family: columnText(row, 1), instance: columnText(row, 2), nativeID: columnText(row, 3)))
        }
        var others: [String: [OtherDeviceID]] = [:]
        let otherRows = try GRDB.Row.fetchCursor(
            db, sql: "SELECT deviceID, agentID, otherID FROM deviceOtherID ORDER BY deviceID, position")
        while let row = try otherRows.next() {
            others[row[0], default: []].append(
                OtherDeviceID(agentID: optionalColumnText(row, 1), deviceID: columnText(row, 2)))
        }
        var traits: [String: [Int: [StoredTrait]]] = [:]
        var problems: [String: [String]] = [:]
        let traitRows = try GRDB.Row.fetchCursor(
            db,
            sql: """
                SELECT deviceID, typePosition, trait, sourceFamily, sourceInstance, sourceNativeID, attributes, commands
                FROM deviceTrait ORDER BY deviceID, typePosition, position
                """)
        while let row = try traitRows.next() {
            let deviceID: String = row[0]
            let text: String = row[2]
            guard let id = reader.trait(text) else {
                problems[deviceID, default: []].append("trait '\(text)' is not a trait id; left out")
                continue
            }
            let source = optionalColumnText(row, 3).flatMap { family in
                optionalColumnText(row, 4).flatMap { instance in
                    optionalColumnText(row, 5).map { SourceReference(family: family, instance: instance, nativeID: $0) }
                }
            }
            let trait = StoredTrait(id: id, source: source, attributes: row[6], commands: reader.commands(row[7]))
            traits[deviceID, default: [:]][row[1], default: []].append(trait)
        }
        var types: [String: [StoredDeviceType]] = [:]
        let typeRows = try GRDB.Row.fetchCursor(
            db, sql: "SELECT deviceID, position, key, type, isPrimary FROM deviceType ORDER BY deviceID, position")
        while let row = try typeRows.next() {
            let deviceID: String = row[0]
            let text: String = row[3]
            guard let type = reader.deviceType(text) else {
                problems[deviceID, default: []].append("device type '\(text)' is not a device type id; left out")
                continue
            }
            types[deviceID, default: []].append(
                StoredDeviceType(
                    key: columnText(row, 2), type: type, isPrimaryType: row[4], traits: traits[deviceID]?[row[1]] ?? [])
            )
        }
        var result: [Row] = []
        let deviceRows = try GRDB.Row.fetchCursor(
            db,
            sql: """
                SELECT id, name, roomName, firstSeen, lastSeen, vendorID, productID, uniqueID, serialNumber,
                  manufacturer, model, hardwareVersion, softwareVersion, isMatterDevice, sourceFamily,
                  sourceInstance, nativeID
                FROM device ORDER BY id
                """)
        while let row = try deviceRows.next() {
            let text: String = row[0]
            guard let id = try? DeviceID(text) else { continue }
            let vendorID: Int64? = row[5]
            let productID: Int64? = row[6]
            let record = DeviceRecord(
                id: id, name: columnText(row, 1), roomName: optionalColumnText(row, 2),
                identity: DeviceIdentity(
                    vendorID: vendorID.flatMap { UInt16(exactly: $0) },
                    productID: productID.flatMap { UInt16(exactly: $0) }, uniqueID: optionalColumnText(row, 7),
                    serialNumber: optionalColumnText(row, 8),
                    otherDeviceIDs: others[text] ?? []),
                info: DeviceInfo(
                    manufacturer: optionalColumnText(row, 9), model: optionalColumnText(row, 10),
                    hardwareVersion: optionalColumnText(row, 11), softwareVersion: optionalColumnText(row, 12)),
                isMatterDevice: row[13], sources: firstSource(row, at: 14) + (sources[text] ?? []),
                types: types[text] ?? [])
            result.append(Row(record: record, firstSeen: row[3], lastSeen: row[4], problems: problems[text] ?? []))
        }
        return result
    }
}

/// The device row's source (none when all three are empty: a record with no source).
private func firstSource(_ row: GRDB.Row, at index: Int) -> [SourceReference] {
    let source = SourceReference(
        family: columnText(row, index), instance: columnText(row, index + 1), nativeID: columnText(row, index + 2))
    return source.family.isEmpty && source.instance.isEmpty && source.nativeID.isEmpty ? [] : [source]
}

/// A text column as ``StoredText`` reads it (whole, NULs included); NULL reads as empty.
func columnText(_ row: GRDB.Row, _ index: Int) -> String { optionalColumnText(row, index) ?? "" }

func optionalColumnText(_ row: GRDB.Row, _ index: Int) -> String? { (row[index] as StoredText?)?.value }

/// Trait and device type ids and command lists read back by one read of the registry: a few
/// hundred distinct texts over thousands of rows, each parsed once (bounded; more are parsed each time).
private struct PartReader {
    private var traits: [String: TraitID?] = [:]
    private var deviceTypes: [String: DeviceTypeID?] = [:]
    private var commandLists: [String: [String]] = [:]
    private static let limit = 4096

    mutating func trait(_ text: String) -> TraitID? {
        if let known = traits[text] { return known }
        let parsed = TraitID(parsing: text)
        if traits.count < Self.limit { traits[text] = parsed }
        return parsed
    }

    mutating func deviceType(_ text: String) -> DeviceTypeID? {
        if let known = deviceTypes[text] { return known }
        let parsed = DeviceTypeID(parsing: text)
        if deviceTypes.count < Self.limit { deviceTypes[text] = parsed }
        return parsed
    }

    /// A JSON array of strings; anything else reads as no commands (the source says them again).
    mutating func commands(_ text: String) -> [String] {
        if let known = commandLists[text] { return known }
        let parsed = readList(text)
        if commandLists.count < Self.limit { commandLists[text] = parsed }
        return parsed
    }
}
