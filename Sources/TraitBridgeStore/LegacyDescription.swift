import FoundationEssentials
import GRDB
import TraitBridgeJSON
public import TraitBridgeModel

/// Registries written before typed records (migrations v1…v7) kept each device as the description
/// payload the bridge published. Migration v8 reads each of those once into a ``DeviceRecord``;
/// nothing else reads a description back.
public enum LegacyDescription {
    /// What the record is made from: not the ids and names for people (`homeApisId`, home, room).
    static var projection: JSONProjection {
        .members([
            "identity": .all, "deviceInfo": .all, "isMatterDevice": .all, "sources": .all,
            "types": .eachMember(
                .members([
                    "type": .all, "isPrimaryType": .all,
                    "traits": .eachMember(
                        .members(["source": .all, "attributes": .text(.all), "commands": .all])),
                ])),
        ])
    }

    /// A device's record from its stored description. Total: what does not read (not JSON, a type
    /// or trait id this version does not parse, a member of the wrong kind) is left out and named
    /// in `problems`; the device's own source describes it again when it speaks.
    public static func record(
        id: DeviceID, name: String, roomName: String?, source: SourceReference, description: [UInt8]
    ) -> (record: DeviceRecord, problems: [String]) {
        var record = DeviceRecord(id: id, name: name, roomName: roomName, sources: [source])
        let root: JSON
        do {
            root = try JSONDocument.parse(description, maxDepth: 128, projection: projection).root
        } catch {
            return (record, ["the stored description is not JSON (\(error)); the device comes back without types"])
        }
        var problems: [String] = []
        let identity = root["identity"]
        record.identity = DeviceIdentity(
            vendorID: identity?["vendorId"]?.int64.flatMap { UInt16(exactly: $0) },
            productID: identity?["productId"]?.int64.flatMap { UInt16(exactly: $0) },
            uniqueID: identity?["uniqueId"]?.string,
            serialNumber: identity?["serialNumber"]?.string,
            otherDeviceIDs: (identity?["otherDeviceIds"]?.elements ?? []).compactMap { other in
                other["deviceId"]?.string.map { OtherDeviceID(agentID: other["agentId"]?.string, deviceID: $0) }
            })
        let info = root["deviceInfo"]
        record.info = DeviceInfo(
            manufacturer: info?["manufacturer"]?.string, model: info?["model"]?.string,
            hardwareVersion: info?["hwVersion"]?.string, softwareVersion: info?["swVersion"]?.string)
        record.isMatterDevice = root["isMatterDevice"]?.bool ?? false
        let sources = (root["sources"]?.elements ?? []).compactMap { $0.string.flatMap(SourceReference.init(parsing:)) }
        if !sources.isEmpty { record.sources = sources }
        for (key, type) in root["types"]?.members ?? [] {
            guard let text = type["type"]?.string, let typeID = DeviceTypeID(parsing: text) else {
                problems.append("types.\(key).type is not a device type id; left out")
                continue
            }
            var traits: [StoredTrait] = []
            for (traitText, trait) in type["traits"]?.members ?? [] {
                guard let traitID = TraitID(parsing: traitText) else {
                    problems.append("types.\(key).traits.\(traitText) is not a trait id; left out")
                    continue
                }
                // Kept as text by the projection; as the object itself when its key was written with escapes.
                let attributes = trait["attributes"].map { $0.string ?? $0.value.serialized() } ?? "{}"
                traits.append(
                    StoredTrait(
                        id: traitID, source: trait["source"]?.string.flatMap(SourceReference.init(parsing:)),
                        attributes: attributes, commands: trait["commands"]?.elements.compactMap(\.string) ?? []))
            }
            record.types.append(
                StoredDeviceType(
                    key: key, type: typeID, isPrimaryType: type["isPrimaryType"]?.bool ?? false, traits: traits))
        }
        return (record, problems)
    }

    /// Migration v8: every row that still holds a description gets its parts, and the description
    /// goes. A description that does not read leaves the device without types (its source
    /// describes it again), never a failed migration.
    static func convert(_ db: Database) throws {
        let rows = try GRDB.Row.fetchAll(
            db,
            sql: "SELECT id, name, roomName, sourceFamily, sourceInstance, nativeID, description FROM device "
                + "WHERE length(description) > 0")
        for row in rows {
            guard let id = try? DeviceID(row[0] as String) else { continue }
            let description: [UInt8] = [UInt8]((row[6] as Data?) ?? Data())
            let source = SourceReference(family: row[3], instance: row[4], nativeID: row[5])
            let (record, _) = Self.record(
                id: id, name: row[1], roomName: row[2], source: source, description: description)
            var update = try RowWriter(
                db,
                sql: """
                    UPDATE device SET description = x'', name = ?, roomName = ?, sourceFamily = ?, sourceInstance = ?,
                      nativeID = ?, vendorID = ?, productID = ?, uniqueID = ?, serialNumber = ?, manufacturer = ?,
                      model = ?, hardwareVersion = ?, softwareVersion = ?, isMatterDevice = ?
                    WHERE id = ?
                    """)
            try update.run { row in
                try row.describe(record)
                try row.text(id.rawValue)
            }
            try DeviceStore.writeParts(of: record, in: db)
        }
    }
}
