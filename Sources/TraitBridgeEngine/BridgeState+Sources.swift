public import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// The engine's side of the plug-in boundary: one route table (exact topic → plug-in), the
/// claim test for a topic no route names, and one way to apply what a plug-in says a message
/// meant. Nothing here knows a family by name.
extension BridgeState {
    /// Hands a message to the plug-in its topic is routed to, or to the first that claims it.
    /// `false`: no plug-in takes the topic. A large payload may be let go once read (set empty):
    /// see `deliver(to:topic:payload:mayRelease:now:effects:)`.
    mutating func deliverToSource(
        topic: String, payload: inout [UInt8], now: Date, effects: inout BridgeEffects
    ) -> Bool {
        if let route = routes[topic] {
            deliver(route, topic: topic, payload: &payload, now: now, effects: &effects)
        } else if let index = plugins.firstIndex(where: { $0.channel == nil && $0.claims(topic) }) {
            deliver(to: index, topic: topic, payload: &payload, mayRelease: true, now: now, effects: &effects)
        } else {
            return false
        }
        return true
    }

    /// The edge connections the plug-ins read from.
    public var channels: [String] { plugins.compactMap(\.channel) }

    /// A message from a plug-in's own edge connection (a Matter Server's WebSocket), never from
    /// the broker: bounded like a broker message, then handed to the plug-in of that channel.
    public mutating func handleChannelMessage(channel: String, topic: String, payload: consuming [UInt8], now: Date)
        -> BridgeEffects
    {
        var effects = BridgeEffects()
        guard let index = plugins.firstIndex(where: { $0.channel == channel && $0.claims(topic) }) else {
            effects.log(.warning, "no source takes messages of \(channel)", ["tb.mqtt.topic": topic])
            return effects
        }
        let limits = configuration.limits
        let limit = plugins[index].carriesList(topic) ? limits.listBytes : limits.messageBytes
        guard payload.count <= limit else {
            refuseAtLimit(
                payload.count > configuration.limits.listBytes ? .listBytes : .messageBytes, topic: topic,
                "a message of \(payload.count) bytes", effects: &effects)
            return effects
        }
        deliver(to: index, topic: topic, payload: &payload, mayRelease: true, now: now, effects: &effects)
        return effects
    }

    /// A routed topic goes to each plug-in that routed it (a generic mapping may read a
    /// zigbee2mqtt device's topic), in registration order.
    mutating func deliver(
        _ route: SourceRoute, topic: String, payload: inout [UInt8], now: Date, effects: inout BridgeEffects
    ) {
        deliver(to: route.first, topic: topic, payload: &payload, mayRelease: route.others.isEmpty, now: now,
            effects: &effects)
        for index in route.others {
            deliver(to: index, topic: topic, payload: &payload, mayRelease: index == route.others.last, now: now,
                effects: &effects)
        }
    }

    /// A payload this large is let go once the plug-in has read it, unless an event still needs it:
    /// a 45 MB device list is not held while its 10 000 devices are described.
    static let releasedPayloadBytes = 1 << 16

    /// `mayRelease`: no other plug-in reads the payload after this one, so it may be let go (set
    /// empty) once read; the caller's copy must be this one for the memory to go back.
    mutating func deliver(
        to index: Int, topic: String, payload: inout [UInt8], mayRelease: Bool, now: Date,
        effects: inout BridgeEffects
    ) {
        // One buffer, reused: a replay inside `apply` finds it taken and makes its own. Kept only
        // while small: a 10 000-device list's events would hold ~10 MB of room for good.
        var events = eventBuffer
        eventBuffer = []
        defer {
            if events.capacity <= Self.eventBufferCapacity {
                events.removeAll(keepingCapacity: true)
                eventBuffer = events
            }
        }
        do {
            let message = SourceMessage(
                topic: topic, payload: payload, now: now, deviceLimit: configuration.limits.devicesPerSource)
            plugins[index].receive(message, into: &events)
        }
        if mayRelease, payload.count >= Self.releasedPayloadBytes, !events.contains(where: \.needsPayload) {
            payload = []
        }
        apply(events, from: index, topic: topic, payload: payload, now: now, effects: &effects)
    }

    /// The most events whose room ``eventBuffer`` keeps between messages.
    static let eventBufferCapacity = 64

    mutating func apply(
        _ events: [SourceEvent], from index: Int, topic: String, payload: [UInt8], now: Date,
        effects: inout BridgeEffects
    ) {
        for event in events {
            apply(event, from: index, topic: topic, payload: payload, now: now, effects: &effects)
            performSliceIfDue(&effects)
        }
    }

    private mutating func apply(
        _ event: SourceEvent, from index: Int, topic: String, payload: [UInt8], now: Date,
        effects: inout BridgeEffects
    ) {
        var family: String { plugins[index].family }  // only for what is logged: not asked per value message
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
            let status: LinkState.Status = isOnline ? .up : .down
            guard sourceLinks[index].status != status else { return }
            sourceLinks[index] = LinkState(status: status, since: now, origin: origin ?? topic)
            effects.log(
                isOnline ? .info : .warning, "\(origin ?? family + " bridge") is \(isOnline ? "online" : "offline")",
                ["tb.mqtt.topic": topic, "tb.source": family])
            for id in plugins[index].deviceIDs { refresh(directory.target(of: id) ?? id, now: now, effects: &effects) }
        case .route(let topics):
            for routed in topics { routes[routed, default: SourceRoute(first: index)].insert(index) }
        case .unroute(let topics):
            for routed in topics { routes[routed] = routes[routed]?.removing(index) }
        case .subscribe(let filters):
            effects.subscriptions += filters
        case .publish(let message):
            effects.publications.append(
                Outgoing(
                    topic: message.topic, payload: message.payload, isRetained: false, channel: plugins[index].channel))
        case .commandFailed(let id, let reason):
            failCommands(on: directory.target(of: id) ?? id, reason: reason, now: now, effects: &effects)
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
        guard var payload = takePending(topic) else { return }
        _ = deliverToSource(topic: topic, payload: &payload, now: now, effects: &effects)
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
        // By the member that feeds each trait (its own id and keys, when it joined this device).
        var byMember: [DeviceID: (plugin: Int, writes: [AttributeUpdate])] = [:]
        for write in writes {
            guard let reference = device?.trait(at: write.address)?.source, let index = pluginIndex(of: reference)
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
                let channel = plugins[planned.plugin].channel
                outgoing += try plugins[planned.plugin].commands(for: planned.writes, on: own).map {
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

/// The plug-ins an exact topic goes to: nearly always one (no array to allocate), sometimes more.
struct SourceRoute: Sendable, Hashable {
    var first: Int
    var others: [Int] = []

    mutating func insert(_ index: Int) {
        if index != first && !others.contains(index) { others.append(index) }
    }

    /// Without `index`; nil when nothing is left.
    func removing(_ index: Int) -> SourceRoute? {
        guard index == first else { return SourceRoute(first: first, others: others.filter { $0 != index }) }
        guard let next = others.first else { return nil }
        return SourceRoute(first: next, others: Array(others.dropFirst()))
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
