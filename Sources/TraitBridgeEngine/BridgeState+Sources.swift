public import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeStore

/// The engine's side of the plug-in boundary: one route table (exact topic → plug-in), the
/// claim test for a topic no route names, and one way to apply what a plug-in says a message
/// meant. Nothing here knows a family by name.
extension BridgeState {
    /// Hands a message to the plug-in its topic is routed to, or to the first that claims it.
    /// `false`: no plug-in takes the topic. A large payload may be let go once read (set empty):
    /// see `deliver(to:topic:payload:mayRelease:isRetained:now:effects:)`. `isRetained`: the message
    /// is from before (kept by the broker, or by us until its device was known): not news of an event.
    mutating func deliverToSource(
        topic: String, payload: inout [UInt8], isRetained: Bool, now: Date, effects: inout BridgeEffects
    ) -> Bool {
        if let route = sources.route(topic) {
            deliver(route, topic: topic, payload: &payload, isRetained: isRetained, now: now, effects: &effects)
        } else if let index = sources.claimant(topic) {
            deliver(
                to: index, topic: topic, payload: &payload, mayRelease: true, isRetained: isRetained, now: now,
                effects: &effects)
        } else {
            return false
        }
        return true
    }

    /// The edge connections the plug-ins read from.
    public var channels: [String] { sources.allPlugins.compactMap(\.channel) }

    /// A message from a plug-in's own edge connection (a Matter Server's WebSocket), never from
    /// the broker: bounded like a broker message, then handed to the plug-in of that channel.
    public mutating func handleChannelMessage(channel: String, topic: String, payload: consuming [UInt8], now: Date)
        -> BridgeEffects
    {
        var effects = BridgeEffects()
        guard let index = sources.claimant(topic, channel: channel) else {
            effects.log(.warning, "no source takes messages of \(channel)", ["tb.mqtt.topic": topic])
            return effects
        }
        let limits = configuration.limits
        let limit = sources[index].carriesList(topic) ? limits.listBytes : limits.messageBytes
        guard payload.count <= limit else {
            refuseAtLimit(
                payload.count > configuration.limits.listBytes ? .listBytes : .messageBytes, topic: topic,
                "a message of \(payload.count) bytes", effects: &effects)
            return effects
        }
        deliver(
            to: index, topic: topic, payload: &payload, mayRelease: true, isRetained: false, now: now,
            effects: &effects)
        return effects
    }

    /// A routed topic goes to each plug-in that routed it (a generic mapping may read a
    /// zigbee2mqtt device's topic), in registration order.
    mutating func deliver(
        _ route: SourceRoute, topic: String, payload: inout [UInt8], isRetained: Bool, now: Date,
        effects: inout BridgeEffects
    ) {
        deliver(
            to: route.first, topic: topic, payload: &payload, mayRelease: route.others.isEmpty,
            isRetained: isRetained, now: now, effects: &effects)
        for index in route.others {
            deliver(
                to: index, topic: topic, payload: &payload, mayRelease: index == route.others.last,
                isRetained: isRetained, now: now, effects: &effects)
        }
    }

    /// `mayRelease`: no other plug-in reads the payload after this one, so it may be let go (set
    /// empty) once read; the caller's copy must be this one for the memory to go back.
    mutating func deliver(
        to index: Int, topic: String, payload: inout [UInt8], mayRelease: Bool, isRetained: Bool, now: Date,
        effects: inout BridgeEffects
    ) {
        // One buffer, reused: a replay inside `apply` finds it taken and makes its own.
        let message = SourceMessage(
            topic: topic, payload: payload, now: now, deviceLimit: configuration.limits.devicesPerSource)
        let events = sources.receive(message, plugin: index)
        if mayRelease, payload.count >= SourceIngress.releasedPayloadBytes, !events.contains(where: \.needsPayload) {
            payload = []
        }
        apply(events, from: index, topic: topic, payload: payload, isRetained: isRetained, now: now, effects: &effects)
        sources.recycle(events)
    }

