import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
public import TraitBridgeMatterCredentials
public import TraitBridgeMatterInteraction
public import TraitBridgeMatterSecureChannel
public import TraitBridgeMatterTransport

/// A Matter device's node as a value (Core chapter 4 and §4.14): it owns the session table and
/// composes the message layer (headers, counters, replay windows, MRP through ``ExchangeLayer``)
/// with the PASE responder. Events in — a datagram from a peer address, the time — and effects
/// out — bytes to send, log lines, a session established; the caller does the I/O and calls
/// ``handle(_:using:)`` again at ``nextDeadline``. It exists so everything a hostile network can
/// do to the device is tested without a socket: no datagram traps it or grows it past its bounds.
///
/// `Peer` is whatever the edge calls an address (NIO's `SocketAddress`; a string in tests).
/// The node holds the PASE verifier, salt and iterations, never the passcode.
public struct MatterNode<Peer: Hashable & Sendable & CustomStringConvertible>: Sendable {
    /// What happened.
    public enum Event: Sendable {
        /// A UDP datagram arrived from `peer` at `now`.
        case datagram([UInt8], from: Peer, now: ContinuousClock.Instant)
        /// The time is `now` (the caller's timer for ``nextDeadline`` fired, or any time).
        case tick(now: ContinuousClock.Instant)
    }

    /// What the caller does.
    public enum Effect: Sendable {
        /// Send this datagram to `peer`.
        case send([UInt8], to: Peer)
        /// Log this line.
        case log(NodeLogLine)
        /// PASE or CASE succeeded: a secure session is in the table.
        case sessionEstablished(EstablishedSession<Peer>)
        /// What the node must be announced as by DNS-SD changed (the window, a fabric added or removed).
        case announce(NodeAnnouncement)
        /// A command or write changed these application attributes (the light switched by a controller).
        case attributesChanged([ConcreteAttributePath])
        /// A controller's command or write that an application endpoint accepted for its device to carry out.
        case forwarded(EndpointRequest)
    }

    public let limits: NodeLimits
    var sessions: SessionTable<Peer>
    var exchanges: ExchangeLayer
    var unsecuredCounter: MessageCounter
    var pase: PASEResponder<ExchangeKey>
    let commissioning: PASEResponder<ExchangeKey>.Configuration
    /// The running PASE handshake's exchange and when it must be over.
    var handshake: (exchange: ExchangeKey, deadline: ContinuousClock.Instant)?
    var caseResponder: CASEResponder<ExchangeKey>
    /// The running CASE handshake's exchange and when it must be over.
    var caseHandshake: (exchange: ExchangeKey, deadline: ContinuousClock.Instant)?
    /// The endpoints, clusters and attributes served; the commissioning state inside its root.
    public internal(set) var dataModel: NodeDataModel
    /// Chunked reports, timed requests and subscriptions in progress.
    var interactions = InteractionState()
    /// The events recorded (StartUp first).
    var events: EventLog
    /// The discriminator of an administrator's open window (announced instead of the device's own).
    var windowDiscriminator: UInt16?
    /// What the node was last announced as.
    public internal(set) var announcement: NodeAnnouncement
    /// Whether PBKDFParamRequest is answered.
    public internal(set) var isCommissioningWindowOpen: Bool
    /// Filled while an event is handled, then handed out.
    var effects: [Effect] = []

    /// A node whose commissioning window is open (or not) with `commissioning`'s verifier; its
    /// counters, exchange IDs and session IDs start at values drawn from `generator`.
    /// `dataModel` defaults to a root endpoint alone; `validityPolicy` is how CASE checks the times of
    /// an initiator's certificates (the edge passes the time it started as the last known good time).
    public init(
        commissioning: PASEResponder<ExchangeKey>.Configuration, limits: NodeLimits = NodeLimits(),
        isCommissioningWindowOpen: Bool = true, dataModel: NodeDataModel? = nil,
        validityPolicy: ValidityPolicy = .lastKnownGoodTime(MatterTime(secondsSince2000: 0)),
        firstEventNumber: UInt64 = 0,
        using generator: inout some RandomNumberGenerator
    ) {
        self.limits = limits
        self.commissioning = commissioning
        self.isCommissioningWindowOpen = isCommissioningWindowOpen
        sessions = SessionTable(
            secureLimit: limits.secureSessions, unsecuredLimit: limits.unsecuredSessions, using: &generator)
        exchanges = ExchangeLayer(using: &generator)
        unsecuredCounter = MessageCounter(kind: .globalUnencrypted, using: &generator)
        pase = PASEResponder(configuration: commissioning)
        self.dataModel = dataModel ?? NodeDataModel(root: RootEndpoint(), endpoints: [], using: &generator)
        caseResponder = CASEResponder(configuration: .init(fabrics: [], validityPolicy: validityPolicy))
        let information = self.dataModel.root.information
        events = EventLog(firstNumber: firstEventNumber, started: information.started)
        // Basic Information StartUp (Core §11.1.6.1), with the software version.
        events.record(
            endpoint: 0, cluster: ClusterID.basicInformation, event: 0x00, priority: .critical,
            data: .contextStructure([0: .unsigned(UInt64(information.softwareVersion))]), at: information.started)
        announcement = NodeAnnouncement(
            isCommissionable: isCommissioningWindowOpen, discriminator: nil, operational: [])
        fabricsChanged()
    }

