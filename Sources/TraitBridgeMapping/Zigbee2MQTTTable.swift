import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/sources/zigbee2mqtt.json`: how zigbee2mqtt's exposes become device types and traits.
///
/// Data, not code: the zigbee2mqtt adapter interprets `bridge/devices` with these rules, so a new
/// expose is supported by editing the file. Loaded against the catalog: every device type, trait
/// and attribute it names must exist there.
public struct Zigbee2MQTTTable: Sendable {
    /// A composite expose (`light`, `switch`, …) and how its features map.
    public struct Composite: Sendable {
        /// The first rule whose `whenAny` feature is present wins; a rule without `whenAny` always matches.
        public var deviceTypes: [(whenAny: [String], type: DeviceTypeID)]
        public var features: [String: Feature]
    }

    /// One feature of a composite, or one standalone expose.
    public struct Feature: Sendable {
        public var trait: TraitID
        /// The attribute for a simple value; `nil` when ``fields`` maps an object's members.
        public var attribute: String?
        public var pipeline: ValuePipeline
        /// Sub-fields of an object value (color `x`/`y`), each to its own attribute.
        public var fields: [String: (attribute: String, pipeline: ValuePipeline)]
        /// Build the ON/OFF (true/false…) map from the expose's `value_on`/`value_off`.
        public var isBinaryFromExpose: Bool
        /// Clamp command values to the expose's `value_min`/`value_max`.
        public var clampsToExposeRange: Bool
        /// When set, only features with one of these properties bind (a thermostat's child lock is
        /// also a `lock` expose with a `state` feature, but its property is `child_lock`).
        public var onlyProperties: [String]?
        /// When set, only an expose with this `unit` binds: zigbee2mqtt 1.x sensors expose a raw
        /// `illuminance` with no unit beside `illuminance_lux` in `lx`; only the latter is lux.
        public var exposeUnit: String?
        /// An event as well as a value (a button's `action`): each value a message that is not
        /// retained carries is a notification too, and the values are the expose's `values` only.
        public var notifies: Bool = false
    }

    /// A standalone expose by property, with the device type it implies.
    public struct Property: Sendable {
        public var deviceType: DeviceTypeID
        public var feature: Feature
    }

    public var composites: [String: Composite] = [:]
    public var properties: [String: Property] = [:]
    /// Device type keys / ids in the order that decides the primary type.
    public var primaryOrder: [String] = []
    public var mainsStaleness: Duration = .seconds(600)
    public var batteryStaleness: Duration = .seconds(90_000)

    /// Loads `<mappings>/sources/zigbee2mqtt.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> Zigbee2MQTTTable {
        try SourceTableReader.load("sources/zigbee2mqtt.json", mappingsDirectory: mappingsDirectory, catalog: catalog) {
            root, tables in
            Zigbee2MQTTTableDecoder(tables: tables).decode(root)
        }
    }

    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> Zigbee2MQTTTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in
            Zigbee2MQTTTableDecoder(tables: tables).decode(root)
        }
    }
}
