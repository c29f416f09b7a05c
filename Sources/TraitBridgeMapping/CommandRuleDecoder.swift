import TraitBridgeJSON
import TraitBridgeModel

/// Decodes one entry of a catalog file's `commandRules`: the trait and command must exist in the
/// catalog, every attribute it sets must be the trait's, every `$field` the command's.
struct CommandRuleDecoder {
    let tables: SourceTableReader
    var reader: MappingReader { tables.reader }

    func decode(_ value: JSON, at path: JSONPath) -> CommandRule? {
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: ["trait", "command", "set", "setInEach", "toggle", "unsupported"])
        guard let trait = tables.trait(object, at: path),
            let name = reader.string(object, "command", at: path, required: true)
        else { return nil }
        guard let definition = tables.catalog.trait(trait)?.command(named: name) else {
            reader.problem(path.appending("command"), "trait \(trait) has no command '\(name)'")
            return nil
        }
        var sets: [(attribute: String, value: CommandRule.Value)] = []
        if let setObject = reader.object(object["set"], at: path.appending("set")) {
            for (attribute, value) in setObject.members {
                guard tables.catalog.trait(trait)?.attribute(named: attribute) != nil else {
                    reader.problem(
                        path.appending("set").appending(attribute), "trait \(trait) has no attribute '\(attribute)'")
                    continue
                }
                if let text = value.string, text.hasPrefix("$") {
                    let field = String(text.dropFirst())
                    if definition.field(named: field) == nil {
                        reader.problem(
                            path.appending("set").appending(attribute),
                            "command \(name) has no field '\(field)'; it has: \(definition.fields.map(\.name).joined(separator: ", "))"
                        )
                    }
                    sets.append((attribute, .argument(field)))
                } else {
                    sets.append((attribute, .literal(AttributeValue(json: value))))
                }
            }
        }
        var rule = CommandRule(
            trait: trait, command: name, sets: sets, toggles: reader.string(object, "toggle", at: path),
            unsupportedReason: reader.string(object, "unsupported", at: path))
        let itemsPath = path.appending("setInEach")
        for (index, item) in reader.array(object, "setInEach", at: path).enumerated() {
            if let set = itemSet(item, at: itemsPath.appending(index), trait: trait, command: definition) {
                rule.setsInItems.append(set)
            }
        }
        return rule
    }

    /// `{"list": "currentConnections", "member": "transportStatus", "value": "$transportStatus",
    /// "where": {"connectionId": "$connectionId"}}`: the list must be the trait's, of format list;
    /// every `$field` the command's.
    private func itemSet(_ value: JSON, at path: JSONPath, trait: TraitID, command: CommandDefinition)
        -> CommandRule.ItemSet?
    {
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: ["list", "member", "value", "where"])
        guard let list = reader.string(object, "list", at: path, required: true),
            let member = reader.string(object, "member", at: path, required: true), let given = object["value"]
        else { return nil }
        guard let attribute = tables.catalog.trait(trait)?.attribute(named: list), attribute.metadata.format == .list
        else {
            reader.problem(path.appending("list"), "trait \(trait) has no list attribute '\(list)'")
            return nil
        }
        func field(_ text: String, at fieldPath: JSONPath) -> String? {
            let name = String(text.dropFirst())
            guard command.field(named: name) != nil else {
                reader.problem(
                    fieldPath,
                    "command \(command.name) has no field '\(name)'; it has: "
                        + command.fields.map(\.name).joined(separator: ", "))
                return nil
            }
            return name
        }
        let setValue: CommandRule.Value
        if let text = given.string, text.hasPrefix("$") {
            guard let name = field(text, at: path.appending("value")) else { return nil }
            setValue = .argument(name)
        } else {
            setValue = .literal(AttributeValue(json: given))
        }
        var matching: (member: String, argument: String)?
        if let condition = reader.object(object["where"], at: path.appending("where")) {
            guard condition.members.count == 1, let (key, value) = condition.members.first,
                let text = value.string, text.hasPrefix("$")
            else {
                reader.problem(path.appending("where"), "expected one member naming a command field (\"$field\")")
                return nil
            }
            guard let name = field(text, at: path.appending("where").appending(key)) else { return nil }
            matching = (key, name)
        }
        return CommandRule.ItemSet(list: list, member: member, value: setValue, matching: matching)
    }
}
