import TraitBridgeJSON
public import TraitBridgeModel

/// `mappings/homekit/accessories.json`: which HAP services and characteristics the unified model's
/// device types and traits are offered as to HomeKit, and how each value converts. Data, so a new
/// service is a row, not code; checked against the catalog like the source tables.
public struct HomeKitTable: Sendable {
    /// One HAP characteristic of a service.
    public struct Characteristic: Sendable, Hashable {
        public var name: String
        /// HAP's short type ("25" for On).
        public var type: String
        /// bool, uint8, uint16, uint32, uint64, int, float or string.
        public var format: String
        public var unit: String?
        public var minValue: Double?
        public var maxValue: Double?
        public var minStep: Double?
        public var permissions: [String]
        /// The trait and attribute it reads and writes; nil for a constant.
        public var trait: TraitID?
        public var attribute: String?
        /// HAP value → model value (run inverted to read).
        public var transform: ValuePipeline
        public var constant: AttributeValue?
        /// The service is offered only when this characteristic is.
        public var isRequired: Bool

        public var isWritable: Bool { permissions.contains("pw") }
    }

    /// One HAP service and when it is offered.
    public struct Service: Sendable, Hashable {
        public var name: String
        public var type: String
        /// Offered for these device types…
        public var deviceTypes: Set<DeviceTypeID>
        /// …or for any device type with one of these traits.
        public var traits: Set<TraitID>
        public var characteristics: [Characteristic]
    }

    public var services: [Service]

    public static let formats: Set<String> = ["bool", "uint8", "uint16", "uint32", "uint64", "int", "float", "string"]
    static let permissions: Set<String> = ["pr", "pw", "ev"]

    /// Loads `<mappings>/homekit/accessories.json`.
    public static func load(mappingsDirectory: String, catalog: Catalog) throws(MappingError) -> HomeKitTable {
        try SourceTableReader.load("homekit/accessories.json", mappingsDirectory: mappingsDirectory, catalog: catalog) {
            root, tables in decode(root, tables: tables)
        }
    }

    /// Decodes a table given as bytes (`file` names it in problems).
    public static func decode(file: String, bytes: [UInt8], catalog: Catalog) throws(MappingError) -> HomeKitTable {
        try SourceTableReader.decode(file: file, bytes: bytes, catalog: catalog) { root, tables in
            decode(root, tables: tables)
        }
    }

    static func decode(_ root: JSON, tables: SourceTableReader) -> HomeKitTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["$comment", "services"])
        var services: [Service] = []
        for (index, element) in reader.array(root, "services", at: .root, required: true).enumerated() {
            let path = JSONPath("services").appending(index)
            guard let object = reader.object(element, at: path) else { continue }
            reader.checkKeys(
                object, at: path, allowed: ["$comment", "service", "type", "deviceTypes", "traits", "characteristics"])
            guard let name = reader.string(object, "service", at: path, required: true),
                let type = hapType(object, at: path, reader: reader)
            else { continue }
            let deviceTypes = tables.deviceTypes(object, at: path)
            var traits: Set<TraitID> = []
            for (traitIndex, traitElement) in reader.array(object, "traits", at: path).enumerated() {
                let at = path.appending("traits").appending(traitIndex)
                guard let text = traitElement.string, let id = TraitID(parsing: text), tables.catalog.trait(id) != nil
                else {
                    reader.problem(
                        at, "unknown trait \(traitElement.string ?? "(not a string)"); use one of mappings/catalog")
                    continue
                }
                traits.insert(id)
            }
            if deviceTypes.isEmpty, traits.isEmpty {
                reader.problem(path, "a service needs 'deviceTypes' or 'traits': when is it offered?")
            }
            let characteristics = reader.array(object, "characteristics", at: path, required: true).enumerated()
                .compactMap { characteristicIndex, element in
                    characteristic(
                        element, at: path.appending("characteristics").appending(characteristicIndex),
                        tables: tables)
                }
            services.append(
                Service(
                    name: name, type: type, deviceTypes: deviceTypes, traits: traits,
                    characteristics: characteristics))
        }
        return HomeKitTable(services: services)
    }

    static func characteristic(_ element: JSON, at path: JSONPath, tables: SourceTableReader) -> Characteristic? {
        let reader = tables.reader
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(
            object, at: path,
            allowed: [
                "$comment", "characteristic", "type", "format", "unit", "minValue", "maxValue", "minStep", "perms",
                "trait", "attribute", "transform", "value", "required",
            ])
        guard let name = reader.string(object, "characteristic", at: path, required: true),
            let type = hapType(object, at: path, reader: reader),
            let format = reader.string(object, "format", at: path, required: true)
        else { return nil }
        guard formats.contains(format) else {
            reader.problem(
                path.appending("format"), "unknown format '\(format)'; use \(formats.sorted().joined(separator: ", "))")
            return nil
        }
        let permissions = reader.array(object, "perms", at: path, required: true).compactMap(\.string)
        for permission in permissions where !Self.permissions.contains(permission) {
            reader.problem(path.appending("perms"), "unknown permission '\(permission)'; use pr, pw, ev")
        }
        var trait: TraitID?
        var attribute: String?
        if object["trait"] != nil {
            trait = tables.trait(object, at: path)
            attribute = trait.flatMap { tables.attribute(object, of: $0, at: path) }
        }
        let constant = object["value"].map { AttributeValue(json: $0) }
        if (trait == nil) == (constant == nil), reader.problems.isEmpty {
            reader.problem(path, "a characteristic has either a 'trait' and 'attribute' or a constant 'value'")
        }
        if constant != nil, permissions.contains("pw") {
            reader.problem(path.appending("perms"), "a constant cannot be written: drop \"pw\"")
        }
        return Characteristic(
            name: name, type: type, format: format, unit: reader.string(object, "unit", at: path),
            minValue: reader.number(object, "minValue", at: path),
            maxValue: reader.number(object, "maxValue", at: path),
            minStep: reader.number(object, "minStep", at: path), permissions: permissions, trait: trait,
            attribute: attribute, transform: tables.pipeline(object, at: path), constant: constant,
            isRequired: reader.bool(object, "required", at: path) ?? false)
    }

    /// HAP's short type: one to eight hex digits.
    static func hapType(_ object: JSON, at path: JSONPath, reader: MappingReader) -> String? {
        guard let type = reader.string(object, "type", at: path, required: true) else { return nil }
        guard (1...8).contains(type.count), type.allSatisfy(\.isHexDigit) else {
            reader.problem(path.appending("type"), "'\(type)' is not a HAP type (its short UUID: 1–8 hex digits)")
            return nil
        }
        return type.uppercased()
    }
}
