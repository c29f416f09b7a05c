import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeStore

extension BridgeState {
    /// Recomputes every device (after a broker or source-bridge change).
    mutating func refreshAll(now: Date, effects: inout BridgeEffects) {
        for id in graph.devices.keys.sorted() {
            refresh(id, now: now, effects: &effects)
            performSliceIfDue(&effects)
        }
    }

    /// Re-derives the device's trait connectivity from the chain and publishes its state (and
    /// description) when its bytes differ (by hash) from what was last published.
    /// `description`: the device's description and its hash when the caller just made them (they cost as
    /// much as the rest).
    mutating func refresh(
        _ id: DeviceID, now: Date, effects: inout BridgeEffects, republishDescription: Bool = false,
        valuesChanged: Bool = true,
        description precomputed: (bytes: [UInt8], hash: Int)? = nil
    ) {
        guard !published.isWaiting(id), let references = graph.readDevice(id, { $0.sources }) else { return }
        var connectivityChanged = false
        for source in references.isEmpty ? [nil] : references.map(Optional.some) {
            // Cloud traits keep what the cloud last said (SYNC: unknown; QUERY: its answer).
            if CloudImport.feeds(source) { continue }
            let resolved: TraitConnectivity
            if let source, let known = directory[source] {
                // Its plug-in's chain: the source bridge (if it has one) and the device's (or entity's) own word.
                resolved = ConnectivityChain.resolve(
                    broker: sources.broker, brokerURL: configuration.brokerDescription,
                    sourceBridge: sources.sourceLink(known.plugin),
                    device: known.liveness, locality: known.locality, now: now)
            } else if let source, let index = sources.index(of: source) {
                // Restored from the registry, not described again yet.
                resolved = ConnectivityChain.resolve(
                    broker: sources.broker, brokerURL: configuration.brokerDescription,
                    sourceBridge: sources.sourceLink(index),
                    device: DeviceLiveness(stalenessBudget: sources[index].staleness),
                    locality: sources[index].locality, now: now)
            } else {
                // A device the registry restored whose source is not configured now.
                let live = DeviceLiveness(stalenessBudget: .seconds(600))
                resolved = ConnectivityChain.resolve(
                    broker: sources.broker, brokerURL: configuration.brokerDescription, sourceBridge: LinkState(),
                    device: live, locality: .localPeer, now: now)
            }
            let changed =
                (try? graph.modifyDevice(id) { device in
                    device.setConnectivity(
                        resolved.state, locality: resolved.locality, reason: resolved.reason ?? .neverHeard,
                        forTraitsOf: references.count > 1 ? source : nil, time: resolved.since ?? now)
                }) ?? false
            connectivityChanged = connectivityChanged || changed
            if changed && configuration.recordsHistory {
                recordConnectivity(of: id, forTraitsOf: references.count > 1 ? source : nil, effects: &effects)
            }
        }
        guard sources.broker.status == .up else { return }
        let known = published[id]  // one lookup for what was published and when the values last changed
        if valuesChanged || connectivityChanged || known?.publishedState == nil {
            let lastUpdate = known?.lastUpdate
            guard let state = graph.readDevice(id, { DevicePayloads.state(of: $0, lastUpdate: lastUpdate) }) else {
                return
            }
            let hash = DeviceRuntime.hash(state)
            if published.publishState(id, hash: hash, known: known) {
                effects.publish(stateTopic(id), state, retain: true)
                effects.changedStates.append(id)
                if layout.hasGroups { refreshGroups(of: id, effects: &effects) }
                automationsDeviceChanged(id, now: now, effects: &effects)
            }
        }
        if republishDescription || known?.publishedDescription == nil {
            let description = precomputed?.bytes ?? descriptionPayload(id)
            let hash = precomputed?.hash ?? DeviceRuntime.hash(description)
            if published.publishDescription(id, hash: hash) {
                effects.publish(descriptionTopic(id), description, retain: true)
                effects.changedDescriptions.append(id)
                exportToHomeAssistant(id, now: now, effects: &effects)
            }
        }
    }

    func descriptionPayload(_ id: DeviceID) -> [UInt8] {
        var unused: [TraitAddress: TraitFeed] = [:]
        return descriptionPayload(id, feeds: &unused)
    }

    /// The description, and in `feeds` what each trait's source feeds and accepts as it says.
    func descriptionPayload(_ id: DeviceID, feeds: inout [TraitAddress: TraitFeed]) -> [UInt8] {
        guard let device = graph.devices[id] else { return [] }
        let home = device.homeID.flatMap { graph.home($0) }
        let room = graph.room(of: id)
        // Each trait's bindings are asked for twice (attributes, then commands): looked up once.
        var last: (address: TraitAddress, bindings: [SourceBinding]?)?
        func bindings(_ address: TraitAddress) -> [SourceBinding]? {
            if let last, last.address == address { return last.bindings }
            let found = sourceBindings(of: device, at: address)
            last = (address, found)
            return found
        }
        return DevicePayloads.descriptionBytes(
            of: device, homeName: home?.name, roomName: room?.name,
            zoneNames: room.map { room in home?.zones.filter { $0.roomIDs.contains(room.id) }.map(\.name) ?? [] } ?? [],
            catalog: catalog,
            fedAttributes: { address in
                let attributes = fedAttributes(device, at: address, bindings: bindings(address))
                feeds[address, default: TraitFeed(attributes: [], commands: [])].attributes = attributes
                return attributes
            },
            commands: { address in
                let commands = acceptedCommands(device, at: address, bindings: bindings(address))
                feeds[address, default: TraitFeed(attributes: [], commands: [])].commands = commands
                return commands
            })
    }