    /// When to call ``handle(_:using:)`` with `.tick` next: an ack or retransmission due, or the
    /// running handshake's time limit. Nil when nothing waits.
    public var nextDeadline: ContinuousClock.Instant? {
        [
            exchanges.nextDeadline, handshake?.deadline, caseHandshake?.deadline,
            dataModel.root.state.failSafe?.deadline, dataModel.root.state.window?.deadline,
            interactions.nextDeadline(changeCount: changeStamp),
        ].compactMap(\.self).min()
    }

    /// Handles one event; randomness (MRP jitter, PASE's responder random) comes from `generator`.
    public mutating func handle(_ event: Event, using generator: inout some RandomNumberGenerator) -> [Effect] {
        defer { effects = [] }
        switch event {
        case .datagram(let bytes, let peer, let now):
            receive(bytes, from: peer, now: now, using: &generator)
        case .tick(let now):
            tick(now: now, using: &generator)
        }
        closeRepliedSessions()
        return effects
    }

    /// Handles one event with the system's CSPRNG.
    public mutating func handle(_ event: Event) -> [Effect] {
        var generator = SystemRandomNumberGenerator()
        return handle(event, using: &generator)
    }

    /// Opens a new commissioning window: PASE is answered again, with a fresh failure count.
    public mutating func openCommissioningWindow() {
        isCommissioningWindowOpen = true
        pase = PASEResponder(configuration: commissioning)
        handshake = nil
        announceIfChanged()
    }

    /// Closes the window: PBKDFParamRequest is acknowledged and dropped; a running handshake is abandoned.
    public mutating func closeCommissioningWindow() {
        isCommissioningWindowOpen = false
        if let running = handshake { _ = exchanges.close(running.exchange) }
        handshake = nil
        announceIfChanged()
    }

    /// Moves whenever an attribute changes or an event is recorded: what subscriptions compare.
    var changeStamp: UInt64 { dataModel.changeCount &+ events.nextNumber }

    /// The number the next event will have: a restart should start above it.
    public var nextEventNumber: UInt64 { events.nextNumber }

    /// Secure sessions held now.
    public var secureSessionCount: Int { sessions.secure.count }
    /// Unsecured sessions held now.
    public var unsecuredSessionCount: Int { sessions.unsecured.count }
    /// The PASE responder's phase (`listening`, `awaiting Pake1`, …), for diagnostics.
    public var pasePhase: String { pase.phase }

    mutating func log(_ level: NodeLogLine.Level, _ message: String, _ metadata: [String: String] = [:]) {
        effects.append(.log(NodeLogLine(level, message, metadata: metadata)))
    }
}

/// What DNS-SD must say of the node (Core §4.3): commissionable while its window is open, and
/// operational on each fabric it holds (`<compressed fabric id>-<node id>`).
public struct NodeAnnouncement: Sendable, Hashable {
    public var isCommissionable: Bool
    /// The discriminator to announce while commissionable: an administrator's window's; nil for the device's own.
    public var discriminator: UInt16?
    public var operational: [OperationalIdentity]

    public init(isCommissionable: Bool, discriminator: UInt16? = nil, operational: [OperationalIdentity]) {
        self.isCommissionable = isCommissionable
        self.discriminator = discriminator
        self.operational = operational
    }
}

/// The node's name on one fabric.
public struct OperationalIdentity: Sendable, Hashable {
    public var compressedFabricID: UInt64
    public var nodeID: UInt64

    public init(compressedFabricID: UInt64, nodeID: UInt64) {
        self.compressedFabricID = compressedFabricID
        self.nodeID = nodeID
    }
}

/// What the edge learns of a session PASE or CASE established: enough to log and to find it again, no key.
public struct EstablishedSession<Peer: Hashable & Sendable>: Sendable, Hashable {
    /// The ID the commissioner puts on what it sends (we allocated it).
    public let localSessionID: UInt16
    /// The ID we put on what we send.
    public let peerSessionID: UInt16
    public let peer: Peer
}

/// A node's bounds, so nothing a peer sends grows it past them; see ``SessionTable`` for why these numbers.
public struct NodeLimits: Sendable, Hashable {
    /// Secure (PASE, later CASE) sessions held at once.
    public var secureSessions = 16
    /// Unsecured sessions (one per commissioner's ephemeral node ID) held at once.
    public var unsecuredSessions = 8
    /// The largest datagram read (Core §4.4.4: 1280 bytes, the IPv6 minimum MTU); larger ones are dropped.
    public var maxDatagramBytes = 1280
    /// How long one PASE or CASE handshake may take (connectedhomeip `kPASESessionEstablishmentTimeout`).
    public var handshakeTimeout: Duration = .seconds(60)
    /// Commands in one InvokeRequest, or attributes in one WriteRequest, acted on; the rest are not answered.
    public var commandsPerInvoke = 8
    /// Subscriptions held at once, over all sessions (Core §8.5.1 asks 3 per fabric: 5 fabrics × 3, and one more).
    public var subscriptions = 16
    /// Commands handed on to devices whose answers wait at once; past it, one is answered SUCCESS at once.
    public var deferredInvokes = 32
    /// How long a controller's answer waits for the device's: SUCCESS after it. The CHIP SDK's
    /// controllers allow about 2 s for the first byte of an answer (kExpectedIMProcessingTime).
    public var deferredInvokeWait: Duration = .milliseconds(1500)

    public init() {}
}
