import TraitBridgeJSON
import TraitBridgeModel

extension MatterClusterTable {
    static func decode(_ root: JSON, tables: SourceTableReader) -> MatterClusterTable? {
        let reader = tables.reader
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["$comment", "deviceTypes", "clusters"])
        var table = MatterClusterTable()
        for (index, element) in reader.array(root, "deviceTypes", at: .root, required: true).enumerated() {
            let path = JSONPath("deviceTypes").appending(index)
            guard let object = reader.object(element, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["$comment", "deviceType", "revision"])
            let revision = revision(object, at: path, reader: reader)
            guard let id = tables.deviceType(object, "deviceType", at: path) else { continue }
            guard tables.catalog.deviceType(id)?.matterID != nil else {
                reader.problem(
                    path.appending("deviceType"),
                    "\(id) has no matterId in mappings/catalog: only a Matter device type can be served; remove it")
                continue
            }
            guard table.deviceTypeRevisions[id] == nil else {
                reader.problem(path.appending("deviceType"), "\(id) is listed twice; keep one entry")
                continue
            }
            if let revision { table.deviceTypeRevisions[id] = revision }
        }
        for (index, element) in reader.array(root, "clusters", at: .root, required: true).enumerated() {
            let path = JSONPath("clusters").appending(index)
            guard let cluster = cluster(element, at: path, tables: tables) else { continue }
            guard table.clusters[cluster.trait] == nil else {
                reader.problem(path.appending("trait"), "\(cluster.trait) has two rows; merge them into one")
                continue
            }
            table.clusters[cluster.trait] = cluster
        }
        return table
    }

    static func cluster(_ element: JSON, at path: JSONPath, tables: SourceTableReader) -> Cluster? {
        let reader = tables.reader
        guard let object = reader.object(element, at: path) else { return nil }
        reader.checkKeys(
            object, at: path, allowed: ["$comment", "trait", "revision", "features", "constants", "commands"])
        let revision = revision(object, at: path, reader: reader)
        guard let id = tables.trait(object, at: path), let trait = tables.catalog.trait(id) else { return nil }
        guard let clusterID = trait.clusterID else {
            reader.problem(
                path.appending("trait"),
                "\(id) has no clusterId in mappings/catalog: only a Matter cluster can be served; remove the row")
            return nil
        }
        var features: [FeatureRule] = []
        for (index, element) in reader.array(object, "features", at: path).enumerated() {
            let at = path.appending("features").appending(index)
            guard let rule = featureRule(element, of: trait, at: at, tables: tables) else { continue }
            guard !features.contains(rule) else {
                reader.problem(at, "the same rule for \(rule.code) is written twice; keep one")
                continue
            }
            features.append(rule)
        }
        let constants = constants(object, of: trait, at: path, reader: reader)
        let commands = commands(object, of: trait, at: path, tables: tables)
        guard let revision else { return nil }
        return Cluster(
            trait: id, clusterID: clusterID, revision: revision, features: features, constants: constants,
            commands: commands)
    }

    static func featureRule(_ element: JSON, of trait: TraitDefinition, at path: JSONPath, tables: SourceTableReader)
        -> FeatureRule?
    {
        let reader = tables.reader
        guard let object = reader.object(element, at: path) else { return nil }
        let conditions = ["always", "whenAttribute", "whenDeviceType"]
        reader.checkKeys(object, at: path, allowed: Set(["$comment", "code"] + conditions))
        guard let code = reader.string(object, "code", at: path, required: true) else { return nil }
        guard let feature = trait.features.first(where: { $0.code == code }) else {
            let known = trait.features.map(\.code).joined(separator: ", ")
            reader.problem(
                path.appending("code"),
                "\(trait.id) has no feature '\(code)'; it has: \(known.isEmpty ? "none" : known)")
            return nil
        }
        let given = conditions.filter { object[$0] != nil }
        guard given.count == 1, let key = given.first else {
            reader.problem(
                path,
                "a feature rule has exactly one condition: \"always\": true, \"whenAttribute\" or \"whenDeviceType\""
                    + (given.isEmpty ? "" : "; found \(given.joined(separator: ", "))"))
            return nil
        }
        let condition: FeatureRule.Condition
        switch key {
        case "always":
            guard reader.bool(object, "always", at: path) == true else {
                if object["always"]?.bool == false {
                    reader.problem(path.appending("always"), "\"always\" is true; a feature never set needs no rule")
                }
                return nil
            }
            condition = .always
        case "whenAttribute":
            guard let name = reader.string(object, "whenAttribute", at: path, required: true) else { return nil }
            guard trait.attribute(named: name) != nil else {
                let known = trait.attributes.map(\.name).joined(separator: ", ")
                reader.problem(
                    path.appending("whenAttribute"), "\(trait.id) has no attribute '\(name)'; it has: \(known)")
                return nil
            }
            condition = .whenAttribute(name)
        default:
            let elements = reader.array(object, "whenDeviceType", at: path)
            var types: Set<DeviceTypeID> = []
            for (index, element) in elements.enumerated() {
                let at = path.appending("whenDeviceType").appending(index)
                guard let text = element.string, let id = DeviceTypeID(parsing: text),
                    tables.catalog.deviceType(id) != nil
                else {
                    reader.problem(
                        at, "unknown device type \(element.string ?? "(not a string)"); use one of mappings/catalog")
                    continue
                }
                guard types.insert(id).inserted else {
                    reader.problem(at, "\(id) is listed twice; keep one")
                    continue
                }
            }
            guard !types.isEmpty else {
                if object["whenDeviceType"]?.kind == .array {
                    reader.problem(path.appending("whenDeviceType"), "list at least one device type")
                }
                return nil
            }
            condition = .whenDeviceType(types)
        }
        return FeatureRule(code: code, bit: feature.bit, condition: condition)
    }

    /// `"constants": {attribute: value}`, each value checked against the attribute's metadata.
    static func constants(_ object: JSON, of trait: TraitDefinition, at path: JSONPath, reader: MappingReader)
        -> [String: AttributeValue]
    {
        guard let members = reader.object(object["constants"], at: path.appending("constants"))?.members else {
            return [:]
        }
        var constants: [String: AttributeValue] = [:]
        for (name, json) in members where !name.hasPrefix("$") {
            let at = path.appending("constants").appending(name)
            guard let attribute = trait.attribute(named: name) else {
                let known = trait.attributes.map(\.name).joined(separator: ", ")
                reader.problem(at, "\(trait.id) has no attribute '\(name)'; it has: \(known)")
                continue
            }
            let value = AttributeValue(json: json)
            do {
                try attribute.metadata.validate(value)
            } catch {
                reader.problem(at, "\(name) cannot be \(value): \(error)")
                continue
            }
            constants[name] = value
        }
        return constants
    }

    /// `"commands": {Matter command: unified command or null}`.
    static func commands(_ object: JSON, of trait: TraitDefinition, at path: JSONPath, tables: SourceTableReader)
        -> [String: String?]
    {
        let reader = tables.reader
        guard let members = reader.object(object["commands"], at: path.appending("commands"))?.members else {
            return [:]
        }
        var commands: [String: String?] = [:]
        for (name, json) in members where !name.hasPrefix("$") {
            let at = path.appending("commands").appending(name)
            guard trait.command(named: name) != nil else {
                let known = trait.commands.map(\.name).joined(separator: ", ")
                reader.problem(
                    at, "\(trait.id) has no command '\(name)'; it has: \(known.isEmpty ? "none" : known)")
                continue
            }
            if json.isNull {
                commands[name] = .some(nil)
                continue
            }
            guard let unified = json.string else {
                reader.problem(
                    at, "expected the name of a unified command, or null (accepted, answered with FAILURE)")
                continue
            }
            guard tables.catalog.commandRule(trait.id, unified) != nil else {
                reader.problem(
                    at,
                    "\(trait.id) has no command rule '\(unified)' in mappings/catalog/command-rules.json; "
                        + "add one, or write null to answer \(name) with FAILURE")
                continue
            }
            commands[name] = unified
        }
        return commands
    }

    /// A revision: a whole number from 1 to 65535.
    static func revision(_ object: JSON, at path: JSONPath, reader: MappingReader) -> UInt16? {
        guard let value = object["revision"] else {
            reader.problem(path, "missing required key 'revision'")
            return nil
        }
        guard value.isInteger, let number = value.int64.flatMap({ UInt16(exactly: $0) }), number >= 1 else {
            reader.problem(
                path.appending("revision"),
                "revision must be a whole number from 1 to 65535, found \(value.value.serialized()); "
                    + "use the one the Matter specification gives")
            return nil
        }
        return number
    }
}