    mutating func apply(
        _ events: [SourceEvent], from index: Int, topic: String, payload: [UInt8], isRetained: Bool, now: Date,
        effects: inout BridgeEffects
    ) {
        var position = events.startIndex
        while position < events.endIndex {
            let event = events[position]
            if case .described(let described) = event, position + 1 < events.endIndex,
                case .values(let id, _, _) = events[position + 1], id == described.device.id
            {
                // Described and given its first values by one message (a Matter node): its description,
                // state and registry row made once, with the values, not first without them.
                published.holdDescriptions()
                apply(
                    event, from: index, topic: topic, payload: payload, isRetained: isRetained, now: now,
                    effects: &effects)
                published.stopHolding()
                apply(
                    events[position + 1], from: index, topic: topic, payload: payload, isRetained: isRetained, now: now,
                    effects: &effects)
                for waiting in published.releaseDescriptions()
                where storeAndPublish(waiting.id, now: now, effects: &effects) && waiting.wasKnown {
                    logUpdated(waiting.id, effects: &effects)
                }
                position += 2
            } else {
                apply(
                    event, from: index, topic: topic, payload: payload, isRetained: isRetained, now: now,
                    effects: &effects)
                position += 1
            }
            performSliceIfDue(&effects)
        }
    }

    private mutating func apply(
        _ event: SourceEvent, from index: Int, topic: String, payload: [UInt8], isRetained: Bool, now: Date,
        effects: inout BridgeEffects
    ) {
        var family: String { sources[index].family }  // only for what is logged: not asked per value message
        switch event {
        case .described(let described):
            describe(described, plugin: index, now: now, effects: &effects)
        case .removed(let id, let reason):
            removeMember(id, reason: reason, family: family, now: now, effects: &effects)
        case .values(let id, let updates, let isNews):
            memberValues(id, updates, isNews: isNews, topic: topic, payload: payload, now: now, effects: &effects)
        case .availability(let reference, let isOnline, let origin):
            referenceAvailability(
                reference, isOnline: isOnline, plugin: index, topic: origin ?? topic, isTopic: origin == nil, now: now,
                effects: &effects)
        case .sourceAvailability(let isOnline, let origin):
            let link = LinkState(status: isOnline ? .up : .down, since: now, origin: origin ?? topic)
            guard sources.setSourceLink(index, link) else { return }
            effects.log(
                isOnline ? .info : .warning, "\(origin ?? family + " bridge") is \(isOnline ? "online" : "offline")",
                ["tb.mqtt.topic": topic, "tb.source": family])
            for id in sources[index].deviceIDs { refresh(directory.target(of: id) ?? id, now: now, effects: &effects) }
        case .route(let topics):
            sources.addRoutes(topics, to: index)
        case .unroute(let topics):
            sources.removeRoutes(topics, from: index)
        case .subscribe(let filters):
            effects.subscriptions += filters
        case .publish(let message):
            effects.publications.append(
                Outgoing(
                    topic: message.topic, payload: message.payload, isRetained: false, channel: sources[index].channel))
        case .commandFailed(let id, let reason):
            failCommands(on: directory.target(of: id) ?? id, reason: reason, now: now, effects: &effects)
        case .keepUntilKnown:
            keepPending(topic: topic, payload: payload, effects: &effects)
        case .replay(let topics):
            for waiting in topics { replayPending(waiting, now: now, effects: &effects) }
        case .replayUnder(let prefix):
            for waiting in sources.pendingTopics(under: prefix) { replayPending(waiting, now: now, effects: &effects) }
        case .refusedDevice(let what):
            refuseAtLimit(.devicesPerSource, topic: topic, what, effects: &effects)
        case .notification(let id, let trait, let notification):
            guard !isRetained else { return }  // a retained button press is history, not a press
            publishNotification(
                notification, trait: trait, on: directory.target(of: id) ?? id, plugin: index, now: now,
                effects: &effects)
        case .log(let level, let message, let device):
            var metadata = ["tb.mqtt.topic": topic, "tb.source": family]
            if let device { metadata["tb.device.id"] = device.rawValue }
            effects.log(BridgeLogLine.Level(level), message, metadata)
        }
    }

