import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// What Google's exports (SYNC, QUERY, EXECUTE states) need of each device, under the export rules.
extension BridgeState {
    /// What an export needs of each device (all devices, or those the cloud knows by `ids`).
    func cloudExportInputs(ids: [String]? = nil) -> [CloudExportInput] {
        var inputs: [CloudExportInput] = []
        if let ids {
            var seen = Set<DeviceID>()
            for c2cID in ids {
                guard let id = device(forCloudID: c2cID), seen.insert(id).inserted,
                    let input = exportedInput(id)
                else { continue }
                inputs.append(input)
            }
            return inputs.sorted { $0.device.id < $1.device.id }
        }
        inputs.reserveCapacity(graph.devices.count)
        for id in graph.devices.keys.sorted() {
            if let input = exportedInput(id) { inputs.append(input) }
        }
        return inputs
    }

    /// ``cloudExportInput(_:)`` for a device the export rules give Google; `nil` for the others.
    func exportedInput(_ id: DeviceID) -> CloudExportInput? {
        guard let input = cloudExportInput(id) else { return nil }
        if configuration.exportRules.isEverything { return input }
        return cloud?.isIncluded(input, by: configuration.exportRules) == false ? nil : input
    }

    /// What the export needs of one device: the device, its room, the cloud device it came from
    /// (the lowest C2C id when several merged into it) and its sources' attribute metadata (for a
    /// restored device whose source has not spoken yet, the registry's).
    func cloudExportInput(_ id: DeviceID) -> CloudExportInput? {
        guard let device = graph.devices[id] else { return nil }
        let runtime = cloudImport.devices.ids(on: id).compactMap { cloudImport.devices[$0] }.min {
            $0.origin.c2cID < $1.origin.c2cID
        }
        var metadata: [TraitAddress: [String: AttributeMetadata]] = [:]
        var commandable: [TraitAddress: Set<String>] = [:]
        for address in device.traitAddresses {
            if let bindings = sourceBindings(of: device, at: address) {
                metadata[address] = Dictionary(
                    Self.deviceMetadata(bindings).map { ($0.name, $0.metadata) }, uniquingKeysWith: { a, _ in a })
                commandable[address] = Set(bindings.filter(\.isWritable).map(\.attribute))
            } else if let restored = published[id]?.restoredFeeds?[address] {
                // Restored, its source not heard yet: what the registry said it feeds.
                metadata[address] = Dictionary(
                    restored.attributes.map { ($0.name, $0.metadata) }, uniquingKeysWith: { a, _ in a })
                // What it can write: what the commands it accepted set.
                let commands = Set(restored.commands)
                commandable[address] = Set(
                    catalog.commandRules.filter { $0.trait == address.traitID && commands.contains($0.command) }
                        .flatMap { $0.sets.map(\.attribute) + [$0.toggles].compactMap { $0 } })
            }
        }
        let room = graph.room(of: id).flatMap { $0.isDefault ? nil : $0.name }
        return CloudExportInput(
            device: device, roomName: room, origin: runtime?.origin, extraStates: runtime?.extraStates ?? [:],
            metadata: metadata, commandable: commandable)
    }

    /// The device a C2C id names: an imported device's target, or a device exported under its own id.
    func device(forCloudID c2cID: String) -> DeviceID? {
        if let runtime = cloudImport.devices[c2cID] { return runtime.target }
        return (try? DeviceID(c2cID)).flatMap { graph.devices[$0] != nil ? $0 : nil }
    }
}
