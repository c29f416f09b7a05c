import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
public import TraitBridgeStore

extension BridgeState {
    /// Puts the devices of the registry back, from their stored descriptions, with connectivity
    /// unknown ("nothing heard yet") until their sources speak. A row that no longer fits the
    /// catalog is skipped with a log line; the others are restored.
    public mutating func restore(_ rows: [DeviceStore.Row]) -> [BridgeLogLine] {
        var logs: [BridgeLogLine] = []
        // Cloud devices come back from their kept SYNC entries (restoreCloud), not from here.
        for row in rows.map(\.record) where graph.devices[row.id] == nil && row.sourceFamily != GoogleC2C.family {
            do {
                var device = try decodeDevice(row)
                device.name = row.name
                try graph.addDevice(device)
                runtime[row.id, default: DeviceRuntime()].storedDescription = DeviceRuntime.hash(row.description)
                if placements[row.id] != nil {
                    var effects = BridgeEffects()
                    applyPlacement(row.id, effects: &effects)
                    logs += effects.logs
                } else if let roomName = row.roomName {
                    let home = graph.primaryHome.id
                    let room = try graph.room(named: roomName, addingTo: home)
                    try graph.assignDevice(row.id, to: room)
                }
            } catch {
                logs.append(
                    BridgeLogLine(
                        .warning, "could not restore device from the registry: \(error)",
                        ["tb.device.id": row.id.rawValue]))
            }
        }
        logs.append(BridgeLogLine(.info, "restored \(graph.devices.count) devices from the registry"))
        return logs
    }

    /// What a restore reads of a stored description: not the attributes' metadata and commands of
    /// every trait (most of its bytes), which come from the catalog. Built on each use, not kept in
    /// a global: LeakSanitizer reports a global indirect enum's box as leaked (see Zigbee2MQTTSource).
    static var restoredProjection: JSONProjection {
        .members([
            "identity": .all, "deviceInfo": .all, "isMatterDevice": .all, "sources": .all,
            "types": .eachMember(
                .members(["type": .all, "isPrimaryType": .all, "traits": .eachMember(.members(["source": .all]))])),
        ])
    }

    private func decodeDevice(_ row: DeviceRecord) throws -> Device {
        let root = try JSONDocument.parse(row.description, maxDepth: 128, projection: Self.restoredProjection).root
        var types: [DeviceTypeInstance] = []
        for (key, type) in root["types"]?.members ?? [] {
            // Types a cloud device contributed to a merged device are re-attached by restoreCloud.
            let traitSources = (type["traits"]?.members ?? []).compactMap { $0.value["source"]?.string }
            if !traitSources.isEmpty && traitSources.allSatisfy({ $0.hasPrefix(GoogleC2C.family + "[") }) { continue }
            guard let typeText = type["type"]?.string, let typeID = DeviceTypeID(parsing: typeText) else {
                throw ModelError.unknownDeviceTypeKey(key: key, known: [])
            }
            // A vendor definition a source discovered comes back when the source describes the
            // device again; until then the device is restored without it.
            if typeID.namespace.isVendor, catalog.deviceType(typeID) == nil { continue }
            let traits = (type["traits"]?.members ?? []).compactMap { TraitID(parsing: $0.key) }
                .filter { !$0.namespace.isVendor || catalog.trait($0) != nil }
            types.append(
                try catalog.makeDeviceType(
                    key: key, type: typeID, isPrimaryType: type["isPrimaryType"]?.bool ?? false, traits: traits))
        }
        let identity = root["identity"]
        let rowSource = SourceReference(family: row.sourceFamily, instance: row.sourceInstance, nativeID: row.nativeID)
        // Everything the description holds comes back, so that a source describing the device
        // again as it was changes nothing (no new description, no registry write).
        let sources = (root["sources"]?.elements ?? []).compactMap { $0.string.flatMap(SourceReference.init(parsing:)) }
        var device = try Device(
            id: row.id, name: row.name,
            identity: DeviceIdentity(
                vendorID: identity?["vendorId"]?.int64.flatMap { UInt16(exactly: $0) },
                productID: identity?["productId"]?.int64.flatMap { UInt16(exactly: $0) },
                uniqueID: identity?["uniqueId"]?.string,
                serialNumber: identity?["serialNumber"]?.string,
                otherDeviceIDs: (identity?["otherDeviceIds"]?.elements ?? []).compactMap { other in
                    other["deviceId"]?.string.map { OtherDeviceID(agentID: other["agentId"]?.string, deviceID: $0) }
                }),
            info: DeviceInfo(
                manufacturer: root[path: "deviceInfo.manufacturer"]?.string,
                model: root[path: "deviceInfo.model"]?.string,
                hardwareVersion: root[path: "deviceInfo.hwVersion"]?.string,
                softwareVersion: root[path: "deviceInfo.swVersion"]?.string),
            isMatterDevice: root["isMatterDevice"]?.bool ?? false,
            sources: sources.isEmpty ? [rowSource] : sources.filter { $0.family != GoogleC2C.family },
            deviceTypes: types)
        for (key, type) in root["types"]?.members ?? [] {
            for (traitText, trait) in type["traits"]?.members ?? [] {
                guard let traitID = TraitID(parsing: traitText), device.deviceType(key: key) != nil else { continue }
                let source = trait["source"]?.string.flatMap(SourceReference.init(parsing:)) ?? rowSource
                try? device.modifyTrait(at: TraitAddress(deviceTypeKey: key, traitID: traitID)) { $0.source = source }
            }
        }
        return device
    }
}
