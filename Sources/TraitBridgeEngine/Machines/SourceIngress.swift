import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// The way in: the broker link, the source plug-ins (in claim order) with each one's source
/// bridge, the route table (exact topic → plug-ins), the messages kept for devices not known yet,
/// and what the bounds refused since start (for the health topic).
///
/// The one owner of that state. It hands a message to its plug-in and returns the plug-in's
/// events; what they mean for the home (devices, values, commands) is the engine's. It knows no
/// family by name.
struct SourceIngress: Sendable {
    /// Something a bound refused, for the engine to count and say.
    struct Refusal: Sendable, Hashable {
        var kind: LimitKind
        var topic: String
        var detail: String
    }

    private var plugins: [any SourcePlugin]
    private var sourceLinks: [LinkState]
    private var routes: [String: SourceRoute] = [:]
    private var pending = PendingMessages()
    /// The events of the message being handled (kept to reuse its storage).
    private var eventBuffer: [SourceEvent] = []
    private var refusals: [LimitKind: Int] = [:]
    /// The login pages' refusals, as the HTTP edge reports them (beside the limits' on health).
    private(set) var logins = LoginRefusals()
    /// The history's totals as the health topic says them (nil payload: no history kept).
    private(set) var history = HistoryHealth()
    /// Messages each plug-in was handed since start (for `/metrics`).
    private var received: [Int]
    /// The broker connection: the first link of every MQTT-sourced trait's chain.
    private(set) var broker = LinkState()
    /// Whether the health topic says something it did not say when last published.
    private(set) var isHealthChanged = true
    /// What the plug-ins said while the bridge was made (a generic mapping that makes no device).
    private(set) var startLogs: [BridgeLogLine] = []

    /// The most events whose room ``eventBuffer`` keeps between messages (a 10 000-device list's
    /// events would hold ~10 MB of room for good).
    static let eventBufferCapacity = 64
    /// A payload this large is let go once its plug-in has read it, unless an event still needs
    /// it: a 45 MB device list is not held while its 10 000 devices are described.
    static let releasedPayloadBytes = 1 << 16

    init(plugins: [any SourcePlugin]) {
        self.plugins = plugins
        self.sourceLinks = Array(repeating: LinkState(), count: plugins.count)
        self.received = Array(repeating: 0, count: plugins.count)
    }

    // MARK: Plug-ins

    var indices: Range<Int> { plugins.indices }
    /// Plug-in `index`, to read (never kept: it changes with every message it takes).
    subscript(index: Int) -> any SourcePlugin { plugins[index] }
    var allPlugins: [any SourcePlugin] { plugins }

    /// The plug-in a trait's source reference names.
    func index(of reference: SourceReference) -> Int? {
        plugins.firstIndex { $0.family == reference.family && $0.instance == reference.instance }
    }

    /// The plug-ins an exact topic is routed to.
    func route(_ topic: String) -> SourceRoute? { routes[topic] }

    /// The first broker plug-in (no edge channel) that claims a topic no route names.
    func claimant(_ topic: String) -> Int? {
        plugins.firstIndex { $0.channel == nil && $0.claims(topic) }
    }

    /// The plug-in of edge connection `channel` that claims `topic`.
    func claimant(_ topic: String, channel: String) -> Int? {
        plugins.firstIndex { $0.channel == channel && $0.claims(topic) }
    }

    /// Whether the plug-in a topic goes to reads lists there (they may be larger than messages).
    func carriesList(_ topic: String) -> Bool {
        guard let index = routes[topic]?.first ?? plugins.firstIndex(where: { $0.claims(topic) }) else { return false }
        return plugins[index].carriesList(topic)
    }

    /// What plug-in `index` knows before any message (generic mappings).
    mutating func start(_ index: Int) -> [SourceEvent] {
        var events: [SourceEvent] = []
        plugins[index].start(into: &events)
        return events
    }

    /// What the plug-ins said as they started, for the runtime to write once it has a logger.
    mutating func started(logs: [BridgeLogLine]) {
        startLogs = logs
    }

    /// Hands `message` to plug-in `index`; its events, in a buffer to give back with ``recycle(_:)``.
    mutating func receive(_ message: SourceMessage, plugin index: Int) -> [SourceEvent] {
        var events = eventBuffer
        eventBuffer = []
        received[index] &+= 1
        plugins[index].receive(message, into: &events)
        return events
    }

    /// How many messages plug-in `index` was handed since start.
    func receivedCount(_ index: Int) -> Int { received[index] }

    /// The room the kept event buffer has (bounded by ``eventBufferCapacity``).
    var keptEventCapacity: Int { eventBuffer.capacity }

