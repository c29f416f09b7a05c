public import TraitBridgeModel
import TraitBridgeJSON
import FoundationEssentials

/// `mappings/sources/homeassistant.json`: what an entity announced by Home Assistant MQTT
/// discovery becomes.
///
/// Data, not code: the abbreviations of discovery configs, each component's device type by its
/// features, the sensor and binary-sensor device classes with their units, the HVAC mode words.
/// The discovery protocol itself (topics, `~`, availability, templates) lives in
/// `TraitBridgeSources/HADiscovery`. Loaded against the catalog; problems come with file:line:col.
public struct HomeAssistantTable: Sendable {
    /// The device type of a component, by the features an entity has (`brightness`, `xy`, …).
    public struct DeviceTypeRule: Sendable {
        /// Any of these features selects the rule; empty matches every entity.
        public var whenAny: Set<String>
        public var type: DeviceTypeID
    }

    /// A measured value (a sensor's device class, or a binary sensor's).
    public struct Measurement: Sendable {
        public var deviceType: DeviceTypeID
        public var trait: TraitID
        public var attribute: String
        public var metadata: AttributeMetadata
        /// Sensors: unit of measurement → conversion to the model. Binary sensors: one entry, key "".
        public var units: [String: ValuePipeline]
    }

    public var abbreviations: [String: String] = [:]
    public var deviceAbbreviations: [String: String] = [:]
    public var originAbbreviations: [String: String] = [:]
    /// Component (`light`, `switch`, …) → device type rules, first match wins.
    public var components: [String: [DeviceTypeRule]] = [:]
    public var sensors: [String: Measurement] = [:]
    public var binarySensors: [String: Measurement] = [:]
    /// HVAC mode word → Thermostat.systemMode.
    public var climateModes = ValuePipeline()
    /// Device types in the order that makes one primary on a device with several entities.
    public var primaryOrder: [DeviceTypeID] = []

    public init() {}

    /// The device type of a `component` entity with `features`, or `nil` when the component is not supported.
    public func deviceType(component: String, features: Set<String>) -> DeviceTypeID? {
        components[component]?.first { $0.whenAny.isEmpty || !$0.whenAny.isDisjoint(with: features) }?.type
    }

    /// The rank of a device type for the primary choice (lower is more primary).
    public func rank(of type: DeviceTypeID) -> Int {
        primaryOrder.firstIndex(of: type) ?? primaryOrder.count
    }

    /// Loads `<mappings>/sources/homeassistant.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> HomeAssistantTable {
        try SourceTableReader.load("sources/homeassistant.json", mappingsDirectory: mappingsDirectory, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    /// Decodes table text (tests use it to check the error places).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> HomeAssistantTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in decode(root, tables: tables) }
    }

    static func decode(_ root: JSON, tables: SourceTableReader) -> HomeAssistantTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: [
            "abbreviations", "deviceAbbreviations", "originAbbreviations", "components", "sensors", "binarySensors", "climateModes", "primaryOrder",
        ])
        var table = HomeAssistantTable()
        table.abbreviations = stringMap(root, "abbreviations", reader: reader)
        table.deviceAbbreviations = stringMap(root, "deviceAbbreviations", reader: reader)
        table.originAbbreviations = stringMap(root, "originAbbreviations", reader: reader)
        if let components = reader.object(root["components"], at: "components") {
            for (name, value) in components.members where !name.hasPrefix("$") {
                let path = JSONPath("components").appending(name)
                guard let object = reader.object(value, at: path) else { continue }
                reader.checkKeys(object, at: path, allowed: ["deviceTypes"])
                var rules: [DeviceTypeRule] = []
                for (index, element) in reader.array(object, "deviceTypes", at: path, required: true).enumerated() {
                    let rulePath = path.appending("deviceTypes").appending(index)
                    guard let rule = reader.object(element, at: rulePath) else { continue }
                    reader.checkKeys(rule, at: rulePath, allowed: ["whenAny", "type"])
                    guard let type = tables.deviceType(rule, "type", at: rulePath) else { continue }
                    let features = reader.array(rule, "whenAny", at: rulePath).compactMap(\.string)
                    rules.append(DeviceTypeRule(whenAny: Set(features), type: type))
                }
                if rules.last.map({ !$0.whenAny.isEmpty }) ?? true {
                    reader.problem(path.appending("deviceTypes"), "the last rule must have no 'whenAny', so that every entity of the component gets a device type")
                }
                table.components[name] = rules
            }
        }
        table.sensors = measurements(root, "sensors", tables: tables, withUnits: true)
        table.binarySensors = measurements(root, "binarySensors", tables: tables, withUnits: false)
        if let modes = reader.object(root["climateModes"], at: "climateModes") {
            reader.checkKeys(modes, at: "climateModes", allowed: ["transform"])
            table.climateModes = tables.pipeline(modes, at: "climateModes")
        }
        for (index, element) in reader.array(root, "primaryOrder", at: .root).enumerated() {
            guard let text = element.string, let type = DeviceTypeID(parsing: text), tables.catalog.deviceType(type) != nil else {
                reader.problem(JSONPath("primaryOrder").appending(index), "expected a device type of mappings/catalog")
                continue
            }
            table.primaryOrder.append(type)
        }
        return table
    }

    private static func stringMap(_ root: JSON, _ key: String, reader: MappingReader) -> [String: String] {
        guard let object = reader.object(root[key], at: JSONPath.root.appending(key)) else { return [:] }
        var map: [String: String] = [:]
        for (short, long) in object.members where !short.hasPrefix("$") {
            guard let text = long.string, !text.isEmpty else {
                reader.problem(JSONPath.root.appending(key).appending(short), "expected the full key name as a string")
                continue
            }
            map[short] = text
        }
        return map
    }

    private static func measurements(_ root: JSON, _ key: String, tables: SourceTableReader, withUnits: Bool) -> [String: Measurement] {
        let reader = tables.reader
        guard let object = reader.object(root[key], at: JSONPath.root.appending(key)) else { return [:] }
        var result: [String: Measurement] = [:]
        for (deviceClass, value) in object.members where !deviceClass.hasPrefix("$") {
            let path = JSONPath.root.appending(key).appending(deviceClass)
            guard let entry = reader.object(value, at: path) else { continue }
            reader.checkKeys(entry, at: path, allowed: ["deviceType", "trait", "attribute", withUnits ? "units" : "transform"])
            guard let type = tables.deviceType(entry, "deviceType", at: path), let trait = tables.trait(entry, at: path),
                let attribute = tables.attribute(entry, of: trait, at: path), let metadata = try? tables.catalog.attributeMetadata(trait, attribute)
            else { continue }
            let canHold = tables.catalog.deviceType(type).map { $0.requiredTraits.contains(trait) || $0.optionalTraits.contains(trait) } ?? false
            if !canHold { reader.problem(path.appending("trait"), "device type \(type) has no trait \(trait) (neither required nor optional)") }
            var units: [String: ValuePipeline] = [:]
            if withUnits {
                guard let unitObject = reader.object(entry["units"], at: path.appending("units")), unitObject.count > 0 else {
                    reader.problem(path, "missing 'units': each accepted unit_of_measurement with its transform, e.g. {\"°C\": [{\"scale\": 100}]}")
                    continue
                }
                for (unit, _) in unitObject.members {
                    units[unit] = tables.pipeline(unitObject, key: unit, at: path.appending("units"))
                }
            } else {
                units[""] = tables.pipeline(entry, at: path)
            }
            result[deviceClass] = Measurement(deviceType: type, trait: trait, attribute: attribute, metadata: metadata, units: units)
        }
        return result
    }
}
