public import FoundationEssentials
public import TraitBridgeCloud
public import TraitBridgeModel

/// What a running bridge needs to know: its topic prefix, the sources it reads, the timing rules.
/// Built by `traitbridge serve` from flags and the config file; see README "Configuration".
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
    /// The zigbee2mqtt networks, each its own plug-in: base topic, instance name, locality.
    public var zigbee2mqttInstances: [Zigbee2MQTTInstance]
    /// The first zigbee2mqtt network (most installations have one).
    public var zigbee2mqtt: Zigbee2MQTTInstance? {
        get { zigbee2mqttInstances.first }
        set {
            if let newValue {
                if zigbee2mqttInstances.isEmpty {
                    zigbee2mqttInstances = [newValue]
                } else {
                    zigbee2mqttInstances[0] = newValue
                }
            } else {
                zigbee2mqttInstances.removeAll()
            }
        }
    }
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
    /// Which EXECUTE commands need the user's yes or PIN first (Google's secondary user verification).
    public var challengeRules = ChallengeRules()
    /// Tasmota devices announced by native discovery; `nil` leaves Tasmota out.
    public var tasmota: TasmotaInstance?

    /// Shelly Gen1 (`shellies/…`) and Gen2+ devices (any prefix); `nil` leaves Shelly out.
    public var shelly: ShellyInstance?

    /// Matter Servers (python-matter-server) whose nodes the bridge reads over their WebSocket.
    public var matter: [MatterInstance] = []

    /// Entities announced by Home Assistant MQTT discovery (consumed); `nil` leaves them out.
    public var homeAssistant: HomeAssistantInstance?

    public init(
        prefix: String = "traitbridge",
        brokerDescription: String,
        zigbee2mqtt: Zigbee2MQTTInstance?,
        commandTimeout: Duration = .seconds(3),
        pendingMessageLimit: Int = 10_000
    ) {
        self.prefix = prefix
        self.devicesTopicPrefix = prefix + "/devices/"
        self.brokerDescription = brokerDescription
        self.zigbee2mqttInstances = zigbee2mqtt.map { [$0] } ?? []
        self.commandTimeout = commandTimeout
        self.limits.pendingMessages = pendingMessageLimit
    }
}
