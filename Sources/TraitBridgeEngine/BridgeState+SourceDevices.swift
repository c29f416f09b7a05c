import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeStore

/// What every source does with its devices, in one place: put a device into the graph (merged
/// with its generic and cloud twins, keeping what is known), report a message's values, and
/// take a device's own online/offline word.
extension BridgeState {
    /// Reports one message's values on a device (each refused value logged alone), marks the
    /// source references it came from as heard, confirms waiting commands and republishes.
    mutating func report(
        _ updates: [AttributeUpdate], on id: DeviceID, seen: [SourceReference], topic: String, now: Date,
        effects: inout BridgeEffects
    ) {
        var changed = false
        var firstHeard: [TraitAddress] = []
        let catalog = catalog
        let recordsHistory = configuration.recordsHistory
        _ = try? graph.modifyDevice(id) { device in
            for update in updates {
                if device.trait(at: update.address)?.attributes[update.attribute] == nil,
                    !firstHeard.contains(update.address)
                {
                    firstHeard.append(update.address)
                }
                do {
                    if try device.report(
                        update.value, attribute: update.attribute, at: update.address, catalog: catalog, time: now)
                    {
                        changed = true
                        if recordsHistory {
                            effects.history.append(
                                HistoryRecord(
                                    device: id, address: update.address, attribute: update.attribute, at: now,
                                    change: .value(update.value)))
                        }
                    }
                } catch {
                    effects.log(
                        .warning, "rejected a value: \(error)", ["tb.mqtt.topic": topic, "tb.device.id": id.rawValue])
                }
            }
        }
        if changed { published.valuesChanged(id, at: now) }
        for reference in seen { directory.heard(reference, topic: topic, now: now) }
        confirmCommands(for: id, now: now, effects: &effects)
        if changed && feedsFollowValues(id, at: firstHeard) {
            storeAndPublish(id, now: now, effects: &effects)
        } else {
            refresh(id, now: now, effects: &effects, valuesChanged: changed)
        }
    }

    /// Whether an attribute heard for the first time at these addresses changes what the device's
    /// description says it feeds: only where its source declares no bindings (Tasmota, Shelly) and no
    /// registry row says it (``fedAttributes(_:at:bindings:)``'s last resort is the values held). A
    /// zigbee2mqtt device's first values leave its description as it was: it is not made again.
    func feedsFollowValues(_ id: DeviceID, at addresses: [TraitAddress]) -> Bool {
        guard !addresses.isEmpty, let device = graph.devices[id] else { return false }
        let restored = published[id]?.restoredFeeds
        return addresses.contains { address in
            restored?[address] == nil && sourceBindings(of: device, at: address) == nil
        }
    }

    /// Takes a device out of the bridge: graph, liveness, retained topics and the registry on disk
    /// (it is gone, or merged into another device).
    mutating func removeFromGraph(_ id: DeviceID, effects: inout BridgeEffects) {
        published.forget(id)  // the user's placement stays: paired again, it is back
        try? graph.removeDevice(id)
        clearRetained(id, effects: &effects)
        effects.storeChanges.append(.remove(id))
    }

    /// The device id of a topic `<prefix>/devices/<id>` (a description, never `…/state` or `…/set`).
    func ownDescriptionID(_ topic: String) -> Substring? {
        let prefix = configuration.devicesTopicPrefix
        guard topic.hasPrefix(prefix) else { return nil }
        let id = topic.dropFirst(prefix.count)
        return id.isEmpty || id.contains("/") ? nil : id
    }

    /// A description on the broker from before this run: when the bridge does not know the device
    /// (the registry, the sources and the cloud have not brought it back), it is a leftover and is
    /// cleared with its state. Live messages (another client writing there) are ignored.
    mutating func handleOwnDescription(_ id: Substring, isRetained: Bool, isEmpty: Bool, effects: inout BridgeEffects) {
        guard isRetained, !isEmpty else { return }
        let deviceID = try? DeviceID(String(id))
        if let deviceID, graph.hasDevice(deviceID) { return }
        let topic = configuration.devicesTopicPrefix + id
        effects.publish(topic + "/state", [], retain: true)
        effects.publish(topic, [], retain: true)
        effects.log(
            .notice, "cleared a retained device the registry does not know (left by an earlier run)",
            ["tb.mqtt.topic": topic])
    }

    /// Clears a device's retained state and description (it is gone or merged into another).
    mutating func clearRetained(_ id: DeviceID, effects: inout BridgeEffects) {
        published.forgetPublished(id)
        effects.publish(stateTopic(id), [], retain: true)
        effects.publish(descriptionTopic(id), [], retain: true)
        effects.changedDescriptions.append(id)
        exportToHomeAssistant(id, now: nil, effects: &effects)
        refreshGroups(of: id, effects: &effects)  // a group counts a member that went away as unknown
    }
}
