import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeCloud

/// The devices Home Assistant entities make: standalone, or merged into the device another source
/// (zigbee2mqtt, Tasmota, Shelly) has for the same physical device — same IEEE address, MAC or
/// identifier — where each entity's traits keep their own source, availability and locality.
extension BridgeState {
    /// Puts a HA device into the graph as its entities now describe it (or takes it out when it
    /// has none left).
    mutating func registerHomeAssistantDevice(_ own: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard let source = homeAssistant, let runtime = haDevices[own] else { return }
        let entities = runtime.entityKeys.compactMap { haEntities[$0] }
        if entities.isEmpty {
            setHomeAssistantTarget(own, nil)
            haDevices.removeValue(forKey: own)
            if let target = runtime.target {
                reattachHomeAssistant(to: target, now: now, effects: &effects)
            } else if let device = graph.devices[own] {
                removeFromGraph(own, effects: &effects)
                effects.log(.info, "removed device \(device.name): its Home Assistant discovery configs were cleared", ["tb.device.id": own.rawValue])
            }
            return
        }
        let device: Device
        do {
            device = try source.device(id: own, entities: entities)
        } catch {
            effects.log(.warning, "rejected Home Assistant device \(own): \(error)", ["tb.device.id": own.rawValue])
            return
        }
        if let target = runtime.target ?? mergeTarget(for: device) {
            setHomeAssistantTarget(own, target)
            if let standalone = graph.devices[own] {
                // It was alone until the other source's device appeared: its values come along.
                mergedValues[target, default: []].append(standalone)
                removeFromGraph(own, effects: &effects)
                effects.log(.info, "merged Home Assistant device \(standalone.name) into \(graph.devices[target]?.name ?? target.rawValue): same identity", ["tb.device.id": target.rawValue])
            }
            reattachHomeAssistant(to: target, now: now, effects: &effects)
            return
        }
        upsertSourceDevice(device, family: HADiscoverySource.family, effects: &effects)
        if let area = entities.compactMap(\.deviceRef.suggestedArea).first { placeInSuggestedArea(own, area, effects: &effects) }
        storeAndPublish(own, now: now, effects: &effects)
    }

    /// A device of another source for the same physical device, if there is one.
    private func mergeTarget(for device: Device) -> DeviceID? {
        let others: Set<String> = [HADiscoverySource.family, GoogleC2C.family, GenericPlugin.family]
        return graph.devices(sharingIdentityWith: device.identity).first { id in
            guard id != device.id, let candidate = graph.devices[id] else { return false }
            return candidate.sources.contains { !others.contains($0.family) } && candidate.identity.matches(device.identity)
        }
    }

    /// Points a HA device at the device it is merged into (nil: it stands alone), keeping
    /// `haMergedInto` in step.
    mutating func setHomeAssistantTarget(_ own: DeviceID, _ target: DeviceID?) {
        if let old = haDevices[own]?.target {
            haMergedInto[old]?.remove(own)
            if haMergedInto[old]?.isEmpty == true { haMergedInto.removeValue(forKey: old) }
        }
        haDevices[own]?.target = target
        if let target, haDevices[own] != nil { haMergedInto[target, default: []].insert(own) }
    }

    /// The HA devices merged into `target`, in a stable order.
    func homeAssistantDevices(mergedInto target: DeviceID) -> [DeviceID] {
        (haMergedInto[target] ?? []).sorted()
    }

    /// A device of another source was added or changed: standalone HA devices with the same
    /// identity move into it (called from `upsertSourceDevice`, before `attachHomeAssistant`).
    mutating func mergeHomeAssistant(into device: Device, effects: inout BridgeEffects) {
        guard homeAssistant != nil, device.sources.contains(where: { $0.family != HADiscoverySource.family && $0.family != GoogleC2C.family && $0.family != GenericPlugin.family }) else { return }
        for own in graph.devices(sharingIdentityWith: device.identity) where own != device.id {
            guard let runtime = haDevices[own], runtime.target == nil else { continue }
            guard let standalone = graph.devices[own], standalone.identity.matches(device.identity) else { continue }
            setHomeAssistantTarget(own, device.id)
            mergedValues[device.id, default: []].append(standalone)
            removeFromGraph(own, effects: &effects)
            effects.log(.info, "merged Home Assistant device \(standalone.name) into \(device.name): same identity", ["tb.device.id": device.id.rawValue])
        }
    }

