import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// A device a plug-in described, as it described it (no values), and where its traits are.
struct SourceMember: Sendable {
    var plugin: Int
    var described: SourceDevice
    /// The graph device its traits are on: its own id (a device of its own, or one standing
    /// alone), another source's device it joined, or nil (waiting for its `mergeWith` target).
    var target: DeviceID?
    /// Its device type keys → their keys on the device it joined (renamed where taken).
    var keyMap: [String: String] = [:]

    var id: DeviceID { described.device.id }
    var references: [SourceReference] { described.device.sources }
}

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
        let old = members[id]
        let references = Set(described.device.sources)
        for reference in old?.references ?? []
        where self.references[reference]?.owner == id && !references.contains(reference) {
            self.references.removeValue(forKey: reference)  // an entity it no longer has
        }
        members[id] = SourceMember(
            plugin: plugin, described: described, target: old?.target, keyMap: old?.keyMap ?? [:])
        let locality = described.locality ?? plugins[plugin].locality
        for reference in described.device.sources {
            var known =
                self.references[reference]
                ?? ReferenceRuntime(
                    plugin: plugin, owner: id, locality: locality,
                    liveness: DeviceLiveness(stalenessBudget: described.stalenessBudget))
            known.plugin = plugin
            known.owner = id
            known.locality = locality
            self.references[reference] = known
        }
        place(id, now: now, effects: &effects)
    }

    /// Decides (again) where a member's traits go, and rebuilds that device.
    private mutating func place(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard let member = members[id] else { return }
        switch member.described.joining {
        case .owns:
            setTarget(id, id)
            let pulled = pullJoiners(into: id, effects: &effects)
            compose(id, now: now, effects: &effects)
            for other in pulled { replayWaiting(other, now: now, effects: &effects) }
        case .sameIdentity:
            let current = member.target.flatMap { $0 != id && graph.devices[$0] != nil ? $0 : nil }
            if let target = current ?? owner(sharingIdentityWith: member.described.device) {
                if let standalone = graph.devices[id] { moveIn(standalone, to: target, effects: &effects) }
                setTarget(id, target)
                compose(target, now: now, effects: &effects)
            } else {
                setTarget(id, id)
                compose(id, now: now, effects: &effects)
            }
        case .device(let target):
            guard target != id, graph.hasDevice(target), isOwner(target) else {
                setTarget(id, nil)  // waits for its target; messages meanwhile are kept
                return
            }
            setTarget(id, target)
            compose(target, now: now, effects: &effects)
        }
        replayWaiting(id, now: now, effects: &effects)
    }

    /// Points a member at the device its traits are on, keeping `joined` and `waiting` in step.
    private mutating func setTarget(_ id: DeviceID, _ target: DeviceID?) {
        guard var member = members[id] else { return }
        if let old = member.target, old != id, old != target {
            joined[old]?.remove(id)
            if joined[old]?.isEmpty == true { joined.removeValue(forKey: old) }
        }
        if case .device(let wanted) = member.described.joining {
            if target == nil { waitingFor[wanted, default: []].insert(id) } else { waitingFor[wanted]?.remove(id) }
        }
        if target != member.target { member.keyMap = [:] }
        member.target = target
        members[id] = member
        if let target, target != id { joined[target, default: []].insert(id) }
    }

    /// A device of its own: where devices of joining sources can go.
    func isOwner(_ id: DeviceID) -> Bool {
        if let member = members[id] { return member.described.joining == .owns }
        // A device the registry restored, before its source describes it again.
        return graph.devices[id]?.sources.contains { reference in
            pluginIndex(of: reference).map { !plugins[$0].joinsOtherDevices } ?? false
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
        guard let device = members[id]?.described.device else { return [] }
        let waiting = (waitingFor[id] ?? []).sorted()
        for other in graph.devices(sharingIdentityWith: device.identity) where other != id {
            guard let member = members[other], member.described.joining == .sameIdentity, member.target == other,
                let standalone = graph.devices[other], standalone.identity.matches(device.identity)
            else { continue }
            moveIn(standalone, to: id, effects: &effects)
            setTarget(other, id)
        }
        for other in waiting { setTarget(other, id) }
        return waiting
    }

    /// A device standing alone joins `target`: its values come along, its own device goes.
    private mutating func moveIn(_ standalone: Device, to target: DeviceID, effects: inout BridgeEffects) {
        carried[target, default: []].append(standalone)
        removeFromGraph(standalone.id, effects: &effects)
        let name = graph.devices[target]?.name ?? members[target]?.described.device.name ?? target.rawValue
        effects.log(.info, "merged \(standalone.name) into \(name): same identity", ["tb.device.id": target.rawValue])
    }

    /// Rebuilds a graph device from its own description and the members joined to it.
    mutating func compose(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        let previous = graph.devices[id]
        let own = members[id].flatMap { $0.target == id ? $0.described : nil }
        guard var device = own?.device ?? previous.map(withoutJoinedTypes) else { return }
        let family = members[id].map { plugins[$0.plugin].family } ?? device.sources.first?.family ?? ""
        for other in (joined[id] ?? []).sorted() { attach(other, to: &device) }
        attachCloud(to: &device, effects: &effects)
        // Values, last updates and connectivity: from the device as it was, and from any that just moved in.
        let holders = [previous].compactMap { $0 } + (carried.removeValue(forKey: id) ?? [])
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
            runtime[id, default: DeviceRuntime()].sourceName = own.device.name
            runtime[id]?.restoredFeeds = nil  // its source says again what it feeds
        }
        if previous == nil {
            try? graph.addDevice(device)
            effects.log(.info, "added device \(device.name)", ["tb.device.id": id.rawValue, "tb.source": family])
            if let area = own?.suggestedArea, members[id]?.described.joining != .owns {
                placeInSuggestedArea(id, area, effects: &effects)
            }
        } else {
            try? graph.updateDevice(device)
        }
        applyPlacement(id, effects: &effects)
        // Said only of a device that changed: a restart's sources describe every device again.
        if storeAndPublish(id, now: now, effects: &effects), previous != nil {
            effects.log(.info, "updated device \(device.name)", ["tb.device.id": id.rawValue, "tb.source": family])
        }
    }

    /// Adds a joined member's device types to `device`, each key renamed while it is taken.
    private mutating func attach(_ id: DeviceID, to device: inout Device) {
        guard var member = members[id] else { return }
        let prefix =
            member.described.keyPrefix.isEmpty ? plugins[member.plugin].family + "-" : member.described.keyPrefix
        var keyMap: [String: String] = [:]
        for var type in member.described.device.deviceTypes {
            let original = type.key
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
        member.keyMap = keyMap
        members[id] = member
    }

    /// The address a trait of `target` had on the standalone device `holder` (a member that moved in).
    private func originalAddress(_ address: TraitAddress, on target: DeviceID, in holder: DeviceID) -> TraitAddress? {
        guard let member = members[holder], member.target == target,
            let original = member.keyMap.first(where: { $0.value == address.deviceTypeKey })?.key
        else { return nil }
        return TraitAddress(deviceTypeKey: original, traitID: address.traitID)
    }

    /// A restored device without the types joined members put on it (they are attached again).
    private func withoutJoinedTypes(_ device: Device) -> Device {
        var device = device
        let joinedReferences = Set((joined[device.id] ?? []).flatMap { members[$0]?.references ?? [] })
        for type in device.deviceTypes
        where type.traits.contains(where: { $0.source.map(joinedReferences.contains) ?? false }) {
            device.removeDeviceType(key: type.key)
        }
        return device
    }

    /// A member is gone from its source. A device of its own leaves the graph and what joined it
    /// stands alone again (or waits); a joined one leaves the device it was on.
    mutating func removeMember(_ id: DeviceID, reason: String, family: String, now: Date, effects: inout BridgeEffects)
    {
        guard let member = members[id] else { return }
        setTarget(id, nil)
        members.removeValue(forKey: id)
        if case .device(let wanted) = member.described.joining { waitingFor[wanted]?.remove(id) }
        waitingTopics.removeValue(forKey: id)
        for reference in member.references where references[reference]?.owner == id {
            references.removeValue(forKey: reference)
        }
        if member.target == id {
            let name = graph.devices[id]?.name ?? member.described.device.name
            removeFromGraph(id, effects: &effects)
            effects.log(.info, "removed device \(name): \(reason)", ["tb.device.id": id.rawValue, "tb.source": family])
            for other in (joined.removeValue(forKey: id) ?? []).sorted() {
                members[other]?.target = nil
                members[other]?.keyMap = [:]
                place(other, now: now, effects: &effects)
            }
        } else if let target = member.target {
            compose(target, now: now, effects: &effects)
        }
    }

    /// Messages a member's values came in before its device existed: handled now.
    private mutating func replayWaiting(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard members[id]?.target != nil, let topics = waitingTopics.removeValue(forKey: id) else { return }
        for topic in topics.sorted() {
            guard var payload = takePending(topic) else { continue }
            _ = deliverToSource(topic: topic, payload: &payload, now: now, effects: &effects)
        }
    }

    /// Values a member's message carried, on the device its traits are on (keys as renamed there).
    mutating func memberValues(
        _ id: DeviceID, _ updates: [AttributeUpdate], isNews: Bool, topic: String, payload: [UInt8], now: Date,
        effects: inout BridgeEffects
    ) {
        guard let member = members[id] else { return }
        guard let target = member.target, graph.hasDevice(target) else {
            keepPending(topic: topic, payload: payload, effects: &effects)  // its device is not there yet
            waitingTopics[id, default: []].insert(topic)
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

    /// What a source reference's own availability word said.
    mutating func referenceAvailability(
        _ reference: SourceReference, isOnline: Bool?, plugin: Int, topic: String, isTopic: Bool = true, now: Date,
        effects: inout BridgeEffects
    ) {
        let status: LinkState.Status = isOnline.map { $0 ? .up : .down } ?? .unknown
        guard references[reference]?.liveness.availability.status != status else { return }
        if references[reference] == nil {
            // Its device is not described yet (a Shelly's `online` came first): kept for when it is.
            references[reference] = ReferenceRuntime(
                plugin: plugin, owner: nil, locality: plugins[plugin].locality,
                liveness: DeviceLiveness(stalenessBudget: plugins[plugin].staleness))
        }
        references[reference]?.liveness.availability = LinkState(
            status: status, since: now, origin: topic, originIsTopic: isTopic)
        if let target = references[reference]?.owner.flatMap({ members[$0]?.target }) {
            refresh(target, now: now, effects: &effects)
        }
    }

    /// A room the source suggests (HA's `suggested_area`): the device goes there, once — a device
    /// the user already placed stays where it is.
    mutating func placeInSuggestedArea(_ id: DeviceID, _ area: String, effects: inout BridgeEffects) {
        guard let device = graph.devices[id], device.roomID == nil, let homeID = device.homeID else { return }
        // HA areas are often written as ids (`living_room`): a room name has spaces instead.
        let area = String(area.map { $0 == "_" || $0 == "-" ? " " : $0 })
        do {
            try graph.assignDevice(id, to: graph.room(named: area, addingTo: homeID))
        } catch {
            effects.log(
                .notice, "suggested_area '\(area)' is not a valid room name: \(error)", ["tb.device.id": id.rawValue])
        }
    }
}
