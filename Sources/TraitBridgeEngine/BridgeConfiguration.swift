public import FoundationEssentials
import Logging
public import TraitBridgeCloud
public import TraitBridgeModel
public import TraitBridgeStore

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
    /// commands become EXECUTE requests for the link instead of messages for an MQTT relay.
    public var cloudLinks: Set<String> = []
    /// Which EXECUTE commands need the user's yes or PIN first (Google's secondary user verification).
    public var challengeRules = ChallengeRules()
    /// Tasmota devices announced by native discovery; `nil` leaves Tasmota out.
    public var tasmota: TasmotaInstance?

    public struct TasmotaInstance: Sendable {
        public var instance: String
        /// Where Tasmota publishes discovery (`tasmota/discovery/<mac>/config`).
        public var discoveryPrefix: String
        public var locality: TraitLocality
        /// Silence longer than this, without an LWT, makes a device unknown.
        public var staleness: Duration

        public init(
            instance: String = "default", discoveryPrefix: String = "tasmota/discovery", locality: TraitLocality,
            staleness: Duration = .seconds(900)
        ) {
            self.instance = instance
            self.discoveryPrefix = discoveryPrefix
            self.locality = locality
            self.staleness = staleness
        }
    }

    /// Shelly Gen1 (`shellies/…`) and Gen2+ devices (any prefix); `nil` leaves Shelly out.
    public var shelly: ShellyInstance?

    public struct ShellyInstance: Sendable {
        public var instance: String
        public var locality: TraitLocality
        /// Silence longer than this, without an `online` message, makes a device unknown.
        public var staleness: Duration

        public init(instance: String = "default", locality: TraitLocality, staleness: Duration = .seconds(900)) {
            self.instance = instance
            self.locality = locality
            self.staleness = staleness
        }
    }

    /// Matter Servers (python-matter-server) whose nodes the bridge reads over their WebSocket.
    public var matter: [MatterInstance] = []

    public struct MatterInstance: Sendable {
        public var instance: String
        /// `ws://host:5580/ws`: named in logs and reasons; the edge client connects to it.
        public var url: String
        /// `localPeer` (the server talks to the devices on the LAN) unless configured.
        public var locality: TraitLocality

        public init(instance: String = "default", url: String, locality: TraitLocality = .localPeer) {
            self.instance = instance
            self.url = url
            self.locality = locality
        }
    }

    /// Entities announced by Home Assistant MQTT discovery (consumed); `nil` leaves them out.
    public var homeAssistant: HomeAssistantInstance?

    public struct HomeAssistantInstance: Sendable {
        public var instance: String
        /// Where configs are published (`homeassistant/<component>/…/config`); may have several levels.
        public var discoveryPrefix: String
        public var locality: TraitLocality
        /// Silence longer than this, for an entity without availability topics, makes it unknown.
        public var staleness: Duration

        public init(
            instance: String = "default", discoveryPrefix: String = "homeassistant", locality: TraitLocality,
            staleness: Duration = .seconds(900)
        ) {
            self.instance = instance
            self.discoveryPrefix = discoveryPrefix
            self.locality = locality
            self.staleness = staleness
        }
    }

    public struct Zigbee2MQTTInstance: Sendable {
        public var instance: String
        public var baseTopic: String
        public var locality: TraitLocality
        /// Overrides of the table's staleness budgets.
        public var mainsStaleness: Duration?
        public var batteryStaleness: Duration?
        /// Per-device budgets by IEEE address or friendly name.
        public var deviceStaleness: [String: Duration]

        public init(
            instance: String = "default", baseTopic: String = "zigbee2mqtt", locality: TraitLocality,
            mainsStaleness: Duration? = nil, batteryStaleness: Duration? = nil,
            deviceStaleness: [String: Duration] = [:]
        ) {
            self.instance = instance
            self.baseTopic = baseTopic
            self.locality = locality
            self.mainsStaleness = mainsStaleness
            self.batteryStaleness = batteryStaleness
            self.deviceStaleness = deviceStaleness
        }
    }

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

