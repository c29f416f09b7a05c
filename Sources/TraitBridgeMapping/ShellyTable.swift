public import TraitBridgeModel
import TraitBridgeJSON
import FoundationEssentials

/// `mappings/sources/shelly.json`: which value of a Shelly Gen1 topic or Gen2 status component
/// feeds which attribute, on which device type, and how it is written back.
///
/// Data, not code: the Shelly protocols (topics, JSON-RPC) live in `TraitBridgeSources/Shelly`;
/// what each value means lives here, checked against the catalog on load.
public struct ShellyTable: Sendable {
    /// One value and the attribute it feeds.
    public struct Rule: Sendable {
        /// Gen1: the topic below `shellies/<id>/` split at `/`; `<n>` stands for the channel.
        public var topicPattern: [String]
        /// Gen2: the component type (`switch` of `switch:0`).
        public var component: String
        /// The dotted path of the value inside a JSON payload; empty for a plain payload.
        public var field: [String]
        /// The device type key on the device; `<n>` is replaced by the channel.
        public var keyPattern: String
        public var deviceType: DeviceTypeID
        public var trait: TraitID
        public var attribute: String
        public var pipeline: ValuePipeline
        public var metadata: AttributeMetadata
        /// Gen1 write: the topic below the device (`relay/<n>/command`), the JSON key when the
        /// payload is an object (`brightness` of `light/<n>/set`).
        public var commandTopic: String?
        public var commandField: String?
        /// Gen2 write: the JSON-RPC method and its parameter (`Switch.Set`, `on`).
        public var method: String?
        public var parameter: String?

        /// The device type key for channel `n`.
        public func key(channel: Int) -> String { keyPattern.replacing("<n>", with: String(channel)) }
    }

    public var gen1: [Rule] = []
    public var gen2: [Rule] = []
    /// Gen2 component type → indices of its rules, for one lookup per component.
    public private(set) var gen2ByComponent: [String: [Int]] = [:]

    public init(gen1: [Rule] = [], gen2: [Rule] = []) {
        self.gen1 = gen1
        self.gen2 = gen2
        for (index, rule) in gen2.enumerated() { gen2ByComponent[rule.component, default: []].append(index) }
    }

    /// Loads `<mappings>/sources/shelly.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> ShellyTable {
        try SourceTableReader.load("sources/shelly.json", mappingsDirectory: mappingsDirectory, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    /// Decodes table text (tests use it to check the error places).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> ShellyTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in decode(root, tables: tables) }
    }

    static func decode(_ root: JSON, tables: SourceTableReader) -> ShellyTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["gen1", "gen2"])
        var gen1: [Rule] = []
        var gen2: [Rule] = []
        for generation in ["gen1", "gen2"] {
            for (index, element) in reader.array(root, generation, at: .root, required: true).enumerated() {
                let path = JSONPath.root.appending(generation).appending(index)
                guard let object = reader.object(element, at: path) else { continue }
                let own: Set<String> = generation == "gen1" ? ["topic", "command", "commandField"] : ["component", "method", "param"]
                reader.checkKeys(object, at: path, allowed: own.union(["field", "key", "deviceType", "trait", "attribute", "transform"]))
                guard let key = reader.string(object, "key", at: path, required: true),
                    let type = tables.deviceType(object, "deviceType", at: path),
                    let trait = tables.trait(object, at: path),
                    let attribute = tables.attribute(object, of: trait, at: path),
                    let metadata = try? tables.catalog.attributeMetadata(trait, attribute)
                else { continue }
                let canHold = tables.catalog.deviceType(type).map { $0.requiredTraits.contains(trait) || $0.optionalTraits.contains(trait) } ?? false
                if !canHold { reader.problem(path.appending("trait"), "device type \(type) has no trait \(trait) (neither required nor optional)") }
                var rule = Rule(
                    topicPattern: [], component: "", field: reader.string(object, "field", at: path).map { $0.split(separator: ".").map(String.init) } ?? [],
                    keyPattern: key, deviceType: type, trait: trait, attribute: attribute, pipeline: tables.pipeline(object, at: path), metadata: metadata)
                if generation == "gen1" {
                    guard let topic = reader.string(object, "topic", at: path, required: true) else { continue }
                    rule.topicPattern = topic.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
                    if rule.topicPattern.contains(where: { $0.isEmpty || $0.contains("+") || $0.contains("#") }) {
                        reader.problem(path.appending("topic"), "expected topic levels such as \"relay/<n>/power\", without empty levels or wildcards")
                    }
                    rule.commandTopic = reader.string(object, "command", at: path)
                    rule.commandField = reader.string(object, "commandField", at: path)
                    gen1.append(rule)
                } else {
                    guard let component = reader.string(object, "component", at: path, required: true) else { continue }
                    rule.component = component
                    rule.method = reader.string(object, "method", at: path)
                    rule.parameter = reader.string(object, "param", at: path)
                    if (rule.method == nil) != (rule.parameter == nil) {
                        reader.problem(path, "'method' and 'param' go together: the JSON-RPC method and the parameter that carries the value")
                    }
                    gen2.append(rule)
                }
            }
        }
        return ShellyTable(gen1: gen1, gen2: gen2)
    }
}
