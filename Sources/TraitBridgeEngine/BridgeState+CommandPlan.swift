import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// A unified command resolved into the model writes it makes, each checked against the catalog
/// (writable, in range, a command rule that says what it sets).
extension BridgeState {
    /// Resolves the actions into model writes, validating each.
    func plan(_ command: UnifiedCommand, deviceID: DeviceID) throws -> [AttributeUpdate] {
        guard let device = graph.devices[deviceID] else {
            throw CommandFailure(.deviceNotFound, "no device with id '\(deviceID)'")
        }
        var writes: [AttributeUpdate] = []
        for action in command.actions {
            let traitID: TraitID
            let key: String?
            switch action {
            case .invoke(let trait, let deviceTypeKey, _, _), .write(let trait, let deviceTypeKey, _, _):
                traitID = trait
                key = deviceTypeKey
            }
            let address = try CommandRouting.address(on: device, traitID, deviceTypeKey: key)
            try refuseIfOffline(device, address)
            switch action {
            case .write(_, _, let attribute, let given):
                let metadata: AttributeMetadata
                do { metadata = try catalog.attributeMetadata(traitID, attribute) } catch {
                    throw CommandFailure(.notSupported, error.description)
                }
                let value = metadata.resolvingLabel(given)  // `auto` for an enumeration's Auto
                let settable =
                    metadata.isWritable
                    || catalog.commandRules.contains {
                        $0.trait == traitID && $0.sets.contains { $0.attribute == attribute }
                    }
                    || cloud?.table.rule(forTrait: traitID)?.commands.contains {
                        $0.params.contains { $0.attribute == attribute }
                    } == true
                guard settable else { throw CommandFailure(.notSupported, "\(address).\(attribute) is read-only") }
                do throws(AttributeValidationError) {
                    // A word that names no value of an enumeration: say the values and their labels.
                    if case .string = value, metadata.format != .string, let allowed = metadata.validValues,
                        allowed.contains(where: { $0.label != nil })
                    {
                        throw .notAValidValue(value: value, allowed: allowed)
                    }
                    try metadata.validate(value)
                } catch {
                    throw CommandFailure(Self.code(error), "\(address).\(attribute): \(error)")
                }
                // The device's own range, where its source declares one narrower than the catalog's (a
                // radiator's setpoint 5…35 °C): a value outside it is refused, never sent.
                if let bindings = sourceBindings(of: device, at: address)?.filter({ $0.attribute == attribute }),
                    !bindings.isEmpty, let own = Self.deviceMetadata(bindings).first?.metadata,
                    own.minimum != metadata.minimum || own.maximum != metadata.maximum
                {
                    do throws(AttributeValidationError) { try own.validate(value) } catch {
                        throw CommandFailure(
                            Self.code(error), "\(address).\(attribute): \(error) (the device's own range)")
                    }
                }
                writes.append(AttributeUpdate(address: address, attribute: attribute, value: value))
            case .invoke(_, _, let name, let arguments):
                guard let definition = catalog.trait(traitID)?.command(named: name) else {
                    let known =
                        catalog.trait(traitID)?.commands.map(\.name).filter {
                            catalog.commandRule(traitID, $0).map { $0.unsupportedReason == nil } ?? false
                        } ?? []
                    throw CommandFailure(
                        .notSupported,
                        "trait \(traitID) has no command '\(name)'\(Suggestions.didYouMean(name, among: known))"
                            + (known.isEmpty ? "" : "; its commands: \(known.joined(separator: ", "))"))
                }
                guard let rule = catalog.commandRule(traitID, name) else {
                    throw CommandFailure(
                        .notSupported,
                        "\(traitID).\(name) has no command rule in the catalog (commandRules in mappings/catalog/)")
                }
                if let reason = rule.unsupportedReason {
                    throw CommandFailure(.notSupported, "\(traitID).\(name) is not supported: \(reason)")
                }
                for field in definition.fields {
                    guard let argument = arguments[field.name] else {
                        if !field.isOptional
                            && rule.sets.contains(where: {
                                if case .argument(field.name) = $0.value { true } else { false }
                            })
                        {
                            throw CommandFailure(.protocolError, "\(traitID).\(name) needs argument '\(field.name)'")
                        }
                        continue
                    }
                    do { try field.metadata.validate(argument) } catch {
                        throw CommandFailure(Self.code(error), "\(name).\(field.name): \(error)")
                    }
                }
                for set in rule.sets {
                    switch set.value {
                    case .literal(let value):
                        writes.append(AttributeUpdate(address: address, attribute: set.attribute, value: value))
                    case .argument(let field):
                        guard let value = arguments[field] else { continue }
                        writes.append(AttributeUpdate(address: address, attribute: set.attribute, value: value))
                    }
                }
                if let attribute = rule.toggles {
                    let current = device.trait(at: address)?.attributes[attribute]
                    guard case .bool(let isOn)? = current else {
                        throw CommandFailure(
                            .notSupported, "toggle needs the current value of \(attribute), which is not known yet")
                    }
                    writes.append(AttributeUpdate(address: address, attribute: attribute, value: .bool(!isOn)))
                }
                for item in rule.setsInItems {
                    let list = try Self.settingInItems(
                        item, of: device.trait(at: address)?.attributes[item.list], arguments: arguments,
                        at: "\(address).\(item.list)")
                    writes.append(AttributeUpdate(address: address, attribute: item.list, value: list))
                }
            }
        }
        return writes
    }

    /// The list attribute `current` with `item.member` set in its structure items (all, or the one
    /// whose matching member equals the command's argument): what a `setInEach` rule writes.
    static func settingInItems(
        _ item: CommandRule.ItemSet, of current: AttributeValue?, arguments: [String: AttributeValue], at place: String
    ) throws(CommandFailure) -> AttributeValue {
        guard case .list(var items)? = current else {
            throw CommandFailure(.notSupported, "\(place) is not known yet; its source reports it first")
        }
        let value: AttributeValue
        switch item.value {
        case .literal(let literal): value = literal
        case .argument(let field):
            guard let argument = arguments[field] else {
                throw CommandFailure(.protocolError, "the command needs argument '\(field)'")
            }
            value = argument
        }
        var wanted: (member: String, value: AttributeValue)?
        if let (member, field) = item.matching, let argument = arguments[field], argument != .null {
            wanted = (member, argument)
        }
        var changed = 0
        for index in items.indices {
            guard case .structure(var members) = items[index] else { continue }
            if let wanted, members[wanted.member] != wanted.value { continue }
            members[item.member] = value
            items[index] = .structure(members)
            changed += 1
        }
        if changed == 0 {
            let which = wanted.map { "with \($0.member) \($0.value)" } ?? "at all"
            throw CommandFailure(.invalidValue, "\(place) has no item \(which)")
        }
        return .list(items)
    }

    static func code(_ error: AttributeValidationError) -> CommandFailure.Code {
        switch error.code {
        case "valueOutOfRange": .valueOutOfRange
        case "notSupported": .notSupported
        default: .invalidValue
        }
    }
}