    /// A source's notification of a device, as the link's are: `{"time", "source", "trait",
    /// "notification"}` on the device's event topic; one larger than 4 KB says only its size.
    private func publishNotification(
        _ notification: JSONValue, trait: TraitID, on id: DeviceID, plugin: Int, now: Date,
        effects: inout BridgeEffects
    ) {
        guard let device = graph.devices[id] else { return }
        let plugin = sources[plugin]
        let bytes = notification.serializedBytes()
        let kept: JSONValue = bytes.count <= 4096 ? notification : ["truncated": .int(Int64(bytes.count))]
        if configuration.recordsHistory,
            let type = device.deviceTypes.first(where: { $0.traits.contains { $0.traitID == trait } })
        {
            effects.history.append(
                HistoryRecord(
                    device: id, address: TraitAddress(deviceTypeKey: type.key, traitID: trait),
                    attribute: HistoryRecord.notificationAttribute, at: now,
                    change: .notification(String(decoding: kept.serializedBytes(), as: UTF8.self))))
        }
        var event = JSONObject()
        event.append("time", .string(now.formatted(.iso8601)))
        event.append(
            "source", .string(plugin.instance == "default" ? plugin.family : "\(plugin.family)/\(plugin.instance)"))
        event.append("trait", .string(trait.description))
        event.append("notification", kept)
        effects.publish(
            configuration.devicesTopicPrefix + id.rawValue + "/event", JSONValue.object(event).serializedBytes(),
            retain: false, qos: 1)
    }

    /// Handles again a message kept before its device was known.
    private mutating func replayPending(_ topic: String, now: Date, effects: inout BridgeEffects) {
        guard var payload = sources.takePending(topic) else { return }
        _ = deliverToSource(topic: topic, payload: &payload, isRetained: true, now: now, effects: &effects)
    }

    /// The messages for writes on traits plug-ins feed, one plug-in at a time; a write whose
    /// trait no plug-in feeds (a device not discovered since start) is refused.
    mutating func sourceCommands(_ writes: [AttributeUpdate], on id: DeviceID) throws(CommandFailure) -> [Outgoing] {
        guard !writes.isEmpty else { return [] }
        let device = graph.devices[id]
        // By the member that feeds each trait (its own id and keys, when it joined this device).
        var byMember: [DeviceID: (plugin: Int, writes: [AttributeUpdate])] = [:]
        for write in writes {
            guard let reference = device?.trait(at: write.address)?.source, let index = sources.index(of: reference)
            else {
                throw CommandFailure(
                    .notSupported,
                    "device '\(id)' has no source that accepts these commands yet (not discovered since start)")
            }
            let own = directory[reference]?.owner ?? id
            var local = write
            if own != id,
                let original = directory[own]?.keyMap.first(where: { $0.value == write.address.deviceTypeKey })?.key
            {
                local.address.deviceTypeKey = original
            }
            byMember[own, default: (index, [])].writes.append(local)
        }
        var outgoing: [Outgoing] = []
        for (own, planned) in byMember.sorted(by: { $0.key < $1.key }) {
            do {
                let channel = sources[planned.plugin].channel
                outgoing += try sources.commands(for: planned.writes, on: own, plugin: planned.plugin).map {
                    Outgoing(topic: $0.topic, payload: $0.payload, isRetained: false, channel: channel)
                }
            } catch {
                switch error {
                case .notSupported(let message): throw CommandFailure(.notSupported, message)
                case .valueNotRepresentable(let message): throw CommandFailure(.invalidValue, message)
                }
            }
        }
        return outgoing
    }
}

extension BridgeLogLine.Level {
    init(_ level: SourceLogLevel) {
        switch level {
        case .debug: self = .debug
        case .info: self = .info
        case .notice: self = .notice
        case .warning: self = .warning
        case .error: self = .error
        }
    }
}

extension SourceEvent {
    /// The engine reads the message's payload again for it: kept for a device not known yet.
    fileprivate var needsPayload: Bool {
        switch self {
        case .values, .keepUntilKnown: true
        default: false
        }
    }
}
