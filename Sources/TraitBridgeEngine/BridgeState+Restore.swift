import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeCloud
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
                if let roomName = row.roomName {
                    let home = graph.primaryHome.id
                    let room = try graph.room(named: roomName, addingTo: home)
                    try graph.assignDevice(row.id, to: room)
                }
            } catch {
                logs.append(BridgeLogLine(.warning, "could not restore device from the registry: \(error)", ["tb.device.id": row.id.rawValue]))
            }
        }
        logs.append(BridgeLogLine(.info, "restored \(graph.devices.count) devices from the registry"))
        return logs
    }

    private func decodeDevice(_ row: DeviceRecord) throws -> Device {
        let root = try JSONDocument.parse(row.description, maxDepth: 128).root
        var types: [DeviceTypeInstance] = []
        for (key, type) in root["types"]?.members ?? [] {
            // Types a cloud device contributed to a merged device are re-attached by restoreCloud.
            let traitSources = (type["traits"]?.members ?? []).compactMap { $0.value["source"]?.string }
            if !traitSources.isEmpty && traitSources.allSatisfy({ $0.hasPrefix(GoogleC2C.family + "[") }) { continue }
            guard let typeText = type["type"]?.string, let typeID = DeviceTypeID(parsing: typeText) else {
                throw ModelError.unknownDeviceTypeKey(key: key, known: [])
            }
            let traits = (type["traits"]?.members ?? []).compactMap { TraitID(parsing: $0.key) }
            types.append(try catalog.makeDeviceType(key: key, type: typeID, isPrimaryType: type["isPrimaryType"]?.bool ?? false, traits: traits))
        }
        let identity = root["identity"]
        let source = SourceReference(family: row.sourceFamily, instance: row.sourceInstance, nativeID: row.nativeID)
        var device = try Device(
            id: row.id, name: row.name,
            identity: DeviceIdentity(
                uniqueID: identity?["uniqueId"]?.string,
                serialNumber: identity?["serialNumber"]?.string,
                otherDeviceIDs: (identity?["otherDeviceIds"]?.elements ?? []).compactMap { other in
                    other["deviceId"]?.string.map { OtherDeviceID(agentID: other["agentId"]?.string, deviceID: $0) }
                }),
            info: DeviceInfo(manufacturer: root[path: "deviceInfo.manufacturer"]?.string, model: root[path: "deviceInfo.model"]?.string),
            sources: [source],
            deviceTypes: types)
        for address in device.traitAddresses {
            try device.modifyTrait(at: address) { $0.source = source }
        }
        return device
    }
}
