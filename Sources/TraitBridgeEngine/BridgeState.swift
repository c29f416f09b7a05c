public import FoundationEssentials
import TraitBridgeAutomation
import TraitBridgeCloud
import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel
public import TraitBridgeSources
import TraitBridgeStore

/// The whole bridge as a value: registry, routes, connectivity chain, pending commands.
///
/// Each event (a message, a broker connect or loss, a timer tick) is a `mutating` call that
/// returns ``BridgeEffects`` — what to publish, store and log — and the caller does the I/O
/// (swift-nio's state-machine style). So every rule of the bridge is tested without a broker,
/// and the runtime only adds threads and sockets.
public struct BridgeState: Sendable {
    public internal(set) var configuration: BridgeConfiguration
    /// The mappings' catalog, plus what sources discovered (vendor-namespaced definitions).
    public internal(set) var catalog: Catalog
    /// The way in: the broker link, the plug-ins and their source bridges, routes, kept messages, refusals.
    var sources: SourceIngress
    /// Google Cloud-to-cloud: the translator, the imported devices, the cloud links.
    var cloudImport: CloudImport

    public internal(set) var graph: HomeGraph
    /// The sources' devices: each member and its target, joins, waits, and each source reference.
    var directory = MemberDirectory()
    /// What was published and stored of each device, and who performs a long event's effects.
    var published = PublicationLedger()
    /// Commands waiting for their echo, EXECUTE requests, group commands and scene runs, wrong PINs.
    var commands = CommandTracker()
    /// The user's names and rooms, groups by device, layout topics published, scenes' last runs.
    var layout = HomeLayoutState()
    /// The automations: scheduler, histories, fires waiting for the broker.
    var automations = AutomationState()

    /// A bridge with no device yet but those its plug-ins know before any message (generic
    /// mappings), described at `now`: the state reads no clock, every event brings its time.
    public init(
        configuration: BridgeConfiguration, catalog: Catalog, tables: SourceTables = SourceTables(), graph: HomeGraph,
        cloud: GoogleC2CTable? = nil, now: Date
    ) {
        self.configuration = configuration
        self.catalog = catalog
        self.graph = graph
        self.commands.liveViews = CameraSessions(now: now)
        self.cloudImport = CloudImport(
            c2c: cloud.map { GoogleC2C(catalog: catalog, table: $0) }, links: configuration.cloudLinks)
        self.sources = SourceIngress(
            plugins: configuration.sourceRegistry.plugins(
                for: configuration.sources, tables: tables, catalog: catalog, bridgePrefix: configuration.prefix,
                defaultLocality: configuration.sourceLocality))
        // What plug-ins know before any message (generic mappings); nothing is published before a
        // connect, and their log lines wait in `startLogs` for the runtime to write them.
        var effects = BridgeEffects()
        let registry = configuration.sourceRegistry
        for instance in configuration.sources where registry.family(named: instance.family) == nil {
            let known = registry.families.map(\.name).joined(separator: ", ")
            effects.log(
                .warning,
                "source instance '\(instance.name)' of family '\(instance.family)' is not read: no family of that name "
                    + "is registered (known: \(known))")
        }
        for index in sources.indices {
            let events = sources.start(index)
            apply(events, from: index, topic: "", payload: [], isRetained: false, now: now, effects: &effects)
        }
        sources.started(logs: effects.logs)
    }

    /// What the plug-ins said while the bridge was made (a generic mapping that makes no device).
    public var startLogs: [BridgeLogLine] { sources.startLogs }

    /// Who performs effects part-way through one event that brings many devices (a 10 000-device
    /// list, a restart's republication), so that they are not all alive at once. Set by the
    /// runtime; `nil` (tests, tools): every event's effects come back whole.
    public var effectsSlice: EffectsSlice? {
        get { published.slice }
        set { published.slice = newValue }
    }

