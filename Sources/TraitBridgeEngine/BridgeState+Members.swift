import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// One way for every source to put devices into the home graph: a device of its own, or joined
/// to the device another source has for the same physical device (by identity, through the
/// graph's identity index, or by an explicit target). Values, last updates and connectivity of
/// traits that stay are kept; a device that moves in brings its values along.
extension BridgeState {
    /// A device its source described: kept as a member, then into the graph where it belongs.
    mutating func describe(_ described: SourceDevice, plugin: Int, now: Date, effects: inout BridgeEffects) {
        let id = described.device.id
        if !described.traitDefinitions.isEmpty || !described.deviceTypeDefinitions.isEmpty {
            catalog.addDiscovered(traits: described.traitDefinitions, deviceTypes: described.deviceTypeDefinitions)
        }
        directory.record(described, plugin: plugin, locality: described.locality ?? sources[plugin].locality)
        place(id, now: now, effects: &effects)
        let target = directory.target(of: id) ?? id
        if described.liveViewEndpoint != commands.liveViews.endpoint(of: target) {
            commands.liveViews.setEndpoint(described.liveViewEndpoint, for: target)
        }
    }

    /// Decides (again) where a member's traits go, and rebuilds that device.
    private mutating func place(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard let member = directory[id] else { return }
        switch member.described.joining {
        case .owns:
            directory.setTarget(id, id)
            let pulled = pullJoiners(into: id, effects: &effects)
            compose(id, now: now, effects: &effects)
            for other in pulled { replayWaiting(other, now: now, effects: &effects) }
        case .sameIdentity:
            let current = member.target.flatMap { $0 != id && graph.devices[$0] != nil ? $0 : nil }
            if let target = current ?? owner(sharingIdentityWith: member.described.device) {
                if let standalone = graph.devices[id] { moveIn(standalone, to: target, effects: &effects) }
                directory.setTarget(id, target)
                compose(target, now: now, effects: &effects)
            } else {
                directory.setTarget(id, id)
                compose(id, now: now, effects: &effects)
            }
        case .device(let target):
            guard target != id, graph.hasDevice(target), isOwner(target) else {
                directory.setTarget(id, nil)  // waits for its target; messages meanwhile are kept
                return
            }
            directory.setTarget(id, target)
            compose(target, now: now, effects: &effects)
        }
        replayWaiting(id, now: now, effects: &effects)
    }

    /// A device of its own: where devices of joining sources can go.
    func isOwner(_ id: DeviceID) -> Bool {
        if let member = directory[id] { return member.described.joining == .owns }
        // A device the registry restored, before its source describes it again.
        return graph.devices[id]?.sources.contains { reference in
            sources.index(of: reference).map { !sources[$0].joinsOtherDevices } ?? false
        } ?? false
    }

    /// Another source's device for the same physical device (the graph's identity index).
    private func owner(sharingIdentityWith device: Device) -> DeviceID? {
        graph.devices(sharingIdentityWith: device.identity).first { id in
            id != device.id && isOwner(id) && graph.devices[id]?.identity.matches(device.identity) == true
        }
    }

    /// A device of its own just appeared or changed: joiners standing alone with its identity,
    /// and those waiting for it by name, move in.
    private mutating func pullJoiners(into id: DeviceID, effects: inout BridgeEffects) -> [DeviceID] {
        guard let device = directory[id]?.described.device else { return [] }
        let waiting = directory.waiting(for: id)
        for other in graph.devices(sharingIdentityWith: device.identity) where other != id {
            guard let member = directory[other], member.described.joining == .sameIdentity, member.target == other,
                let standalone = graph.devices[other], standalone.identity.matches(device.identity)
            else { continue }
            moveIn(standalone, to: id, effects: &effects)
            directory.setTarget(other, id)
        }
        for other in waiting { directory.setTarget(other, id) }
        return waiting
    }

