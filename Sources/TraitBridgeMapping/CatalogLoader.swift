import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel

/// Loads `mappings/catalog/*.json` into a ``Catalog``, validating every entry.
///
/// Each file may hold `traits`, `deviceTypes`, or both, so users add vendor traits with a file of
/// their own and no recompiling. Problems are collected across all files (malformed JSON, unknown
/// keys, bad ids, inconsistent metadata, device types naming traits nobody defines, duplicates) and
/// reported together with `file:line:col: path: message`.
public enum CatalogLoader {
    /// The catalog of the mappings folder `mappingsDirectory` (the folder that holds `catalog/`).
    public static func load(mappingsDirectory: String) throws(MappingError) -> Catalog {
        let result = validate(mappingsDirectory: mappingsDirectory)
        guard let catalog = result.catalog, result.problems.isEmpty else {
            throw MappingError(problems: result.problems)
        }
        return catalog
    }

    /// Loads what can be loaded and returns every problem; `catalog` is `nil` only when nothing could be built.
    public static func validate(mappingsDirectory: String) -> (catalog: Catalog?, problems: [MappingProblem]) {
        let folder = mappingsDirectory.hasSuffix("/") ? mappingsDirectory + "catalog" : mappingsDirectory + "/catalog"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }
                .sorted()
        } catch _ {
            let problem = MappingProblem(
                file: folder, location: SourceLocation(line: 1, column: 1), path: .root,
                message:
                    "cannot read the catalog folder: no such folder, or not readable; pass the mappings folder that contains catalog/"
            )
            return (nil, [problem])
        }
        var files: [(name: String, bytes: [UInt8]?)] = []
        for name in names {
            let path = folder + "/" + name
            files.append((path, FileManager.default.contents(atPath: path).map { [UInt8]($0) }))
        }
        return validate(files: files)
    }

    /// Loads catalog files given as contents (`nil` contents: the file could not be read).
    public static func validate(files: [(name: String, bytes: [UInt8]?)]) -> (
        catalog: Catalog?, problems: [MappingProblem]
    ) {
        var problems: [MappingProblem] = []
        var readers: [MappingReader] = []
        var traits: [Located<TraitDefinition>] = []
        var deviceTypes: [Located<DeviceTypeDefinition>] = []
        var commandRules: [(reader: MappingReader, element: JSON, path: JSONPath, document: JSONDocument)] = []
        for (name, bytes) in files {
            guard let bytes else {
                problems.append(
                    MappingProblem(
                        file: name, location: SourceLocation(line: 1, column: 1), path: .root,
                        message: "cannot read the file"))
                continue
            }
            let reader = MappingReader(file: name, bytes: bytes)
            readers.append(reader)
            let document: JSONDocument
            do {
                document = try JSONDocument.parse(bytes)
            } catch {
                problems.append(
                    MappingProblem(
                        file: name, location: SourceLocation(line: error.line, column: error.column), path: .root,
                        message: "invalid JSON: \(error.reason)"))
                continue
            }
            guard let root = reader.object(document.root, at: .root) else { continue }
            reader.checkKeys(root, at: .root, allowed: ["traits", "deviceTypes", "commandRules"])
            for (index, element) in reader.array(root, "commandRules", at: .root).enumerated() {
                commandRules.append(
                    (reader, element, JSONPath.root.appending("commandRules").appending(index), document))
            }
            for (index, element) in reader.array(root, "traits", at: .root).enumerated() {
                let path = JSONPath.root.appending("traits").appending(index)
                if let trait = TraitDecoder(reader: reader).decodeTrait(element, at: path) {
                    traits.append(Located(value: trait, reader: reader, path: path))
                }
            }
            for (index, element) in reader.array(root, "deviceTypes", at: .root).enumerated() {
                let path = JSONPath.root.appending("deviceTypes").appending(index)
                if let type = DeviceTypeDecoder(reader: reader).decode(element, at: path) {
                    deviceTypes.append(Located(value: type, reader: reader, path: path))
                }
            }
        }
        var catalog = crossCheck(traits: traits, deviceTypes: deviceTypes)
        // Command rules name traits, commands and attributes: checked against the whole catalog.
        if let known = catalog {
            for rule in commandRules {
                guard
                    let decoded = CommandRuleDecoder(tables: SourceTableReader(reader: rule.reader, catalog: known))
                        .decode(rule.element, at: rule.path)
                else { continue }
                if catalog?.commandRule(decoded.trait, decoded.command) != nil {
                    rule.reader.problem(
                        rule.path.appending("command"),
                        "\(decoded.trait).\(decoded.command) has a rule already; keep one")
                } else {
                    catalog?.commandRules.append(decoded)
                }
            }
        }
        problems += readers.flatMap(\.problems)
        return (catalog, problems)
    }

    /// Checks what no single entry can: duplicates across files and trait references.
    private static func crossCheck(traits: [Located<TraitDefinition>], deviceTypes: [Located<DeviceTypeDefinition>])
        -> Catalog?
    {
        var traitsByID: [TraitID: Located<TraitDefinition>] = [:]
        for trait in traits {
            if let first = traitsByID[trait.value.id] {
                trait.reader.problem(
                    trait.path.appending("id"),
                    "trait '\(trait.value.id)' is already defined at \(first.place); keep one definition")
            } else {
                traitsByID[trait.value.id] = trait
            }
        }
        var typesByID: [DeviceTypeID: Located<DeviceTypeDefinition>] = [:]
        var typesByMatterID: [UInt32: Located<DeviceTypeDefinition>] = [:]
        for type in deviceTypes {
            if let first = typesByID[type.value.id] {
                type.reader.problem(
                    type.path.appending("id"),
                    "device type '\(type.value.id)' is already defined at \(first.place); keep one definition")
                continue
            }
            typesByID[type.value.id] = type
            if let matterID = type.value.matterID {
                if let first = typesByMatterID[matterID] {
                    type.reader.problem(
                        type.path.appending("matterId"),
                        "Matter id \(hex(matterID)) is already used by '\(first.value.id)' at \(first.place)")
                }
                typesByMatterID[matterID] = type
            }
            for (key, list) in [("required", type.value.requiredTraits), ("optional", type.value.optionalTraits)] {
                for (index, trait) in list.enumerated() where traitsByID[trait] == nil {
                    type.reader.problem(
                        type.path.appending(key).appending(index),
                        "unknown trait '\(trait)'; define it in a catalog file or remove it from the device type")
                }
            }
        }
        return try? Catalog(traits: traitsByID.values.map(\.value), deviceTypes: typesByID.values.map(\.value))
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// A decoded entry with the place it came from, for cross-file messages.
struct Located<Value> {
    var value: Value
    var reader: MappingReader
    var path: JSONPath

    var place: String { "\(reader.file) \(path)" }
}
