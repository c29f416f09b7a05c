public import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/homeassistant/entities.json`: which Home Assistant entities (MQTT discovery
/// components) the unified model's device types and traits are published as, with the discovery
/// options that read their values from the unified state and write them through the unified
/// command topic. Data, as HomeKit's table is: a new kind of entity is a row, not code; checked
/// against the catalog when loaded.
public struct HomeAssistantExportTable: Sendable {
    /// One part of an entity: a trait (and the attributes it reads), the options that read them, and
    /// the options that write them when the device can.
    public struct Part: Sendable {
        public var trait: TraitID
        /// The attributes the part needs the device to feed (none: the trait alone is enough).
        public var attributes: [String]
        /// The unified command whose acceptance makes `write` apply; nil: every attribute of `writes`
        /// writable.
        public var command: String?
        /// The attributes `write` writes (by default `attributes`).
        public var writes: [String]
        /// Multiplies the first attribute's bounds for `$minimum` / `$maximum` (0.01 °C → °C).
        public var scale: Double
        public var read: JSONObject
        public var write: JSONObject
        /// What the part takes from a device type, numbered (its trait's attributes, or the trait with none):
        /// an entity whose first part's are taken already is not made.
        public var claims: [Int] = []
        /// Whether `read` or `write` lists the first attribute's valid values (`$values`): a device
        /// without any gets no such entity (an event with no event types).
        public var listsValues = false
    }

    /// One entity: a Home Assistant platform, when it applies, and its parts (the first required).
    public struct Entity: Sendable {
        /// Names the entity in its unique id and component key (`light`, `temperature`).
        public var key: String
        /// Home Assistant's platform (`light`, `sensor`, …).
        public var platform: String
        /// Applies to these device types only; empty: to any device type with the first part's trait.
        public var deviceTypes: Set<DeviceTypeID>
        /// The entity's name; nil: the device's own (or the device type's key on a secondary type).
        public var name: String?
        /// Options every such entity gets (`device_class`, `unit_of_measurement`).
        public var options: JSONObject
        public var parts: [Part]
    }

    public var entities: [Entity]

    /// The platforms the table may name: those of Home Assistant's MQTT integration that a device
    /// trait maps to.
    public static let platforms: Set<String> = [
        "binary_sensor", "button", "climate", "cover", "event", "fan", "humidifier", "light", "lock", "number",
        "select", "sensor", "siren", "switch", "text", "valve", "water_heater",
    ]

    /// The words an option string may hold, replaced per device type and trait.
    public static let tokens = ["$path", "$typeKey", "$traitID", "$stateTopic", "$commandTopic", "$eventTopic"]
    /// Words that stand for a whole option value: the first attribute's bounds and its valid values.
    public static let wholeValueWords = ["$minimum", "$maximum", "$values"]

    /// Loads `<mappings>/homeassistant/entities.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError)
        -> HomeAssistantExportTable
    {
        try SourceTableReader.load(
            "homeassistant/entities.json", mappingsDirectory: mappingsDirectory, catalog: catalog
        ) { root, tables in decode(root, tables: tables) }
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError)
        -> HomeAssistantExportTable
    {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    static func decode(_ root: JSON, tables: SourceTableReader) -> HomeAssistantExportTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["entities"])
        var entities: [Entity] = []
        for (index, element) in reader.array(root, "entities", at: .root, required: true).enumerated() {
            let path = JSONPath("entities").appending(index)
            if let entity = entity(element, at: path, tables: tables) { entities.append(entity) }
        }
        var numbers: [String: Int] = [:]
        for entityIndex in entities.indices {
            for partIndex in entities[entityIndex].parts.indices {
                let part = entities[entityIndex].parts[partIndex]
                let keys = part.attributes.isEmpty ? ["\(part.trait)#"] : part.attributes.map { "\(part.trait).\($0)" }
                entities[entityIndex].parts[partIndex].claims = keys.map { key in
                    if let number = numbers[key] { return number }
                    numbers[key] = numbers.count
                    return numbers.count - 1
                }
            }
        }
        return HomeAssistantExportTable(entities: entities)
    }

    static func entity(_ element: JSON, at path: JSONPath, tables: SourceTableReader) -> Entity? {
        let reader = tables.reader
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(
            object, at: path, allowed: ["entity", "platform", "deviceTypes", "name", "options", "parts"])
        guard let key = reader.string(object, "entity", at: path, required: true),
            let platform = reader.string(object, "platform", at: path, required: true)
        else { return nil }
        guard key.utf8.allSatisfy(Self.isKeyByte), !key.isEmpty else {
            reader.problem(path.appending("entity"), "an entity key is letters, digits and _ (it is in unique ids)")
            return nil
        }
        guard platforms.contains(platform) else {
            reader.problem(
                path.appending("platform"),
                "unknown platform '\(platform)'; use one of \(platforms.sorted().joined(separator: ", "))")
            return nil
        }
        let deviceTypes = tables.deviceTypes(object, at: path)
        let options = optionsObject(object["options"], at: path.appending("options"), reader: reader)
        var parts: [Part] = []
        for (partIndex, partElement) in reader.array(object, "parts", at: path, required: true).enumerated() {
            if let part = part(partElement, at: path.appending("parts").appending(partIndex), tables: tables) {
                parts.append(part)
            }
        }
        if parts.isEmpty {
            reader.problem(path.appending("parts"), "an entity needs at least one part (its first is required)")
            return nil
        }
        return Entity(
            key: key, platform: platform, deviceTypes: deviceTypes, name: reader.string(object, "name", at: path),
            options: options, parts: parts)
    }

    static func part(_ element: JSON, at path: JSONPath, tables: SourceTableReader) -> Part? {
        let reader = tables.reader
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(
            object, at: path, allowed: ["trait", "attributes", "command", "writes", "scale", "read", "write"])
        guard let trait = tables.trait(object, at: path) else { return nil }
        func names(_ key: String) -> [String] {
            reader.array(object, key, at: path).enumerated().compactMap { index, value in
                guard let name = value.string, (try? tables.catalog.attributeMetadata(trait, name)) != nil else {
                    reader.problem(
                        path.appending(key).appending(index),
                        "\(trait) has no attribute \(value.string ?? "(not a string)"); see mappings/catalog")
                    return nil
                }
                return name
            }
        }
        let attributes = names("attributes")
        let writes = object["writes"] == nil ? attributes : names("writes")
        let command = reader.string(object, "command", at: path)
        if let command, tables.catalog.commandRulesByTrait[trait]?.contains(where: { $0.command == command }) != true {
            reader.problem(
                path.appending("command"),
                "\(trait) has no command rule '\(command)'; see mappings/catalog/command-rules")
        }
        let scale = reader.number(object, "scale", at: path) ?? 1
        if !scale.isFinite || scale == 0 { reader.problem(path.appending("scale"), "expected a finite number, not 0") }
        let read = optionsObject(object["read"], at: path.appending("read"), reader: reader)
        let write = optionsObject(object["write"], at: path.appending("write"), reader: reader)
        if command == nil, writes.isEmpty, !write.isEmpty {
            reader.problem(path.appending("write"), "writes need a 'command' or 'attributes' the device can write")
        }
        var part = Part(
            trait: trait, attributes: attributes, command: command, writes: writes, scale: scale, read: read,
            write: write)
        part.listsValues = (read.members + write.members).contains { $0.value == .string("$values") }
        return part
    }

    /// An object of discovery options; a string in it may use only the known `$` words.
    static func optionsObject(_ value: JSON?, at path: JSONPath, reader: MappingReader) -> JSONObject {
        guard let value, let object = reader.object(value, at: path) else { return JSONObject() }
        var options = JSONObject()
        for (key, member) in object.members where !key.hasPrefix("$") {
            if let text = member.string {
                checkTokens(text, at: path.appending(key), reader: reader)
            }
            options.append(key, member.value)
        }
        return options
    }

    static func checkTokens(_ text: String, at path: JSONPath, reader: MappingReader) {
        if wholeValueWords.contains(text) { return }
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            let tail = rest[dollar...]
            guard let token = tokens.first(where: { tail.hasPrefix($0) }) else {
                reader.problem(path, "unknown word '\(tail.prefix(16))…'; use \(tokens.joined(separator: ", "))")
                return
            }
            rest = tail.dropFirst(token.count)
        }
    }

    /// Bytes allowed in an entity key, a device type key or a trait id put into templates and ids.
    public static func isKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x5F
    }
}
