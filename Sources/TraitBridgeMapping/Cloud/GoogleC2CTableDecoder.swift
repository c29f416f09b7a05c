import TraitBridgeJSON
import TraitBridgeModel

/// Decodes `mappings/cloud/google-c2c.json`; problems go to the reader.
struct GoogleC2CTableDecoder {
    let tables: SourceTableReader
    var reader: MappingReader { tables.reader }
    var catalog: Catalog { tables.catalog }

    func decode(_ root: JSON) -> GoogleC2CTable? {
        guard let root = reader.object(root, at: .root) else { return nil }
        reader.checkKeys(root, at: .root, allowed: ["alwaysAdded", "types", "traits", "sensorStates"])
        var table = GoogleC2CTable()
        for (index, element) in reader.array(root, "alwaysAdded", at: .root).enumerated() {
            let path = JSONPath("alwaysAdded").appending(index)
            guard let text = element.string, let id = TraitID(parsing: text), catalog.trait(id) != nil else {
                reader.problem(path, "expected a trait of mappings/catalog, e.g. \"matter.Identify\"")
                continue
            }
            table.alwaysAdded.append(id)
        }
        for (index, element) in reader.array(root, "types", at: .root, required: true).enumerated() {
            let path = JSONPath("types").appending(index)
            guard let object = reader.object(element, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["c2c", "candidates"])
            guard let name = reader.string(object, "c2c", at: path, required: true) else { continue }
            if table.types[name] != nil { reader.problem(path.appending("c2c"), "type '\(name)' appears twice") }
            var candidates: [GoogleC2CTable.Candidate] = []
            for (candidateIndex, candidate) in reader.array(object, "candidates", at: path, required: true).enumerated() {
                let candidatePath = path.appending("candidates").appending(candidateIndex)
                guard let candidate = reader.object(candidate, at: candidatePath) else { continue }
                reader.checkKeys(candidate, at: candidatePath, allowed: ["deviceType", "when"])
                guard let type = tables.deviceType(candidate, "deviceType", at: candidatePath) else { continue }
                let when = reader.array(candidate, "when", at: candidatePath).enumerated().compactMap { conditionIndex, condition -> String? in
                    guard let text = condition.string, !text.isEmpty else {
                        reader.problem(candidatePath.appending("when").appending(conditionIndex), "expected \"Trait\" or \"Trait.attribute\"")
                        return nil
                    }
                    return text
                }
                candidates.append(.init(deviceType: type, when: when))
            }
            if table.types[name] == nil { table.typeOrder.append(name) }
            table.types[name] = candidates
        }
        for (index, element) in reader.array(root, "traits", at: .root, required: true).enumerated() {
            let path = JSONPath("traits").appending(index)
            guard let object = reader.object(element, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["c2c", "trait", "states", "sync", "commands", "exportSync"])
            guard let name = reader.string(object, "c2c", at: path, required: true), let trait = tables.trait(object, at: path) else { continue }
            if table.traits[name]?.contains(where: { $0.trait == trait }) == true {
                reader.problem(path.appending("trait"), "trait '\(name)' → \(trait) appears twice")
            }
            let states = valueRules(object, "states", key: "state", trait: trait, at: path)
            let sync = valueRules(object, "sync", key: "attribute", target: "to", trait: trait, at: path)
            var commands: [GoogleC2CTable.CommandRule] = []
            for (commandIndex, command) in reader.array(object, "commands", at: path).enumerated() {
                let commandPath = path.appending("commands").appending(commandIndex)
                guard let command = reader.object(command, at: commandPath) else { continue }
                reader.checkKeys(command, at: commandPath, allowed: ["command", "params"])
                guard let commandName = reader.string(command, "command", at: commandPath, required: true) else { continue }
                commands.append(.init(command: commandName, params: valueRules(command, "params", key: "param", trait: trait, at: commandPath)))
            }
            var exportSync: [String: AttributeValue] = [:]
            if let constants = reader.object(object["exportSync"], at: path.appending("exportSync")) {
                for (key, value) in constants.members { exportSync[key] = AttributeValue(json: value) }
            }
            table.traits[name, default: []].append(.init(c2cName: name, trait: trait, states: states, sync: sync, commands: commands, exportSync: exportSync))
        }
        for (index, element) in reader.array(root, "sensorStates", at: .root).enumerated() {
            let path = JSONPath("sensorStates").appending(index)
            guard let object = reader.object(element, at: path) else { continue }
            reader.checkKeys(object, at: path, allowed: ["name", "trait", "attribute", "states", "rawValueUnit"])
            guard let name = reader.string(object, "name", at: path, required: true), let trait = tables.trait(object, at: path),
                let attribute = tables.attribute(object, of: trait, at: path), let metadata = try? catalog.attributeMetadata(trait, attribute)
            else { continue }
            var states: [String] = []
            var pairs: [ValueTransform.ValuePair] = []
            for (pairIndex, pair) in reader.array(object, "states", at: path).enumerated() {
                guard pair.kind == .array, pair.count == 2, let state = pair[0]?.string, let model = pair[1] else {
                    reader.problem(path.appending("states").appending(pairIndex), "expected [\"descriptive state\", model value]")
                    continue
                }
                states.append(state)
                pairs.append(.init(source: .string(state), model: AttributeValue(json: model)))
            }
            let unit = reader.string(object, "rawValueUnit", at: path)
            if pairs.isEmpty == (unit == nil) {
                reader.problem(path, "give either 'states' (a descriptive sensor) or 'rawValueUnit' (a numeric one)")
            }
            table.sensors.append(.init(
                name: name, trait: trait, attribute: attribute, descriptive: pairs.isEmpty ? nil : ValuePipeline([.map(pairs)]),
                availableStates: states, rawValueUnit: unit, metadata: metadata))
        }
        return table
    }

    /// `[{"<key>": "a.b", "<target>": "attribute", "transform": [...]}]`.
    private func valueRules(
        _ object: JSON, _ member: String, key: String, target: String = "attribute", trait: TraitID, at path: JSONPath
    ) -> [GoogleC2CTable.ValueRule] {
        var rules: [GoogleC2CTable.ValueRule] = []
        for (index, element) in reader.array(object, member, at: path).enumerated() {
            let rulePath = path.appending(member).appending(index)
            guard let rule = reader.object(element, at: rulePath) else { continue }
            reader.checkKeys(rule, at: rulePath, allowed: [key, target, "transform"])
            guard let c2cPath = reader.string(rule, key, at: rulePath, required: true),
                let attribute = reader.string(rule, target, at: rulePath, required: true)
            else { continue }
            guard let metadata = try? catalog.attributeMetadata(trait, attribute) else {
                let known = catalog.trait(trait)?.attributes.map(\.name).joined(separator: ", ") ?? ""
                reader.problem(rulePath.appending(target), "trait \(trait) has no attribute '\(attribute)'; it has: \(known)")
                continue
            }
            let parts = c2cPath.split(separator: ".").map(String.init)
            rules.append(.init(c2cPath: parts, attribute: attribute, pipeline: tables.pipeline(rule, at: rulePath), metadata: metadata))
        }
        return rules
    }
}
