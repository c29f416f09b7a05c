public import FoundationEssentials
public import TraitBridgeCloud
public import TraitBridgeModel
public import TraitBridgeSources

/// What a running bridge needs to know: its topic prefix, the sources it reads, the timing rules.
/// Built by `traitbridge serve` from flags and the config file; see docs/configuration.md.
public struct BridgeConfiguration: Sendable {
    /// Prefix of the unified topics (`<prefix>/devices/<id>/state`); default `traitbridge`.
    public var prefix: String {
        didSet { devicesTopicPrefix = prefix + "/devices/" }
    }
    /// `<prefix>/devices/`, made once: every message's topic is checked against it, and every
    /// state's topic starts with it.
    public private(set) var devicesTopicPrefix: String
    /// The broker as printed in reasons ("broker mqtt://127.0.0.1:1883 disconnected").
    public var brokerDescription: String
    /// The sources to read, each an instance of a family of ``sourceRegistry`` (its settings
    /// decoded by that family); the engine makes their plug-ins in the registry's order.
    public var sources: [SourceInstance]
    /// The families the bridge can read: ``SourceRegistry/standard`` unless a test adds one.
    public var sourceRegistry: SourceRegistry = .standard
    /// The locality of a source instance that gives none: `localPeer` for a broker on the local
    /// network, `remote` otherwise (the CLI decides from the broker URL).
    public var sourceLocality: TraitLocality = .localPeer
    /// How long a command waits for the device's echo before it is reported `assumed`.
    public var commandTimeout: Duration
    /// The time zone of a home without a location of its own (its automations' clocks).
    public var timeZone: TimeZone = .current
    /// How long a command a partner cloud answered PENDING waits for its follow-up (a garage
    /// door takes its time) before it is reported `assumed`.
    public var followUpTimeout: Duration = .seconds(60)
    /// Bounds on what outside input can make the bridge hold (devices, bytes, pending work).
    public var limits = BridgeLimits()
    /// How many messages for not-yet-discovered topics are kept (the newest per topic).
    public var pendingMessageLimit: Int {
        get { limits.pendingMessages }
        set { limits.pendingMessages = newValue }
    }
    /// Cloud device (C2C id) → the local device it is (merged even without a shared identity).
    public var cloudAliases: [String: DeviceID] = [:]
    /// Which devices Google is given (SYNC, QUERY, EXECUTE, Report State; `sync export` too).
    public var exportRules = ExportRules()
    /// The names of the cloud links (partner fulfillment URLs the bridge calls): their devices'
    /// commands become EXECUTE requests for the link instead of messages for an MQTT relay. The
    /// links at start: those added or removed while the bridge runs (`setCloudLinks`) are the
    /// engine's ``CloudLinkSupervisor``'s to know, not this value's.
    public var cloudLinks: Set<String> = []
    /// Home Assistant MQTT discovery out; nil: none.
    public var homeAssistant: HomeAssistantExport?
    /// Which EXECUTE commands need the user's yes or PIN first (Google's secondary user verification).
    public var challengeRules = ChallengeRules()
    /// Whether value and connectivity changes are recorded for the history (set by ``Bridge`` when it
    /// has a ``HistoryRecorder``): when off, the engine makes no record at all.
    public var recordsHistory = false
    public init(
        prefix: String = "traitbridge",
        brokerDescription: String,
        sources: [SourceInstance] = [],
        commandTimeout: Duration = .seconds(3),
        pendingMessageLimit: Int = 10_000
    ) {
        self.prefix = prefix
        self.devicesTopicPrefix = prefix + "/devices/"
        self.brokerDescription = brokerDescription
        self.sources = sources
        self.commandTimeout = commandTimeout
        self.limits.pendingMessages = pendingMessageLimit
    }
}
