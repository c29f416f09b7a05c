public import FoundationEssentials
public import TraitBridgeJSON
public import TraitBridgeModel

/// One family of devices on the broker (zigbee2mqtt, Tasmota, Shelly…) as the engine sees it.
///
/// The engine knows no family by name: it subscribes to ``subscriptions``, routes each message
/// to the plug-in that claimed its topic, and applies the ``SourceEvent``s the plug-in returns.
/// A plug-in owns its per-device state (bindings, topics, what it parsed) and never sees the
/// broker, the graph or the clock except through its arguments, so every family is tested from
/// recorded payloads with no engine at all. Two instances of a family (two zigbee2mqtt prefixes)
/// are two plug-ins. Adding a family is one folder here (its plug-in and its ``SourceFamily``)
/// plus its line in ``SourceRegistry/standard``.
public protocol SourcePlugin: Sendable {
    /// The family in every ``SourceReference`` this plug-in makes (`zigbee2mqtt`).
    var family: String { get }
    /// The configured instance name (`default` unless two instances share the broker).
    var instance: String { get }
    /// How near its traits are: what connectivity says when the chain is up.
    var locality: TraitLocality { get }
    /// The staleness budget of a device it has not described yet (an `online` word came first).
    var staleness: Duration { get }
    /// The topic filters to subscribe to at every connect (more come as ``SourceEvent/subscribe(_:)``).
    var subscriptions: [String] { get }
    /// The devices it holds now, for the bridge's health and for its source bridge's changes.
    var deviceIDs: [DeviceID] { get }
    var deviceCount: Int { get }
    /// The edge connection its messages come from and its commands go to, when that is not the
    /// broker (a Matter Server's WebSocket): the engine never routes a broker message to it, and
    /// what it publishes goes to that connection.
    var channel: String? { get }
    /// Its devices join devices of other sources (Home Assistant entities, generic mappings):
    /// a device the registry restored from such a source is never one another joins.
    var joinsOtherDevices: Bool { get }
    /// Its devices came from Home Assistant (its MQTT discovery): Home Assistant has them, so the
    /// bridge's own discovery gives Home Assistant only those another source feeds too (no loop).
    var devicesAreHomeAssistants: Bool { get }
    /// What it knows before any message (generic mappings from files): called once, at start.
    mutating func start(into events: inout [SourceEvent])
    /// Whether a topic no route names may be this plug-in's: a prefix or shape test, asked once
    /// per topic until the plug-in routes it (``SourceEvent/route(_:)``).
    func claims(_ topic: String) -> Bool
    /// Whether `topic` carries a whole list (zigbee2mqtt's `bridge/devices`): it may be larger
    /// than a device's message, up to the bridge's list bound.
    func carriesList(_ topic: String) -> Bool
    /// Handles one message (on a routed or claimed topic) and says what it means.
    mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent])
    /// The messages that make a device do what unified writes ask, or why it cannot.
    mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    /// The bindings of a trait on a device, when the source knows the device's own limits
    /// (a bulb that does 250…454 mireds); `nil` leaves the catalog's metadata.
    func bindings(of id: DeviceID, at address: TraitAddress) -> [SourceBinding]?
}

extension SourcePlugin {
    public var channel: String? { nil }
    public var joinsOtherDevices: Bool { false }
    public var devicesAreHomeAssistants: Bool { false }
    public mutating func start(into events: inout [SourceEvent]) {}
    public func carriesList(_ topic: String) -> Bool { false }
    public func bindings(of id: DeviceID, at address: TraitAddress) -> [SourceBinding]? { nil }
}

/// One broker message handed to a plug-in, with the time it is handled at.
public struct SourceMessage: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var now: Date
    /// Devices one instance may hold; a new one past it is refused (``SourceEvent/refusedDevice(_:)``).
    public var deviceLimit: Int

    public init(topic: String, payload: [UInt8], now: Date, deviceLimit: Int = .max) {
        self.topic = topic
        self.payload = payload
        self.now = now
        self.deviceLimit = deviceLimit
    }
}

/// A message a plug-in wants published (a command, a request for a device's state).
public struct SourceOutgoing: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]

    public init(topic: String, payload: [UInt8]) {
        self.topic = topic
        self.payload = payload
    }
}

