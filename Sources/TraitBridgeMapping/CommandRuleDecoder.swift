import TraitBridgeJSON
import TraitBridgeModel

/// Decodes one entry of a catalog file's `commandRules`: the trait and command must exist in the
/// catalog, every attribute it sets must be the trait's, every `$field` the command's.
struct CommandRuleDecoder {
    let tables: SourceTableReader
    var reader: MappingReader { tables.reader }

    func decode(_ value: JSON, at path: JSONPath) -> CommandRule? {
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(object, at: path, allowed: ["trait", "command", "set", "toggle", "unsupported"])
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
        return CommandRule(
            trait: trait, command: name, sets: sets, toggles: reader.string(object, "toggle", at: path),
            unsupportedReason: reader.string(object, "unsupported", at: path))
    }
}
