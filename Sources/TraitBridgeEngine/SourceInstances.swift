public import FoundationEssentials
public import TraitBridgeModel

/// Each source family's settings for one instance, as `traitbridge serve` reads them from its
/// config file (the plug-ins are made from these by ``SourceRegistry``).
extension BridgeConfiguration {
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
}