    /// The attributes a trait's source feeds, with their metadata: what its bindings declare, else
    /// what the registry said before a restart, else the catalog's metadata of the values it holds.
    func fedAttributes(_ device: Device, at address: TraitAddress, bindings: [SourceBinding]?) -> [(
        name: String, metadata: AttributeMetadata
    )] {
        if let bindings { return Self.deviceMetadata(bindings) }
        if let restored = published[device.id]?.restoredFeeds?[address] { return restored.attributes }
        let names = device.trait(at: address).map { Array($0.attributes.keys).sorted() } ?? []
        return names.compactMap { name in (try? catalog.attributeMetadata(address.traitID, name)).map { (name, $0) } }
    }

    /// The unified commands a trait accepts through its source: the catalog's command rules whose
    /// writes its bindings can all make (or, restored, what the registry said).
    func acceptedCommands(_ device: Device, at address: TraitAddress, bindings: [SourceBinding]?) -> [String] {
        guard let bindings else { return published[device.id]?.restoredFeeds?[address]?.commands ?? [] }
        let writable = Set(bindings.filter(\.isWritable).map(\.attribute))
        return (catalog.commandRulesByTrait[address.traitID] ?? []).filter { (command: CommandRule) -> Bool in
            command.unsupportedReason == nil
                && (command.sets.allSatisfy { writable.contains($0.attribute) }
                    && (!command.sets.isEmpty || command.toggles.map(writable.contains) == true))
        }.map(\.command)
    }

    /// The bindings the plug-in feeding a trait declares for it, when it knows the device's own limits.
    /// A member joined to another source's device (a Home Assistant entity on a zigbee2mqtt bulb) is
    /// known to its plug-in by its own id and device type key.
    func sourceBindings(of device: Device, at address: TraitAddress) -> [SourceBinding]? {
        guard let reference = device.trait(at: address)?.source, let index = sources.index(of: reference) else {
            return nil
        }
        if let bindings = sources[index].bindings(of: device.id, at: address) { return bindings }
        guard let member = directory[reference]?.owner, member != device.id,
            let joined = directory[member]
        else { return nil }
        let key = joined.keyMap.first { $0.value == address.deviceTypeKey }?.key ?? address.deviceTypeKey
        return sources[index].bindings(of: member, at: TraitAddress(deviceTypeKey: key, traitID: address.traitID))
    }

    /// The metadata of the attributes a device feeds, narrowed to what the device itself declares:
    /// a bulb that does 250…454 mireds says so, not the cluster's 0…65279.
    static func deviceMetadata(_ bindings: some Sequence<SourceBinding>) -> [(
        name: String, metadata: AttributeMetadata
    )] {
        var result: [String: AttributeMetadata] = [:]
        for binding in bindings {
            var metadata = result[binding.attribute] ?? binding.metadata
            if let range = binding.sourceRange,
                let low = binding.modelValue(from: .double(range.lowerBound))?.numericValue,
                let high = binding.modelValue(from: .double(range.upperBound))?.numericValue
            {
                metadata.minimum = max(metadata.minimum ?? -.infinity, min(low, high))
                metadata.maximum = min(metadata.maximum ?? .infinity, max(low, high))
            }
            if !binding.isWritable { metadata.isWritable = false }
            result[binding.attribute] = metadata
        }
        return result.keys.sorted().map { ($0, result[$0]!) }
    }

    /// A device changed shape or place: its registry row, then its state and description on the
    /// broker (the description made once for both, and compared by hash with what the row holds).
    /// Returns whether the row changed (a device described again as it was writes nothing).
    @discardableResult
    mutating func storeAndPublish(_ id: DeviceID, now: Date, effects: inout BridgeEffects) -> Bool {
        if published.descriptionWaits(id) { return false }
        published.descriptionMade(id)
        var feeds: [TraitAddress: TraitFeed] = [:]
        let description = descriptionPayload(id, feeds: &feeds)
        let hash = DeviceRuntime.hash(description)
        let changed = published.storeDescription(id, hash: hash)
        if changed {
            effects.storeChanges.append(.upsert(record(for: id, feeds: feeds)))
        }
        refresh(id, now: now, effects: &effects, republishDescription: true, description: (description, hash))
        return changed
    }

    /// The registry record of a device: the device as the graph holds it, and per trait what its
    /// source feeds and accepts (`feeds`, when its description was just made; else asked again).
    func record(for id: DeviceID, feeds: [TraitAddress: TraitFeed] = [:]) -> DeviceRecord {
        guard let device = graph.devices[id] else { return DeviceRecord(id: id, name: id.rawValue, sources: []) }
        let types = device.deviceTypes.map { type in
            StoredDeviceType(
                key: type.key, type: type.typeID, isPrimaryType: type.isPrimaryType,
                traits: type.traits.map { trait in
                    let address = TraitAddress(deviceTypeKey: type.key, traitID: trait.traitID)
                    let feed =
                        feeds[address]
                        ?? {
                            let bindings = sourceBindings(of: device, at: address)
                            return TraitFeed(
                                attributes: fedAttributes(device, at: address, bindings: bindings),
                                commands: acceptedCommands(device, at: address, bindings: bindings))
                        }()
                    return StoredTrait(
                        id: trait.traitID, source: trait.source,
                        attributes: DevicePayloads.attributesText(feed.attributes), commands: feed.commands)
                })
        }
        return DeviceRecord(
            id: id, name: device.name, roomName: graph.room(of: id).flatMap { $0.isDefault ? nil : $0.name },
            identity: device.identity, info: device.info, isMatterDevice: device.isMatterDevice,
            sources: device.sources, types: types)
    }
}
