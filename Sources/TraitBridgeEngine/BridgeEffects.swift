public import TraitBridgeModel
public import TraitBridgeStore

/// What one event produced: messages to publish, rows to store, lines to log.
public struct BridgeEffects: Sendable {
    public var publications: [Outgoing] = []
    /// Topic filters to subscribe to from now on (a Tasmota device's own topics, once discovered).
    public var subscriptions: [String] = []
    public var storeChanges: [StoreChange] = []
    public var logs: [BridgeLogLine] = []
    /// Devices whose published state changed, and those whose description changed or that went
    /// away: what Google must hear through Report State and Request Sync.
    public var changedStates: [DeviceID] = []
    public var changedDescriptions: [DeviceID] = []
    /// Answers for callers waiting in this process (``ResponseSink/waiter(_:)``).
    public var answers: [(waiter: Int, payload: [UInt8])] = []
    /// EXECUTE requests for cloud links, each for its link's client to send.
    public var linkRequests: [LinkRequest] = []
    /// Commands that ended (confirmed, assumed, refused…), for `/metrics`.
    public var commandOutcomes: [CommandOutcome] = []
    /// Live view signalling for cameras' endpoints (an SDP offer to answer, a session to end).
    public var signalling: [SignallingRequest] = []
    /// Changes for the history (empty when it is off), and `history` requests for its thread.
    public var history: [HistoryRecord] = []
    public var historyQueries: [HistoryQuery] = []
    public var historyAvailability: [HistoryAvailabilityQuery] = []

    public init() {}

    /// Adds `other`'s effects after these (effects of several messages performed as one).
    public mutating func append(contentsOf other: consuming BridgeEffects) {
        publications += other.publications
        subscriptions += other.subscriptions
        storeChanges += other.storeChanges
        logs += other.logs
        changedStates += other.changedStates
        changedDescriptions += other.changedDescriptions
        answers += other.answers
        linkRequests += other.linkRequests
        commandOutcomes += other.commandOutcomes
        signalling += other.signalling
        if !other.history.isEmpty { history += other.history }
        if !other.historyQueries.isEmpty { historyQueries += other.historyQueries }
        if !other.historyAvailability.isEmpty { historyAvailability += other.historyAvailability }
    }

    mutating func publish(_ topic: String, _ payload: [UInt8], retain: Bool, qos: Int = 0) {
        publications.append(Outgoing(topic: topic, payload: payload, isRetained: retain, qos: qos))
    }

    /// An answer to a request, at QoS 1, with the request's correlation data.
    mutating func reply(to address: ReplyAddress, _ payload: [UInt8]) {
        publications.append(
            Outgoing(
                topic: address.topic, payload: payload, isRetained: false, qos: 1,
                correlationData: address.correlationData))
    }

    /// An answer to wherever the request came from.
    mutating func answer(_ sink: ResponseSink, _ payload: [UInt8]) {
        switch sink {
        case .mqtt(let address): reply(to: address, payload)
        case .waiter(let id): answers.append((id, payload))
        }
    }

    mutating func log(_ level: BridgeLogLine.Level, _ message: String, _ metadata: [String: String] = [:]) {
        logs.append(BridgeLogLine(level, message, metadata))
    }
}

/// How a command ended and how long after it was sent: what `/metrics` counts.
public struct CommandOutcome: Sendable, Hashable {
    /// `confirmed`, `assumed`, `refused`…: the status its result carried.
    public var status: String
    /// From sent to ended, when the command was sent (a refusal before sending has none).
    public var seconds: Double?

    public init(status: String, seconds: Double?) {
        self.status = status
        self.seconds = seconds
    }
}