    /// A device standing alone joins `target`: its values come along, its own device goes.
    private mutating func moveIn(_ standalone: Device, to target: DeviceID, effects: inout BridgeEffects) {
        directory.carry(standalone, into: target)
        removeFromGraph(standalone.id, effects: &effects)
        let name = graph.devices[target]?.name ?? directory[target]?.described.device.name ?? target.rawValue
        effects.log(.info, "merged \(standalone.name) into \(name): same identity", ["tb.device.id": target.rawValue])
    }

    /// Rebuilds a graph device from its own description and the members joined to it.
    mutating func compose(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        let previous = graph.devices[id]
        let own = directory[id].flatMap { $0.target == id ? $0.described : nil }
        guard var device = own?.device ?? previous.map(withoutJoinedTypes) else { return }
        let family = sourceFamily(id, device)
        for other in directory.joined(to: id) { attach(other, to: &device) }
        attachCloud(to: &device, effects: &effects)
        // Values, last updates and connectivity: from the device as it was, and from any that just moved in.
        let holders = [previous].compactMap { $0 } + directory.takeCarried(into: id)
        for address in device.traitAddresses {
            let source = device.trait(at: address)?.source
            for holder in holders {
                let origin = holder.id == id ? address : originalAddress(address, on: id, in: holder.id)
                guard let origin, let old = holder.trait(at: origin), old.source == source else { continue }
                try? device.modifyTrait(at: address) {
                    $0.attributes = old.attributes
                    $0.lastUpdated = old.lastUpdated
                    $0.connectivity = old.connectivity
                }
            }
        }
        if own?.keepsName == true, let previous { device.name = previous.name }
        if let own {
            published.described(id, sourceName: own.device.name)  // its source says again what it feeds
        }
        if previous == nil {
            try? graph.addDevice(device)
            effects.log(.info, "added device \(device.name)", ["tb.device.id": id.rawValue, "tb.source": family])
            if let area = own?.suggestedArea, directory[id]?.described.joining != .owns {
                placeInSuggestedArea(id, area, effects: &effects)
            }
        } else {
            try? graph.updateDevice(device)
        }
        applyPlacement(id, effects: &effects)
        // Said only of a device that changed: a restart's sources describe every device again.
        if storeAndPublish(id, now: now, effects: &effects), previous != nil {
            logUpdated(id, effects: &effects)
        } else if previous != nil, published.isWaiting(id) {
            published.heldWasKnown(id)  // said when released, if it changed
        }
    }

    /// "updated device": a device the graph held changed shape.
    mutating func logUpdated(_ id: DeviceID, effects: inout BridgeEffects) {
        guard let device = graph.devices[id] else { return }
        let family = sourceFamily(id, device)
        effects.log(.info, "updated device \(device.name)", ["tb.device.id": id.rawValue, "tb.source": family])
    }

    /// The family a device's log lines name: its own source's, else its first source's.
    private func sourceFamily(_ id: DeviceID, _ device: Device) -> String {
        directory[id].map { sources[$0.plugin].family } ?? device.sources.first?.family ?? ""
    }

    /// Adds a joined member's device types to `device`, each key renamed while it is taken.
    private mutating func attach(_ id: DeviceID, to device: inout Device) {
        guard let member = directory[id] else { return }
        let prefix =
            member.described.keyPrefix.isEmpty ? sources[member.plugin].family + "-" : member.described.keyPrefix
        var keyMap: [String: String] = [:]
        for var type in member.described.device.deviceTypes {
            let original = type.key
            if member.described.joinsTypes.contains(original) {
                // Its traits join the target's type of the same key and type (a camera's settings).
                if device.deviceType(key: original)?.typeID == type.typeID {
                    for trait in type.traits { device.addTrait(trait, toDeviceType: original) }
                    keyMap[original] = original
                }
                continue
            }
            var key = member.keyMap[original] ?? original
            while device.deviceType(key: key) != nil { key = prefix + key }
            type.key = key
            if device.deviceTypes.contains(where: \.isPrimaryType) { type.isPrimaryType = false }
            try? device.addDeviceType(type)
            keyMap[original] = key
        }
        for reference in member.references where !device.sources.contains(reference) {
            device.sources.append(reference)
        }
        for other in member.described.device.identity.otherDeviceIDs
        where !device.identity.otherDeviceIDs.contains(other) {
            device.identity.otherDeviceIDs.append(other)
        }
        directory.setKeyMap(id, keyMap)
    }