/// Something the bridge wants sent; the state machine returns these and the caller publishes them.
public struct Outgoing: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var isRetained: Bool
    public var qos: Int
    /// An answer to an MQTT 5 request echoes its Correlation Data.
    public var correlationData: [UInt8]?
    /// Not for the broker: the edge connection of a plug-in (``SourcePlugin/channel``) sends it.
    public var channel: String?

    public init(
        topic: String, payload: [UInt8], isRetained: Bool, qos: Int = 0, correlationData: [UInt8]? = nil,
        channel: String? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.isRetained = isRetained
        self.qos = qos
        self.correlationData = correlationData
        self.channel = channel
    }
}

/// Where a request's answer goes: the MQTT 5 Response Topic with its Correlation Data, or, for an
/// MQTT 3.1.1 request (`…/request/<op>/<correlation>`), `…/response/<op>/<correlation>`.
public struct ReplyAddress: Sendable, Hashable {
    public var topic: String
    public var correlationData: [UInt8]?

    public init(topic: String, correlationData: [UInt8]? = nil) {
        self.topic = topic
        self.correlationData = correlationData
    }
}

/// Where an answer goes: published to an MQTT reply address, or handed to a caller in this
/// process that waits for it (an HTTP request, by the number ``Bridge`` gave it).
public enum ResponseSink: Sendable, Hashable {
    case mqtt(ReplyAddress)
    case waiter(Int)
}

/// A log line produced by the state machine, written by the caller with swift-log.
public struct BridgeLogLine: Sendable, Hashable {
    public enum Level: Sendable, Hashable {
        case debug, info, notice, warning, error

        var loggerLevel: Logger.Level {
            switch self {
            case .debug: .debug
            case .info: .info
            case .notice: .notice
            case .warning: .warning
            case .error: .error
            }
        }
    }
    public var level: Level
    public var message: String
    /// `tb.`-prefixed metadata (`tb.mqtt.topic`, `tb.device.id`, `tb.source`).
    public var metadata: [String: String]

    public init(_ level: Level, _ message: String, _ metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}

/// What one event produced: messages to publish, rows to store, lines to log.
/// Performs a long event's effects in slices, in order (see ``BridgeState/effectsSlice``): the
/// runtime's `perform`, called inside its lock, after `publications` publications.
public struct EffectsSlice: Sendable {
    public var publications: Int
    public var perform: @Sendable (consuming BridgeEffects) -> Void

    public init(publications: Int, perform: @escaping @Sendable (consuming BridgeEffects) -> Void) {
        self.publications = publications
        self.perform = perform
    }
}

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

/// An EXECUTE request body (Google's shape) for the cloud link `link`; its answer goes back to
/// the bridge with `requestID` (``Bridge/linkExecuted(_:link:requestID:)``).
public struct LinkRequest: Sendable, Hashable {
    public var link: String
    public var requestID: String
    public var body: [UInt8]

    public init(link: String, requestID: String, body: [UInt8]) {
        self.link = link
        self.requestID = requestID
        self.body = body
    }
}

/// A change for the registry on disk.
public enum StoreChange: Sendable, Hashable {
    case upsert(DeviceRecord)
    case remove(DeviceID)
    /// An imported cloud device: what its SYNC said beyond the model, and the device as imported.
    case saveCloudDevice(CloudOriginRecord, DeviceRecord)
    /// The user's name and room for a device (empty: back to the sources').
    case placement(DeviceID, UserPlacement)
    /// The whole home layout (``HomeLayoutCodec``), after an edit.
    case layout([UInt8])
    /// An automation's definition (`nil`: removed), its history, the time the bridge last ran.
    case automation(String, [UInt8]?)
    case automationHistory(String, [UInt8])
    case clock(Date)
}

extension BridgeLogLine {
    /// Writes the line to `logger` at its level, with its metadata.
    func log(to logger: Logger) {
        guard logger.logLevel <= level.loggerLevel else { return }  // 10 000 "added device" lines at warning
        var fields = Logger.Metadata()
        for (key, value) in metadata { fields[key] = "\(value)" }
        logger.log(level: level.loggerLevel, "\(message)", metadata: fields)
    }
}
