import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeHomeAssistant
import TraitBridgeModel
import TraitBridgeSources

/// Home Assistant MQTT discovery out: every given device's config follows its description (made
/// from the same facts, published when they change), a removed or no longer given device's config is
/// cleared, everything is published again when Home Assistant says it started (its birth message),
/// and a config of ours on the broker that this run did not publish is a leftover and is cleared.
extension BridgeState {
    /// What Home Assistant is given now: devices with a config, and the entities in them.
    public var homeAssistantGiven: (devices: Int, entities: Int) {
        (published.homeAssistant.count, published.homeAssistant.entities)
    }

    /// `<discovery prefix>/status` and our configs, when the export is configured.
    var homeAssistantSubscriptions: [String] {
        guard let discovery = configuration.homeAssistant?.discovery else { return [] }
        return [discovery.statusTopic, discovery.settings.discoveryPrefix + "/device/+/config"]
    }

    /// Handles Home Assistant's status and the bridge's own configs; false for any other topic.
    mutating func handleHomeAssistantMessage(
        topic: String, payload: borrowing [UInt8], isRetained: Bool, now: Date, effects: inout BridgeEffects
    ) -> Bool {
        guard let export = configuration.homeAssistant else { return false }
        let discovery = export.discovery
        if topic == discovery.statusTopic {
            if export.isEnabled, payload.elementsEqual("online".utf8) {
                republishHomeAssistant(now: now, effects: &effects)
                effects.log(
                    .info,
                    "Home Assistant started: its discovery is published again (\(graph.devices.count) devices)",
                    ["tb.mqtt.topic": topic])
            }
            return true
        }
        guard let objectID = discovery.ownObjectID(configTopic: topic) else { return false }
        guard isRetained, !payload.isEmpty else { return true }
        let ours =
            export.isEnabled
            && (objectID == discovery.bridgeObjectID || published.homeAssistant.isPublished(objectID: objectID))
        if !ours {
            effects.publish(topic, [], retain: true, qos: 1)
            effects.log(
                .notice,
                export.isEnabled
                    ? "cleared a Home Assistant discovery config of a device not given to Home Assistant now"
                    : "cleared a Home Assistant discovery config: homeAssistantExport.enabled is false",
                ["tb.mqtt.topic": topic])
        }
        return true
    }

    /// The device's description was published at `now`: its config is made in the next batch
    /// (``publishDueConfigs``); nil (the device is gone): its config is cleared now.
    mutating func exportToHomeAssistant(_ id: DeviceID, now: Date?, effects: inout BridgeEffects) {
        guard let export = configuration.homeAssistant else { return }
        guard let now else {
            publishHomeAssistantConfig(id, now: nil, effects: &effects)
            return
        }
        published.homeAssistant.configLater(id, objectID: export.discovery.objectID(id), now: now)
    }

    /// The configs due at `now` (tick).
    mutating func publishDueConfigs(now: Date, effects: inout BridgeEffects) {
        guard configuration.homeAssistant != nil, sources.broker.status == .up else { return }
        for id in published.homeAssistant.takeDue(now: now) {
            publishHomeAssistantConfig(id, now: now, effects: &effects)
            performSliceIfDue(&effects)
        }
    }

    /// Publishes the device's config when it changed, or clears it when the device is gone or no
    /// longer given. `now`: when the config is published, its state is sent again a little later
    /// (``sendStatesAgain``).
    mutating func publishHomeAssistantConfig(_ id: DeviceID, now: Date?, effects: inout BridgeEffects) {
        guard let export = configuration.homeAssistant else { return }
        let discovery = export.discovery
        var config: (bytes: [UInt8], entities: Int)?
        if export.isEnabled, let device = graph.devices[id], givesHomeAssistant(device, export: export) {
            // A device in its home's default room ("Entire Home") is not placed: no area for Home Assistant.
            let room = graph.room(of: id).flatMap { $0.isDefault ? nil : $0.name }
            config = discovery.deviceConfigCounting(of: device, roomName: room) { address in
                homeAssistantOffer(device, at: address)  // asked once per trait of each device type
            }
        }
        guard let config else {
            if let objectID = published.homeAssistant.remove(id) {
                effects.publish(discovery.configTopic(objectID: objectID), [], retain: true, qos: 1)
            }
            return
        }
        let objectID = discovery.objectID(id)
        if published.homeAssistant.publish(
            id, objectID: objectID, hash: DeviceRuntime.hash(config.bytes), entities: config.entities)
        {
            effects.publish(discovery.configTopic(objectID: objectID), config.bytes, retain: true, qos: 1)
            if let now { published.homeAssistant.restateLater(id, now: now) }
        }
    }