    /// Adds the device types of every HA device merged into `device`, keys renamed on a clash,
    /// values kept from where they were (the device itself, or the standalone device just merged).
    mutating func attachHomeAssistant(to device: inout Device) {
        guard let source = homeAssistant, !haDevices.isEmpty else { return }
        let previous = graph.devices[device.id]
        // Only the HA devices merged into this one, in a stable order (no sort of all of them per upsert).
        for own in homeAssistantDevices(mergedInto: device.id) {
            guard let runtime = haDevices[own], let haDevice = try? source.device(id: own, entities: runtime.entityKeys.compactMap { haEntities[$0] }) else { continue }
            var keyMap: [String: String] = [:]
            for var type in haDevice.deviceTypes {
                let original = type.key
                var key = runtime.keyMap[original] ?? original
                while let existing = device.deviceType(key: key), existing.traits.first?.source?.family != HADiscoverySource.family || keyMap.values.contains(key) {
                    key = "ha-" + key
                }
                device.removeDeviceType(key: key)
                type.key = key
                if device.deviceTypes.contains(where: \.isPrimaryType) { type.isPrimaryType = false }
                let holders = [previous].compactMap { $0 } + (mergedValues[device.id] ?? []).filter { $0.id == own }
                for index in type.traits.indices {
                    let traitID = type.traits[index].traitID
                    for holder in holders {
                        let address = TraitAddress(deviceTypeKey: holder.id == own ? original : key, traitID: traitID)
                        guard let old = holder.trait(at: address), old.source?.family == HADiscoverySource.family else { continue }
                        type.traits[index].attributes = old.attributes
                        type.traits[index].lastUpdated = old.lastUpdated
                        type.traits[index].connectivity = old.connectivity
                    }
                }
                try? device.addDeviceType(type)
                keyMap[original] = key
            }
            for reference in haDevice.sources where !device.sources.contains(reference) { device.sources.append(reference) }
            for other in haDevice.identity.otherDeviceIDs where !device.identity.otherDeviceIDs.contains(other) { device.identity.otherDeviceIDs.append(other) }
            haDevices[own]?.keyMap = keyMap
        }
    }

    /// Rebuilds the HA part of a merged device after its entities changed.
    mutating func reattachHomeAssistant(to target: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard var device = graph.devices[target] else { return }
        let entityKeys = Set(haEntities.keys)
        for type in device.deviceTypes where type.traits.first?.source?.family == HADiscoverySource.family {
            device.removeDeviceType(key: type.key)
        }
        device.sources.removeAll { $0.family == HADiscoverySource.family && !(haEntityBySource[$0.nativeID].map(entityKeys.contains) ?? false) }
        attachHomeAssistant(to: &device)
        mergedValues.removeValue(forKey: target)
        try? graph.updateDevice(device)
        storeAndPublish(target, now: now, effects: &effects)
    }

    /// The device HA devices were merged into is gone: they stand alone again.
    mutating func detachHomeAssistant(from id: DeviceID, now: Date, effects: inout BridgeEffects) {
        for own in homeAssistantDevices(mergedInto: id) {
            setHomeAssistantTarget(own, nil)
            haDevices[own]?.keyMap = [:]
            registerHomeAssistantDevice(own, now: now, effects: &effects)
        }
    }

    /// HA's `suggested_area`: the device goes to that room of its home (made if needed), once —
    /// a device the user already placed stays where it is.
    mutating func placeInSuggestedArea(_ id: DeviceID, _ area: String, effects: inout BridgeEffects) {
        guard let device = graph.devices[id], device.roomID == nil, let homeID = device.homeID else { return }
        // HA areas are often written as ids (`living_room`): a room name has spaces instead.
        let area = String(area.map { $0 == "_" || $0 == "-" ? " " : $0 })
        do {
            try graph.assignDevice(id, to: graph.room(named: area, addingTo: homeID))
        } catch {
            effects.log(.notice, "suggested_area '\(area)' is not a valid room name: \(error)", ["tb.device.id": id.rawValue])
        }
    }
}