    /// This state without ``effectsSlice``: a copy must never perform on the bridge it came from.
    public var withoutEffectsSlice: BridgeState {
        var copy = self
        copy.effectsSlice = nil
        return copy
    }

    /// Hands `effects` to ``effectsSlice`` once they hold its number of publications (only while
    /// the broker is up: what is published while it is down is dropped, never performed).
    mutating func performSliceIfDue(_ effects: inout BridgeEffects) {
        // Per event on the message path: the count first, the closure (a retain) only when due.
        guard let limit = published.slice?.publications, effects.publications.count >= limit,
            sources.broker.status == .up, let slice = published.slice
        else { return }
        var due = BridgeEffects()
        swap(&due, &effects)
        slice.perform(due)
    }

    /// The topic filters the bridge subscribes to.
    public var subscriptions: [String] {
        var filters = [
            configuration.devicesTopicPrefix + "+/set", "\(configuration.prefix)/bridge/request/+",
            "\(configuration.prefix)/bridge/request/+/+",
        ]
        if cloud != nil { filters.append(cloudResponseTopic) }
        let requested = sources.allPlugins.flatMap(\.subscriptions)
        // An exact topic a wildcard filter already covers (a generic mapping on `zigbee2mqtt/…`)
        // is not subscribed twice.
        let wildcards = (filters + requested).filter { $0.contains("+") || $0.contains("#") }
        for filter in requested where !filters.contains(filter) {
            if !filter.contains("+") && !filter.contains("#")
                && wildcards.contains(where: { MQTTTopicFilter.matches($0, filter) })
            {
                continue
            }
            filters.append(filter)
        }
        // Home Assistant's status and our configs, unless a source reads them already (`homeassistant/#`):
        // the broker would send each message once per matching filter.
        for filter in homeAssistantSubscriptions
        where !filters.contains(where: { $0.hasSuffix("#") && MQTTTopicFilter.matches($0, filter) }) {
            filters.append(filter)
        }
        return filters
    }

    /// The bridge's own device descriptions, read once at start (its own publications come back
    /// live and are ignored; see `Bridge.start`): a retained description of a device the bridge does not
    /// know was left by a run that stopped between writing a removal to the registry and clearing
    /// the topic, and is cleared (``handleOwnDescription``).
    public var ownDescriptionsFilter: String { configuration.devicesTopicPrefix + "+" }

    public var bridgeStateTopic: String { "\(configuration.prefix)/bridge/state" }
    func stateTopic(_ id: DeviceID) -> String { configuration.devicesTopicPrefix + id.rawValue + "/state" }
    func descriptionTopic(_ id: DeviceID) -> String { configuration.devicesTopicPrefix + id.rawValue }

    // MARK: Events

    /// Dispatches one MQTT message by its exact topic. `replyTo` is the message's MQTT 5 Response
    /// Topic and Correlation Data, if it had them (only requests to the bridge use them);
    /// `isRetained`: the broker kept it from before this subscription. The payload is taken, not
    /// borrowed: a large one is let go as soon as its source has read it.
    public mutating func handleMessage(
        topic: String, payload: consuming [UInt8], now: Date, replyTo: ReplyAddress? = nil, isRetained: Bool = false
    ) -> BridgeEffects {
        var effects = BridgeEffects()
        if let id = ownDescriptionID(topic) {
            handleOwnDescription(id, isRetained: isRetained, isEmpty: payload.isEmpty, effects: &effects)
            return effects
        }
        if configuration.homeAssistant != nil,
            handleHomeAssistantMessage(
                topic: topic, payload: payload, isRetained: isRetained, now: now, effects: &effects)
        {
            return effects
        }
        if payload.count > configuration.limits.messageBytes, payload.count > payloadLimit(topic) {
            refuseAtLimit(
                payload.count > configuration.limits.listBytes ? .listBytes : .messageBytes, topic: topic,
                "a message of \(payload.count) bytes", effects: &effects)
            return effects
        }
        if let route = sources.route(topic) {
            deliver(route, topic: topic, payload: &payload, isRetained: isRetained, now: now, effects: &effects)
        } else if let deviceID = commandTarget(topic) {
            handleCommand(deviceID: deviceID, payload: payload, now: now, effects: &effects)
        } else if let (operation, correlation) = bridgeRequest(topic) {
            handleRequest(
                operation, correlation: correlation, replyTo: replyTo, payload: payload, now: now, effects: &effects)
        } else if topic == cloudResponseTopic, cloud != nil {
            handleCloudReports(payload, source: topic, now: now, effects: &effects)
        } else {
            _ = deliverToSource(topic: topic, payload: &payload, isRetained: isRetained, now: now, effects: &effects)
        }
        return effects
    }

