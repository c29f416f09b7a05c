import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// The engine's side of the plug-in boundary: one route table (exact topic → plug-in), the
/// claim test for a topic no route names, and one way to apply what a plug-in says a message
/// meant. Nothing here knows a family by name.
extension BridgeState {
    /// Hands a message to the plug-in its topic is routed to, or to the first that claims it.
    /// `false`: no plug-in takes the topic.
    mutating func deliverToSource(topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) -> Bool {
        guard let index = routes[topic] ?? plugins.firstIndex(where: { $0.claims(topic) }) else { return false }
        deliver(to: index, topic: topic, payload: payload, now: now, effects: &effects)
        return true
    }

    mutating func deliver(to index: Int, topic: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        var events: [SourceEvent] = []
        let message = SourceMessage(topic: topic, payload: payload, now: now, deviceLimit: configuration.limits.devicesPerSource)
        plugins[index].receive(message, into: &events)
        for event in events { apply(event, from: index, topic: topic, payload: payload, now: now, effects: &effects) }
    }

    private mutating func apply(_ event: SourceEvent, from index: Int, topic: String, payload: [UInt8], now: Date,
                                effects: inout BridgeEffects) {
        let family = plugins[index].family
        switch event {
        case .described(let described):
            describe(described, plugin: index, now: now, effects: &effects)
            replayPendingGeneric(for: described.device.id, now: now, effects: &effects)
        case .removed(let id, let reason):
            removeMember(id, reason: reason, family: family, now: now, effects: &effects)
        case .values(let id, let updates, let isNews):
            memberValues(id, updates, isNews: isNews, topic: topic, payload: payload, now: now, effects: &effects)
        case .availability(let reference, let isOnline):
            referenceAvailability(reference, isOnline: isOnline, plugin: index, topic: topic, now: now, effects: &effects)
        case .sourceAvailability(let isOnline):
            let status: LinkState.Status = isOnline ? .up : .down
            guard sourceLinks[index].status != status else { return }
            sourceLinks[index] = LinkState(status: status, since: now, origin: topic)
            effects.log(isOnline ? .info : .warning, "\(family) bridge is \(isOnline ? "online" : "offline")",
                        ["tb.mqtt.topic": topic, "tb.source": family])
            for id in plugins[index].deviceIDs { refresh(members[id]?.target ?? id, now: now, effects: &effects) }
        case .route(let topics):
            for routed in topics { routes[routed] = index }
        case .unroute(let topics):
            for routed in topics where routes[routed] == index { routes.removeValue(forKey: routed) }
        case .subscribe(let filters):
            effects.subscriptions += filters
        case .publish(let message):
            effects.publications.append(Outgoing(topic: message.topic, payload: message.payload, isRetained: false))
        case .keepUntilKnown:
            keepPending(topic: topic, payload: payload, effects: &effects)
        case .replay(let topics):
            for waiting in topics { replayPending(waiting, now: now, effects: &effects) }
        case .replayUnder(let prefix):
            for waiting in pending.topics(under: prefix) { replayPending(waiting, now: now, effects: &effects) }
        case .refusedDevice(let what):
            refuseAtLimit(.devicesPerSource, topic: topic, what, effects: &effects)
        case .log(let level, let message, let device):
            var metadata = ["tb.mqtt.topic": topic, "tb.source": family]
            if let device { metadata["tb.device.id"] = device.rawValue }
            effects.log(BridgeLogLine.Level(level), message, metadata)
        }
    }

    /// Handles again a message kept before its device was known.
    private mutating func replayPending(_ topic: String, now: Date, effects: inout BridgeEffects) {
        guard let payload = takePending(topic) else { return }
        _ = deliverToSource(topic: topic, payload: payload, now: now, effects: &effects)
    }

    /// The plug-in a trait's source reference names.
    func pluginIndex(of reference: SourceReference) -> Int? {
        plugins.firstIndex { $0.family == reference.family && $0.instance == reference.instance }
    }

    /// The messages for writes on traits plug-ins feed, one plug-in at a time; a write whose
    /// trait no plug-in feeds (a device not discovered since start) is refused.
    mutating func sourceCommands(_ writes: [AttributeUpdate], on id: DeviceID) throws(CommandFailure) -> [Outgoing] {
        guard !writes.isEmpty else { return [] }
        let device = graph.devices[id]
        var byPlugin: [Int: [AttributeUpdate]] = [:]
        for write in writes {
            guard let reference = device?.trait(at: write.address)?.source, let index = pluginIndex(of: reference) else {
                throw CommandFailure(.notSupported, "device '\(id)' has no source that accepts these commands yet (not discovered since start)")
            }
            byPlugin[index, default: []].append(write)
        }
        var outgoing: [Outgoing] = []
        for (index, pluginWrites) in byPlugin.sorted(by: { $0.key < $1.key }) {
            do {
                outgoing += try plugins[index].commands(for: pluginWrites, on: id).map {
                    Outgoing(topic: $0.topic, payload: $0.payload, isRetained: false)
                }
            } catch {
                throw CommandFailure(.notSupported, error.description)
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