    /// The states of devices whose config was published a moment ago, sent again (retained, as they are):
    /// Home Assistant has made their new entities by now, and an entity that joins a state topic Home
    /// Assistant already reads gets no retained copy of it.
    mutating func sendStatesAgain(now: Date, effects: inout BridgeEffects) {
        guard configuration.homeAssistant != nil, sources.broker.status == .up else { return }
        for id in published.homeAssistant.takeRestates(now: now) {
            let lastUpdate = published[id]?.lastUpdate
            guard let state = graph.readDevice(id, { DevicePayloads.state(of: $0, lastUpdate: lastUpdate) }) else {
                continue
            }
            _ = published.publishState(id, hash: DeviceRuntime.hash(state), known: published[id])
            effects.publish(stateTopic(id), state, retain: true)
            performSliceIfDue(&effects)
        }
    }

    /// The bridge's own device (its connectivity, device count and the homes' scenes), when changed.
    mutating func exportBridgeToHomeAssistant(effects: inout BridgeEffects) {
        guard let export = configuration.homeAssistant, export.isEnabled, sources.broker.status == .up else { return }
        let scenes = graph.homes.flatMap { home in
            home.scenes.map {
                HomeAssistantDiscovery.Scene(home: home.id.rawValue, id: $0.id.rawValue, name: $0.name)
            }
        }
        let config = export.discovery.bridgeConfig(scenes: scenes)
        guard published.homeAssistant.publishBridge(hash: DeviceRuntime.hash(config)) else { return }
        effects.publish(
            export.discovery.configTopic(objectID: export.discovery.bridgeObjectID), config, retain: true, qos: 1)
    }

    /// Every config again (Home Assistant restarted and may have lost what it had): the bridge's now,
    /// the devices' from the next tick on, a batch at a time.
    mutating func republishHomeAssistant(now: Date, effects: inout BridgeEffects) {
        guard let discovery = configuration.homeAssistant?.discovery else { return }
        published.homeAssistant.forgetHashes()
        exportBridgeToHomeAssistant(effects: &effects)
        published.homeAssistant.allDue(graph.devices.keys.map { ($0, discovery.objectID($0)) }, now: now)
    }

    /// Whether the device is given: the rules allow it, and not every source of it is one whose
    /// devices Home Assistant has already (its own discovery, or a source the config skips).
    func givesHomeAssistant(_ device: Device, export: HomeAssistantExport) -> Bool {
        let types = device.deviceTypes.map(\.typeID.description)
        guard export.rules.allows(id: device.id.rawValue, room: graph.room(of: device.id)?.name, types: types) else {
            return false
        }
        guard !device.sources.isEmpty else { return true }
        return !device.sources.allSatisfy { reference in
            if export.skippedSources.contains(reference.instance) || export.skippedSources.contains(reference.family) {
                return true
            }
            return sources.index(of: reference).map { sources[$0].devicesAreHomeAssistants } == true
        }
    }

    /// What a trait feeds and accepts, as the description says it, and the values it holds.
    func homeAssistantOffer(_ device: Device, at address: TraitAddress) -> HomeAssistantDiscovery.TraitOffer {
        let bindings = sourceBindings(of: device, at: address)
        var attributes: [String: AttributeMetadata] = [:]
        for (name, metadata) in fedAttributes(device, at: address, bindings: bindings) where attributes[name] == nil {
            attributes[name] = metadata
        }
        for name in (device.trait(at: address)?.attributes ?? [:]).keys where attributes[name] == nil {
            if let metadata = try? catalog.attributeMetadata(address.traitID, name) { attributes[name] = metadata }
        }
        return HomeAssistantDiscovery.TraitOffer(
            attributes: attributes, commands: Set(acceptedCommands(device, at: address, bindings: bindings)),
            // Restored from the registry before its source spoke: what the source said then, if it said anything.
            sourceSaysWrites: bindings != nil
                || published[device.id]?.restoredFeeds?[address]?.commands.isEmpty == false)
    }
}
