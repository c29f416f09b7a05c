import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/cloud/google-c2c.json`: how Google Cloud-to-cloud types and traits become TraitBridge
/// device types and traits, and how their values convert (ARCHITECTURE §6).
///
/// Data, not code: which Matter device type a `LIGHT` becomes, which Matter trait `Brightness`
/// becomes and how `brightness` 0…100 converts to `currentLevel`, are rows of the file. Loaded
/// against the catalog, so every device type, trait and attribute it names exists.
public struct GoogleC2CTable: Sendable {
    /// One candidate device type for a C2C type.
    public struct Candidate: Sendable {
        public var deviceType: DeviceTypeID
        /// `Trait` (declared) or `Trait.attribute` (declared with that SYNC attribute); all must hold.
        public var when: [String]
    }

    /// One value that converts between a C2C state (or param) and a model attribute.
    public struct ValueRule: Sendable {
        /// A dotted path inside the C2C object: `on`, `color.temperatureK`.
        public var c2cPath: [String]
        public var attribute: String
        public var pipeline: ValuePipeline
        public var metadata: AttributeMetadata
    }

    /// A C2C command and the attribute writes its params become.
    public struct CommandRule: Sendable {
        public var command: String
        public var params: [ValueRule]

        public init(command: String, params: [ValueRule]) {
            self.command = command
            self.params = params
        }
    }

    /// A C2C trait with a Matter equivalent.
    public struct TraitRule: Sendable {
        /// The short C2C name, `OnOff`.
        public var c2cName: String
        public var trait: TraitID
        public var states: [ValueRule]
        public var sync: [ValueRule]
        public var commands: [CommandRule]
        /// SYNC attributes an export adds when the device gives no value (`queryOnly…`, units).
        public var exportSync: [String: AttributeValue]
    }

    /// One sensor of the SensorState trait (`AirQuality`, `CarbonDioxideLevel`…) and the Matter
    /// attribute it is: descriptive states through a map, numeric ones as the raw value.
    public struct SensorRule: Sendable {
        public var name: String
        public var trait: TraitID
        public var attribute: String
        /// Descriptive state (`"good"`) ↔ model value; `nil` for a numeric sensor.
        public var descriptive: ValuePipeline?
        /// The descriptive states in file order (for SYNC exports: `availableStates`).
        public var availableStates: [String]
        /// Google's `rawValueUnit` of a numeric sensor (`PARTS_PER_MILLION`).
        public var rawValueUnit: String?
        public var metadata: AttributeMetadata
    }

    /// SensorState sensors by name, in file order.
    public var sensors: [SensorRule] = []

    public func sensorRules(forTrait trait: TraitID) -> [SensorRule] {
        sensors.filter { $0.trait == trait }
    }

    /// Traits every Matter candidate gets even though no C2C trait provides them (`matter.Identify`).
    public var alwaysAdded: [TraitID] = []
    /// By short C2C type name (`LIGHT`), in file order of candidates.
    public var types: [String: [Candidate]] = [:]
    /// The C2C type names in file order: an export picks the first type that lists a device type.
    public var typeOrder: [String] = []
    /// By short C2C trait name (`Brightness`); a trait may have several Matter equivalents
    /// (`OpenClose` is a window covering on blinds, a contact sensor on a query-only door).
    public var traits: [String: [TraitRule]] = [:] {
        didSet { ruleByTrait = Self.index(traits) }
    }
    /// ``rule(forTrait:)`` as one lookup: the export asks it per trait of every device.
    private var ruleByTrait: [TraitID: TraitRule] = [:]

    public init() {}

    /// The rule whose Matter trait is `trait`, if any (the first in ``allRules``' order).
    public func rule(forTrait trait: TraitID) -> TraitRule? { ruleByTrait[trait] }

    private static func index(_ traits: [String: [TraitRule]]) -> [TraitID: TraitRule] {
        var index: [TraitID: TraitRule] = [:]
        for name in traits.keys.sorted() {
            for rule in traits[name] ?? [] where index[rule.trait] == nil { index[rule.trait] = rule }
        }
        return index
    }

    /// Every trait rule, in a stable order.
    public var allRules: [TraitRule] {
        traits.keys.sorted().flatMap { traits[$0] ?? [] }
    }

    /// Loads `<mappings>/cloud/google-c2c.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> GoogleC2CTable {
        try SourceTableReader.load("cloud/google-c2c.json", mappingsDirectory: mappingsDirectory, catalog: catalog) {
            root, tables in
            GoogleC2CTableDecoder(tables: tables).decode(root)
        }
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> GoogleC2CTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in
            GoogleC2CTableDecoder(tables: tables).decode(root)
        }
    }
}