    /// The broker accepted our connection: announce `online`, republish every retained topic we
    /// own (never assume the broker kept them), and let connectivity follow what arrives next.
    public mutating func brokerConnected(now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        sources.setBroker(LinkState(status: .up, since: now, origin: configuration.brokerDescription))
        effects.publish(bridgeStateTopic, Array("online".utf8), retain: true, qos: 1)
        published.forgetEverythingPublished()
        refreshAll(now: now, effects: &effects)
        layout.forgetEverythingPublished()  // known topics, sent again
        publishLayout(effects: &effects)
        publishAutomations(effects: &effects)
        sources.markHealthChanged()
        publishHealthIfChanged(effects: &effects)
        effects.log(
            .info, "connected; republished \(graph.devices.count) devices",
            ["tb.mqtt.broker": configuration.brokerDescription])
        return effects
    }

    /// The broker connection is gone: every MQTT-sourced trait becomes unknown with that reason.
    /// Nothing can be published now; the states are published again on reconnect.
    public mutating func brokerDisconnected(now: Date, reason: String) -> BridgeEffects {
        var effects = BridgeEffects()
        sources.setBroker(LinkState(status: .down, since: now, origin: configuration.brokerDescription))
        refreshAll(now: now, effects: &effects)
        effects.publications.removeAll()
        effects.log(
            .warning, "broker connection lost (\(reason)); all MQTT-sourced traits are unknown until it is back",
            ["tb.mqtt.broker": configuration.brokerDescription])
        return effects
    }

    /// Periodic work: staleness budgets and command timeouts.
    public mutating func tick(now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        expireCommands(now: now, effects: &effects)
        expireLiveViews(now: now, effects: &effects)
        sweepStaleLinkDevices(now: now, effects: &effects)
        automationsTick(now: now, effects: &effects)
        for reference in directory.allReferences where reference.liveness.availability.status == .unknown {
            let live = reference.liveness
            guard let lastSeen = live.lastSeen,
                now.timeIntervalSince(lastSeen) > Double(live.stalenessBudget.components.seconds),
                let target = reference.owner.flatMap({ directory.target(of: $0) })
            else { continue }
            refresh(target, now: now, effects: &effects)
        }
        publishDueConfigs(now: now, effects: &effects)
        sendStatesAgain(now: now, effects: &effects)
        sources.noteDeviceCounts(all: graph.devices.count)
        publishHealthIfChanged(effects: &effects)
        return effects
    }

    /// What the bridge publishes when it stops on purpose (the Last Will says the same on a crash).
    public var shutdownPublications: [Outgoing] {
        [Outgoing(topic: bridgeStateTopic, payload: Array("offline".utf8), isRetained: true, qos: 1)]
    }

}

extension BridgeState {
    /// Devices heard from since `date` (for the registry's last-seen times).
    public func devicesSeen(since date: Date) -> [DeviceID] {
        var seen: Set<DeviceID> = []
        for reference in directory.allReferences where (reference.liveness.lastSeen ?? .distantPast) > date {
            if let target = reference.owner.flatMap({ directory.target(of: $0) }) { seen.insert(target) }
        }
        return seen.sorted()
    }
}