    /// The address a trait of `target` had on the standalone device `holder` (a member that moved in).
    private func originalAddress(_ address: TraitAddress, on target: DeviceID, in holder: DeviceID) -> TraitAddress? {
        guard let member = directory[holder], member.target == target,
            let original = member.keyMap.first(where: { $0.value == address.deviceTypeKey })?.key
        else { return nil }
        return TraitAddress(deviceTypeKey: original, traitID: address.traitID)
    }

    /// A restored device without the types and traits joined members put on it (attached again).
    private func withoutJoinedTypes(_ device: Device) -> Device {
        var device = device
        let joinedReferences = Set(directory.joined(to: device.id).flatMap { directory[$0]?.references ?? [] })
        // A joined member's own types go whole; a type its traits joined keeps the rest.
        device.removeTraits(fedBy: joinedReferences)
        return device
    }

    /// A member is gone from its source. A device of its own leaves the graph and what joined it
    /// stands alone again (or waits); a joined one leaves the device it was on.
    mutating func removeMember(_ id: DeviceID, reason: String, family: String, now: Date, effects: inout BridgeEffects)
    {
        guard let member = directory.remove(id) else { return }
        if member.target == id {
            let name = graph.devices[id]?.name ?? member.described.device.name
            removeFromGraph(id, effects: &effects)
            effects.log(.info, "removed device \(name): \(reason)", ["tb.device.id": id.rawValue, "tb.source": family])
            for other in directory.release(joinedTo: id) { place(other, now: now, effects: &effects) }
        } else if let target = member.target {
            compose(target, now: now, effects: &effects)
        }
    }

    /// Messages a member's values came in before its device existed: handled now.
    private mutating func replayWaiting(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard directory.target(of: id) != nil, let topics = directory.takeWaitingTopics(of: id) else { return }
        for topic in topics.sorted() {
            guard var payload = sources.takePending(topic) else { continue }
            _ = deliverToSource(topic: topic, payload: &payload, isRetained: true, now: now, effects: &effects)
        }
    }

    /// Values a member's message carried, on the device its traits are on (keys as renamed there).
    mutating func memberValues(
        _ id: DeviceID, _ updates: [AttributeUpdate], isNews: Bool, topic: String, payload: [UInt8], now: Date,
        effects: inout BridgeEffects
    ) {
        guard let member = directory[id] else { return }
        guard let target = member.target, graph.hasDevice(target) else {
            keepPending(topic: topic, payload: payload, effects: &effects)  // its device is not there yet
            directory.keepWaiting(topic, for: id)
            return
        }
        var updates = updates
        if target != id {
            for index in updates.indices {
                updates[index].address.deviceTypeKey =
                    member.keyMap[updates[index].address.deviceTypeKey] ?? updates[index].address.deviceTypeKey
            }
        }
        // The references heard from: those of the traits the values went to (nearly always one).
        var seen: [SourceReference] = []
        if member.references.count == 1 {
            if isNews || !updates.isEmpty { seen = member.references }  // a device with one source: no lookup
        } else {
            let device = graph.devices[target]
            if isNews { seen = member.references }
            for update in updates {
                if let source = device?.trait(at: update.address)?.source, !seen.contains(source) {
                    seen.append(source)
                }
            }
        }
        report(updates, on: target, seen: seen, topic: topic, now: now, effects: &effects)
    }

}
