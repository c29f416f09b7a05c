public import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
public import TraitBridgeStore

/// Imported cloud devices in the registry: kept as typed records (the origin and the device as
/// imported), put back at start without reading a SYNC again.
extension BridgeState {
    /// Puts back the cloud devices the registry keeps: each from its origin and its device's record,
    /// joined again to the local device of the same identity. A record that does not read (its
    /// device row missing, a JSON text of Google's that is not JSON) is skipped with a log line
    /// naming it; every other cloud device comes back.
    public mutating func restoreCloud(
        _ origins: [CloudOriginRecord], rows: [DeviceStore.Row], now: Date
    ) -> [BridgeLogLine] {
        guard cloud != nil, !origins.isEmpty else { return [] }
        var logs: [BridgeLogLine] = []
        var records: [DeviceID: DeviceRecord] = [:]
        for row in rows where CloudImport.feeds(row.record.sources.first) { records[row.id] = row.record }
        var restored = SyncImport()
        var attributeTexts = RestoredAttributes()
        for origin in origins {
            do {
                guard let record = records[origin.deviceID] else {
                    throw ModelError.unknownDevice(origin.deviceID)
                }
                var (device, _) = try makeDevice(record, attributeTexts: &attributeTexts, logs: &logs, isCloud: true)
                device.name = origin.name
                try restoreValues(origin.traitValues, on: &device, now: now)
                restored.devices.append(
                    ImportedCloudDevice(device: device, origin: try Self.cloudOrigin(origin), path: .root))
            } catch {
                logs.append(
                    BridgeLogLine(
                        .error,
                        "the registry's cloud device '\(origin.c2cID)' does not read (\(error)); skipped (a new SYNC "
                            + "import puts it back)", ["tb.device": origin.c2cID]))
            }
        }
        var effects = BridgeEffects()
        _ = importCloud(restored, now: now, persist: false, effects: &effects)
        return logs + effects.logs
    }

    /// A registry before v8 kept SYNC entries: each is checked on its own (one that is not a JSON
    /// object is skipped with a log line naming it), the others imported together and kept as
    /// typed records (the effects' store changes).
    public mutating func importLegacyCloud(_ entries: [(c2cID: String, entry: [UInt8])], now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        guard let cloud, !entries.isEmpty else { return effects }
        var bytes: [UInt8] = Array(#"{"devices":["#.utf8)
        var kept = 0
        for (c2cID, entry) in entries {
            guard let document = try? JSONDocument.parse(entry), document.root.kind == .object else {
                effects.log(
                    .error,
                    "the registry's cloud entry for '\(c2cID)' is not a SYNC device object; skipped (a new SYNC "
                        + "import puts it back)",
                    ["tb.device": c2cID])
                continue
            }
            if kept > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += entry
            kept += 1
        }
        bytes += Array("]}".utf8)
        guard kept > 0 else { return effects }
        do {
            let result = try cloud.importSync(bytes, source: "registry", now: now)
            _ = importCloud(result, now: now, effects: &effects)
        } catch {
            effects.log(.error, "cannot re-import the cloud devices of the registry: \(error)")
        }
        return effects
    }

    /// What the registry keeps of an import's origin.
    static func originRecord(_ item: ImportedCloudDevice) -> CloudOriginRecord {
        let origin = item.origin
        return CloudOriginRecord(
            c2cID: origin.c2cID, deviceID: item.device.id, name: item.device.name, type: origin.type,
            traits: origin.traits, attributes: JSONValue.object(origin.attributes).serialized(),
            customData: origin.customData?.serialized(), defaultNames: origin.defaultNames, nicknames: origin.nicknames,
            roomHint: origin.roomHint, structureHint: origin.structureHint, willReportState: origin.willReportState,
            notificationSupportedByAgent: origin.notificationSupportedByAgent,
            deviceInfo: origin.deviceInfo.map { JSONValue.object($0).serialized() },
            traitValues: traitValues(of: item.device))
    }

    /// The values an import gave a device's traits, as ``CloudOriginRecord/traitValues`` keeps them.
    static func traitValues(of device: Device) -> String {
        var object = JSONObject()
        for address in device.traitAddresses {
            guard let trait = device.trait(at: address), !trait.attributes.isEmpty else { continue }
            var values = JSONObject()
            for name in trait.attributes.keys.sorted() { values[name] = trait.attributes[name]?.jsonValue }
            object[address.description] = .object(values)
        }
        return JSONValue.object(object).serialized()
    }

    /// A restored cloud device as its import left it: every trait fed by the cloud, remote and
    /// unknown until a QUERY says otherwise, with the values its SYNC's attributes gave it.
    private func restoreValues(_ text: String, on device: inout Device, now: Date) throws {
        guard case .object(let object) = try JSONDocument.parse(Array(text.utf8)).root.value else {
            throw CloudRestoreError(member: "traitValues")
        }
        device.setConnectivity(.unknown, locality: .remote, reason: .cloudImported, forTraitsOf: nil, time: now)
        let addresses = Dictionary(device.traitAddresses.map { ($0.description, $0) }, uniquingKeysWith: { a, _ in a })
        for (key, values) in object.members {
            guard let address = addresses[key], case .object(let values) = values else {
                throw CloudRestoreError(member: "traitValues.\(key)")
            }
            for (name, value) in values.members {
                try device.report(
                    AttributeValue(jsonValue: value), attribute: name, at: address, catalog: catalog, time: now)
            }
        }
    }

    /// The device of an import as the registry keeps it (cloud traits feed what the cloud reports).
    static func importedRecord(_ item: ImportedCloudDevice) -> DeviceRecord {
        let device = item.device
        return DeviceRecord(
            id: device.id, name: device.name, identity: device.identity, info: device.info,
            isMatterDevice: device.isMatterDevice, sources: device.sources,
            types: device.deviceTypes.map { type in
                StoredDeviceType(
                    key: type.key, type: type.typeID, isPrimaryType: type.isPrimaryType,
                    traits: type.traits.map { StoredTrait(id: $0.traitID, source: $0.source) })
            })
    }

    /// A kept origin read back; Google's objects must read as the JSON they were.
    static func cloudOrigin(_ record: CloudOriginRecord) throws -> CloudDeviceOrigin {
        func object(_ text: String, _ name: String) throws -> JSONObject {
            guard case .object(let object) = try JSONDocument.parse(Array(text.utf8)).root.value else {
                throw CloudRestoreError(member: name)
            }
            return object
        }
        return CloudDeviceOrigin(
            c2cID: record.c2cID, type: record.type, traits: record.traits,
            attributes: try object(record.attributes, "attributes"),
            customData: try record.customData.map { try JSONDocument.parse(Array($0.utf8)).root.value },
            defaultNames: record.defaultNames, nicknames: record.nicknames, roomHint: record.roomHint,
            structureHint: record.structureHint, willReportState: record.willReportState,
            notificationSupportedByAgent: record.notificationSupportedByAgent,
            deviceInfo: try record.deviceInfo.map { try object($0, "deviceInfo") })
    }
}

/// A kept origin's member that should hold a JSON object holds something else.
struct CloudRestoreError: Error, CustomStringConvertible {
    var member: String
    var description: String { "its \(member) is not a JSON object" }
}
