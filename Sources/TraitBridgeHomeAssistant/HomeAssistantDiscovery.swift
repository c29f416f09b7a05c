import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Home Assistant MQTT discovery for the unified devices: one device-based config per device
/// (`<prefix>/device/<object id>/config`), its entities made from the table, each reading the
/// bridge's unified state topic through templates and writing the unified command topic, with
/// its own availability: the bridge's Last Will *and* its trait's connectivity. Pure: a device and
/// what it feeds in, the config's bytes out; the engine decides when to publish.
public struct HomeAssistantDiscovery: Sendable {
    /// What one trait of a device feeds and accepts, as its description says.
    public struct TraitOffer: Sendable {
        public var attributes: [String: AttributeMetadata]
        public var commands: Set<String>
        /// Whether the source says what it can write; when not (Tasmota, Shelly, a cloud), every command
        /// the catalog has for the trait is offered, and the source refuses what it cannot do.
        public var sourceSaysWrites: Bool

        public init(attributes: [String: AttributeMetadata], commands: Set<String>, sourceSaysWrites: Bool = true) {
            self.attributes = attributes
            self.commands = commands
            self.sourceSaysWrites = sourceSaysWrites
        }
    }

    /// The bridge's side of the topics and names.
    public struct Settings: Sendable, Hashable {
        /// Home Assistant's discovery prefix (`homeassistant`).
        public var discoveryPrefix: String
        /// The bridge's topic prefix (`traitbridge`): in topics, ids and object ids.
        public var bridgePrefix: String
        /// The bridge device's name in Home Assistant.
        public var bridgeName: String
        /// The bridge's version, in every config's origin.
        public var version: String

        public init(discoveryPrefix: String, bridgePrefix: String, bridgeName: String, version: String) {
            self.discoveryPrefix = discoveryPrefix
            self.bridgePrefix = bridgePrefix
            self.bridgeName = bridgeName
            self.version = version
        }
    }

    public let table: HomeAssistantExportTable
    public let catalog: Catalog
    public let settings: Settings

    public init(table: HomeAssistantExportTable, catalog: Catalog, settings: Settings) {
        self.table = table
        self.catalog = catalog
        self.settings = settings
    }

    /// `<bridge prefix>_<device id>`, with every byte Home Assistant does not take in an object id
    /// made `_` and then a hash of the id (so two ids that differ only there stay apart).
    public func objectID(_ id: DeviceID) -> String {
        let raw = id.rawValue
        let plain = raw.utf8.allSatisfy { HomeAssistantExportTable.isKeyByte($0) || $0 == 0x2D }
        guard !plain else { return prefixWord + "_" + raw }
        let cleaned = String(
            decoding: raw.utf8.prefix(96).map { HomeAssistantExportTable.isKeyByte($0) || $0 == 0x2D ? $0 : 0x5F },
            as: UTF8.self)
        return prefixWord + "_" + cleaned + "_" + Self.stableHash(raw)
    }

    /// The bridge prefix as a word for ids (`traitbridge`; `home/bridge` → `home_bridge`).
    var prefixWord: String {
        String(
            decoding: settings.bridgePrefix.utf8.map { HomeAssistantExportTable.isKeyByte($0) ? $0 : 0x5F },
            as: UTF8.self)
    }

    /// The object id of the bridge's own device.
    public var bridgeObjectID: String { prefixWord + "_bridge" }

    /// `<discovery prefix>/device/<object id>/config`.
    public func configTopic(objectID: String) -> String { "\(settings.discoveryPrefix)/device/\(objectID)/config" }

    /// The object id a config topic of ours names (`<prefix>/device/<bridge prefix>_…/config`), or nil.
    public func ownObjectID(configTopic topic: String) -> Substring? {
        let head = settings.discoveryPrefix + "/device/"
        guard topic.hasPrefix(head), topic.hasSuffix("/config") else { return nil }
        let objectID = topic.dropFirst(head.count).dropLast("/config".count)
        guard objectID.hasPrefix(prefixWord + "_"), !objectID.contains("/") else { return nil }
        return objectID
    }

    /// `<discovery prefix>/status`: Home Assistant's birth (`online`) and will (`offline`).
    public var statusTopic: String { settings.discoveryPrefix + "/status" }

    var availabilityTopic: String { settings.bridgePrefix + "/bridge/state" }
    func stateTopic(_ id: DeviceID) -> String { settings.bridgePrefix + "/devices/" + id.rawValue + "/state" }
    func commandTopic(_ id: DeviceID) -> String { settings.bridgePrefix + "/devices/" + id.rawValue + "/set" }
    func eventTopic(_ id: DeviceID) -> String { settings.bridgePrefix + "/devices/" + id.rawValue + "/event" }

    /// FNV-1a of the bytes, 8 hex digits: the same on every run (Swift's `Hasher` is seeded per process).
    static func stableHash(_ text: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The `origin` every config carries (Home Assistant requires it for device configs).
    var origin: JSONValue {
        ["name": "TraitBridge", "sw_version": .string(settings.version)]
    }
}