/// A device as its source describes it, for the engine to put into the home graph.
public struct SourceDevice: Sendable {
    /// Its device types and traits (each trait's `source` set), identity, info and name.
    public var device: Device
    /// Silence longer than this, without an availability word, makes it unknown.
    public var stalenessBudget: Duration
    /// The source sends no name of its own (a Shelly): a name the device has keeps.
    public var keepsName: Bool
    /// Whether it is a device of its own or part of another source's.
    public var joining: Joining
    /// Put before its device type keys on a device it joins, while a key is taken (`ha-`).
    public var keyPrefix: String
    /// Its traits' locality when it differs from the plug-in's (a generic mapping says its own).
    public var locality: TraitLocality?
    /// A room the source suggests (Home Assistant's `suggested_area`): taken once, for a device
    /// standing alone that the user has not placed.
    public var suggestedArea: String?
    /// Definitions its traits and device types need that the catalog lacks (a Matter
    /// manufacturer-specific cluster, a device type the catalog does not know), vendor-namespaced:
    /// the engine adds them to its catalog before it puts the device in the graph.
    public var traitDefinitions: [TraitDefinition] = []
    public var deviceTypeDefinitions: [DeviceTypeDefinition] = []
    /// Where the device takes a live view's SDP offer (a camera's go2rtc WebRTC API: POST the offer,
    /// the answer is the body), when it has one. The engine relays signalling only, never media.
    public var liveViewEndpoint: String?
    /// Keys of its device types whose traits join the type of the same key and type on the
    /// device it joins, rather than standing as a type of their own (a generic mapping's `join`).
    public var joinsTypes: Set<String> = []

    /// Where a described device's traits go.
    public enum Joining: Sendable, Hashable {
        /// A device of its own; devices of joining sources that name the same physical device join it.
        case owns
        /// Joins the device another source has for the same physical device (same unique id,
        /// serial, MAC, IEEE address…); stands alone while there is none.
        case sameIdentity
        /// Joins this device (a generic mapping's `mergeWith`) once it exists; until then its
        /// messages are kept.
        case device(DeviceID)
    }

    public init(
        device: Device, stalenessBudget: Duration, keepsName: Bool = false, joining: Joining = .owns,
        keyPrefix: String = "",
        locality: TraitLocality? = nil, suggestedArea: String? = nil
    ) {
        self.device = device
        self.stalenessBudget = stalenessBudget
        self.keepsName = keepsName
        self.joining = joining
        self.keyPrefix = keyPrefix
        self.locality = locality
        self.suggestedArea = suggestedArea
    }
}

/// What a message meant, in the engine's terms. A plug-in returns these in order; the engine
/// applies them and does all I/O.
public enum SourceEvent: Sendable {
    /// A device appeared or changed shape (an unchanged one should not be described again).
    case described(SourceDevice)
    /// A device is gone from its source; `reason` finishes "removed device <name>: …".
    case removed(DeviceID, reason: String)
    /// Values a message carried. `isNews`: the message is news of the device even when it
    /// carried no value the bridge maps (a zigbee2mqtt link-quality report).
    case values(DeviceID, [AttributeUpdate], isNews: Bool)
    /// The availability word of the device (or entity) a source reference names: its LWT, its
    /// `online` topic; `nil` when its words combine to "not known" (Home Assistant's `all` mode).
    /// `origin` names where the word came from in reasons, when the message's topic would not
    /// (a Matter node's `available`); nil: the topic.
    case availability(SourceReference, isOnline: Bool?, origin: String? = nil)
    /// The source's own bridge (zigbee2mqtt's `bridge/state`), the parent of all its devices.
    case sourceAvailability(isOnline: Bool, origin: String? = nil)
    /// Exact topics to hand to this plug-in from now on, with no claim test; and to forget.
    case route([String])
    case unroute([String])
    /// Topic filters to subscribe to now (a device's own topics once it is known).
    case subscribe([String])
    case publish(SourceOutgoing)
    /// The message's device is not known yet: keep it (the newest per topic) until ``replay(_:)``.
    case keepUntilKnown
    /// The kept messages of these topics (or of every topic under a prefix ending in `/`) can
    /// be handled now: the engine gives them back, in the order listed.
    case replay([String])
    case replayUnder(String)
    /// A new device past ``SourceMessage/deviceLimit``: what was refused.
    case refusedDevice(String)
    /// The source refused a command sent to this device (a Matter Server error): its waiting
    /// commands end with this reason instead of waiting for an echo that cannot come.
    case commandFailed(DeviceID, String)
    /// Something a device saw or did that is no state (motion began, a person was seen, a review
    /// item opened): published on `<prefix>/devices/<id>/event` with the trait it concerns, not
    /// retained, and shown by `watch`. The payload is bounded by the engine (4 KB).
    case notification(DeviceID, trait: TraitID, JSONValue)
    /// Something to tell the user, with the device it concerns if any.
    case log(SourceLogLevel, String, device: DeviceID?)
}

/// How loud a plug-in's log line is.
public enum SourceLogLevel: Sendable, Hashable {
    case debug, info, notice, warning, error
}

/// Why a source could not express a command.
public enum SourceCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    case notSupported(String)
    case valueNotRepresentable(String)

    public var description: String {
        switch self {
        case .notSupported(let text), .valueNotRepresentable(let text): text
        }
    }
}