    /// The events' storage, back for the next message (kept only while small).
    mutating func recycle(_ events: consuming [SourceEvent]) {
        guard events.capacity <= Self.eventBufferCapacity else { return }
        events.removeAll(keepingCapacity: true)
        eventBuffer = events
    }

    /// The messages for writes on plug-in `index`'s traits of member `id`.
    mutating func commands(
        for writes: [AttributeUpdate], on id: DeviceID, plugin index: Int
    ) throws(SourceCommandError) -> [SourceOutgoing] {
        try plugins[index].commands(for: writes, on: id)
    }

    // MARK: Routes

    mutating func addRoutes(_ topics: [String], to index: Int) {
        for topic in topics { routes[topic, default: SourceRoute(first: index)].insert(index) }
    }

    mutating func removeRoutes(_ topics: [String], from index: Int) {
        for topic in topics { routes[topic] = routes[topic]?.removing(index) }
    }

    // MARK: Links

    /// Plug-in `index`'s source bridge (unknown for those without one).
    func sourceLink(_ index: Int) -> LinkState { sourceLinks[index] }

    /// Plug-in `index`'s source bridge said it is `status`: `false` when that is not news.
    mutating func setSourceLink(_ index: Int, _ link: LinkState) -> Bool {
        guard sourceLinks[index].status != link.status else { return false }
        sourceLinks[index] = link
        return true
    }

    mutating func setBroker(_ link: LinkState) {
        broker = link
    }

    // MARK: Messages kept for devices not known yet

    var pendingCount: Int { pending.count }
    var pendingBytes: Int { pending.bytes }

    /// Keeps the newest message of a topic whose device is not known yet. Past the count or byte
    /// bound the oldest kept message makes room; what was refused is returned for the engine to say.
    mutating func keepPending(_ topic: String, _ payload: [UInt8], limits: BridgeLimits) -> [Refusal] {
        guard payload.count <= limits.pendingBytes else {
            let detail = "keeping a \(payload.count)-byte message for a device not known yet"
            return [Refusal(kind: .pendingBytes, topic: topic, detail: detail)]
        }
        pending.keep(topic, payload)
        var refused: [Refusal] = []
        while pending.count > limits.pendingMessages || pending.bytes > limits.pendingBytes, pending.count > 1,
            let oldest = pending.evictOldest()
        {
            refused.append(
                Refusal(
                    kind: pending.count >= limits.pendingMessages ? .pendingMessages : .pendingBytes, topic: oldest,
                    detail: "the oldest message kept for a device not known yet, to make room"))
        }
        return refused
    }

    /// Takes the message kept for `topic`, if any.
    mutating func takePending(_ topic: String) -> [UInt8]? { pending.take(topic) }

    /// The kept topics under `prefix`.
    func pendingTopics(under prefix: String) -> [String] { pending.topics(under: prefix) }

    // MARK: Health

    /// Counts one refusal of `kind`: the count so far. The health topic changes.
    mutating func countRefusal(_ kind: LimitKind) -> Int {
        let count = refusals[kind, default: 0] + 1
        refusals[kind] = count
        isHealthChanged = true
        return count
    }

    func refusalCount(_ kind: LimitKind) -> Int { refusals[kind, default: 0] }

    /// The login pages' running totals; whether they changed (the health topic changes then).
    mutating func noteLogins(failed: Int, waited: Int) -> Bool {
        guard logins.update(failed: failed, waited: waited) else { return false }
        isHealthChanged = true
        return true
    }

    /// The history recorder's totals; whether the health topic should say them (it changes then).
    mutating func noteHistory(_ totals: HistoryRecorder.Totals, now: Date) -> Bool {
        guard history.update(totals, now: now) else { return false }
        isHealthChanged = true
        return true
    }

    /// Something the health topic says changed (a link, a cloud device count).
    mutating func markHealthChanged() { isHealthChanged = true }

    /// The device counts health last said (each plug-in's, then all): set at every tick, and when
    /// they differ the health topic is due again.
    private var countedDevices: [Int] = []

    /// Notes the device counts now; marks health changed when they moved since the last tick.
    mutating func noteDeviceCounts(all: Int) {
        var counts = plugins.map(\.deviceCount)
        counts.append(all)
        guard counts != countedDevices else { return }
        countedDevices = counts
        isHealthChanged = true
    }

    /// Whether the health topic is due (changed, and the broker is up); if so it counts as published.
    mutating func takeHealthChange() -> Bool {
        guard isHealthChanged, broker.status == .up else { return false }
        isHealthChanged = false
        return true
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
