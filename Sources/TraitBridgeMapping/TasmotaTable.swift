public import TraitBridgeModel
import TraitBridgeJSON
import FoundationEssentials

/// `mappings/sources/tasmota.json`: what a Tasmota device announced by native discovery becomes.
///
/// Data, not code: the device type of a relay and of each light subtype, how POWER reads, which
/// light values and sensor measurements bind to which attributes. Loaded against the catalog.
public struct TasmotaTable: Sendable {
    /// One value of a payload and the attribute it feeds.
    public struct Value: Sendable {
        /// The payload key (`Dimmer`, `Temperature`, `Power`); also the command name for lights.
        public var key: String
        public var trait: TraitID
        public var attribute: String
        public var pipeline: ValuePipeline
        public var metadata: AttributeMetadata
        /// Sensors: the device type a measurement makes. Lights: unused.
        public var deviceType: DeviceTypeID?
        /// Lights: the lowest subtype (`lt_st`) that has this value.
        public var minimumSubtype: Int
    }

    public var relayType = DeviceTypeID.matter("OnOffPlugInUnit")
    public var lightTypes: [Int: DeviceTypeID] = [:]
    public var power: Value?
    public var light: [Value] = []
    public var sensors: [Value] = []
    public var energy: [Value] = []

    public init() {}

    /// Loads `<mappings>/sources/tasmota.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> TasmotaTable {
        try SourceTableReader.load("sources/tasmota.json", mappingsDirectory: mappingsDirectory, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> TasmotaTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in decode(root, tables: tables) }
    }

    static func decode(_ root: JSON, tables: SourceTableReader) -> TasmotaTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["relay", "lights", "power", "light", "sensors", "energy"])
        var table = TasmotaTable()
        if let relay = reader.object(root["relay"], at: "relay") {
            reader.checkKeys(relay, at: "relay", allowed: ["deviceType"])
            if let type = tables.deviceType(relay, "deviceType", at: "relay") { table.relayType = type }
        }
        if let lights = reader.object(root["lights"], at: "lights") {
            for (key, value) in lights.members {
                guard let subtype = Int(key), let text = value.string, let type = DeviceTypeID(parsing: text), tables.catalog.deviceType(type) != nil else {
                    reader.problem(JSONPath("lights").appending(key), "expected \"<subtype number>\": \"<device type of mappings/catalog>\"")
                    continue
                }
                table.lightTypes[subtype] = type
            }
        }
        if let power = reader.object(root["power"], at: "power") {
            table.power = value(power, at: "power", tables: tables, extraKeys: [])
        }
        for (member, path) in [("light", JSONPath("light")), ("sensors", "sensors"), ("energy", "energy")] {
            for (index, element) in reader.array(root, member, at: .root).enumerated() {
                let elementPath = path.appending(index)
                guard let object = reader.object(element, at: elementPath) else { continue }
                let extra: Set<String> = member == "light" ? ["key", "minSubtype"] : member == "sensors" ? ["key", "deviceType"] : ["key"]
                guard var value = value(object, at: elementPath, tables: tables, extraKeys: extra),
                    let key = reader.string(object, "key", at: elementPath, required: true)
                else { continue }
                value.key = key
                switch member {
                case "light":
                    value.minimumSubtype = reader.nonNegativeInt(object, "minSubtype", at: elementPath) ?? 1
                    table.light.append(value)
                case "sensors":
                    value.deviceType = tables.deviceType(object, "deviceType", at: elementPath)
                    table.sensors.append(value)
                default:
                    table.energy.append(value)
                }
            }
        }
        return table
    }

    private static func value(_ object: JSON, at path: JSONPath, tables: SourceTableReader, extraKeys: Set<String>) -> Value? {
        tables.reader.checkKeys(object, at: path, allowed: extraKeys.union(["trait", "attribute", "transform"]))
        guard let trait = tables.trait(object, at: path), let attribute = tables.attribute(object, of: trait, at: path),
            let metadata = try? tables.catalog.attributeMetadata(trait, attribute)
        else { return nil }
        return Value(key: "", trait: trait, attribute: attribute, pipeline: tables.pipeline(object, at: path), metadata: metadata, deviceType: nil, minimumSubtype: 0)
    }
}
