import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

extension BridgeState {
    /// A unified command: checked against the catalog, refused when the trait is offline,
    /// translated for the source, and answered on `…/set/result`.
    mutating func handleCommand(deviceID: DeviceID, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        let resultTopic = configuration.devicesTopicPrefix + deviceID.rawValue + "/set/result"
        switch UnifiedCommand.parse(payload) {
        case .failure(let failure):
            finish(
                .resultTopic(resultTopic), deviceID: deviceID, correlationID: failure.correlationID, failure: failure,
                now: now, effects: &effects)
        case .success(let command):
            runCommand(command, deviceID: deviceID, sink: .resultTopic(resultTopic), now: now, effects: &effects)
        }
    }

    /// Validates a command, sends it through the sources that own its traits (zigbee2mqtt, a
    /// generic topic, or the cloud relay), and waits for the echo; the outcome goes to `sink`.
    mutating func runCommand(
        _ command: UnifiedCommand, deviceID: DeviceID, sink: CommandSink, now: Date, effects: inout BridgeEffects
    ) {
        let waiting = commands.waitingCount
        guard waiting < configuration.limits.pendingCommands else {
            refuseAtLimit(
                .pendingCommands, topic: configuration.devicesTopicPrefix + deviceID.rawValue + "/set",
                "a command while \(waiting) wait for their echo", effects: &effects)
            let failure = CommandFailure(
                .protocolError,
                "\(waiting) commands are waiting for their devices' answers; try again in a few seconds")
            finish(
                sink, deviceID: deviceID, correlationID: command.correlationID, failure: failure, now: now,
                effects: &effects)
            return
        }
        do {
            let device = graph.devices[deviceID]
            // Commands on google traits the cloud feeds go to the relay as they are.
            var relayed: [(address: TraitAddress, command: String, arguments: [String: AttributeValue])] = []
            var local: [UnifiedCommand.Action] = []
            for action in command.actions {
                if case .invoke(let trait, let key, let name, let arguments) = action, trait.namespace == .google,
                    let device,
                    let address = try? commandAddress(device, trait, deviceTypeKey: key),
                    device.trait(at: address)?.source?.family == GoogleC2C.family
                {
                    try refuseIfOffline(device, address)
                    relayed.append((address, name, arguments))
                } else {
                    local.append(action)
                }
            }
            let writes = adaptColorWrites(
                local.isEmpty
                    ? []
                    : try plan(
                        UnifiedCommand(correlationID: command.correlationID, actions: local), deviceID: deviceID),
                on: device)
            let family = { (write: AttributeUpdate) in device?.trait(at: write.address)?.source?.family }
            let cloudWrites = writes.filter { family($0) == GoogleC2C.family }
            let pluginWrites = writes.filter { family($0) != GoogleC2C.family }
            let relayedCommands = try cloudCommands(
                cloudWrites, invocations: relayed, on: deviceID, challenge: command.challenge)
            var outgoing = relayedCommands.outgoing
            outgoing += try sourceCommands(pluginWrites, on: deviceID)
            effects.linkRequests += relayedCommands.links.map(\.request)
            effects.publications += outgoing
            var expected: [PendingCommand.AttributeUpdateKey: AttributeValue] = [:]
            for write in writes { expected[.init(address: write.address, attribute: write.attribute)] = write.value }
            var pending = PendingCommand(
                deviceID: deviceID, correlationID: command.correlationID, expected: expected,
                deadline: now.adding(configuration.commandTimeout), sink: sink)
            for planned in relayedCommands.links {
                pending.openLinkRequests[planned.request.requestID] = (planned.request.link, planned.covers)
            }
            if expected.isEmpty && pending.openLinkRequests.isEmpty {
                finish(pending, status: "assumed", device: device, now: now, effects: &effects)  // nothing to echo (relayed)
            } else {
                commands.track(pending)
            }
            effects.log(
                .debug, "sent command",
                ["tb.device.id": deviceID.rawValue, "tb.mqtt.topic": outgoing.map(\.topic).joined(separator: ",")])
        } catch let failure as CommandFailure {
            var failure = failure
            failure.correlationID = command.correlationID
            finish(
                sink, deviceID: deviceID, correlationID: command.correlationID, failure: failure, now: now,
                effects: &effects)
        } catch {
            finish(
                sink, deviceID: deviceID, correlationID: command.correlationID,
                failure: CommandFailure(.protocolError, "\(error)"), now: now, effects: &effects)
        }
    }

    private func refuseIfOffline(_ device: Device, _ address: TraitAddress) throws(CommandFailure) {
        if let trait = device.trait(at: address), trait.connectivity.state == .offline {
            throw CommandFailure(
                .deviceOffline, "\(address) is offline: \(trait.connectivity.reason?.description ?? "no reason known")")
        }
    }

    /// Resolves the actions into model writes, validating each.
    private func plan(_ command: UnifiedCommand, deviceID: DeviceID) throws -> [AttributeUpdate] {
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
            let address = try commandAddress(device, traitID, deviceTypeKey: key)
            try refuseIfOffline(device, address)
            switch action {
            case .write(_, _, let attribute, let value):
                let metadata: AttributeMetadata
                do { metadata = try catalog.attributeMetadata(traitID, attribute) } catch {
                    throw CommandFailure(.notSupported, error.description)
                }
                let settable =
                    metadata.isWritable
                    || catalog.commandRules.contains {
                        $0.trait == traitID && $0.sets.contains { $0.attribute == attribute }
                    }
                    || cloud?.table.rule(forTrait: traitID)?.commands.contains {
                        $0.params.contains { $0.attribute == attribute }
                    } == true
                guard settable else { throw CommandFailure(.notSupported, "\(address).\(attribute) is read-only") }
                do { try metadata.validate(value) } catch {
                    throw CommandFailure(Self.code(error), "\(address).\(attribute): \(error)")
                }
                writes.append(AttributeUpdate(address: address, attribute: attribute, value: value))
            case .invoke(_, _, let name, let arguments):
                guard let definition = catalog.trait(traitID)?.command(named: name) else {
                    throw CommandFailure(.notSupported, "trait \(traitID) has no command '\(name)'")
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
            }
        }
        return writes
    }

    static func code(_ error: AttributeValidationError) -> CommandFailure.Code {
        switch error.code {
        case "valueOutOfRange": .valueOutOfRange
        case "notSupported": .notSupported
        default: .invalidValue
        }
    }

    /// Confirms the pending commands of a device whose reported values now match.
    mutating func confirmCommands(for id: DeviceID, now: Date, effects: inout BridgeEffects) {
        guard commands.waitingCount > 0, let device = graph.devices[id] else { return }
        let confirmed = commands.settle { pending in
            guard pending.deviceID == id else { return false }
            // A command of google invocations only (nothing to echo) ends with its link's answer.
            if pending.expected.isEmpty { return false }
            // Over a cloud link the partner's answer decides (a state from before it is stale),
            // unless it answered PENDING: then the state that follows is as good as the follow-up.
            if !pending.openLinkRequests.isEmpty && !pending.awaitsFollowUp { return false }
            let matched = pending.expected.allSatisfy { key, value in
                if pending.vouched.contains(key) { return true }
                guard let reported = device.trait(at: key.address)?.attributes[key.attribute] else { return false }
                guard let metadata = try? catalog.attributeMetadata(key.address.traitID, key.attribute) else {
                    return reported == value
                }
                guard let wanted = ValuePipeline.fit(value, to: metadata) else { return false }
                if let a = reported.numericValue, let b = wanted.numericValue,
                    metadata.format != .enumeration && metadata.format != .bitmap
                {
                    // xy comes back rounded to 4 decimals (zigbee2mqtt, Home Assistant): 0.002 of 65536.
                    let tolerance: Double = key.attribute == "currentX" || key.attribute == "currentY" ? 131 : 1
                    return abs(a - b) <= tolerance
                }
                return reported == wanted
            }
            return matched
        }
        for pending in confirmed { finish(pending, status: "confirmed", device: device, now: now, effects: &effects) }
    }

    /// A source refused what was sent for this device: its waiting commands end with that reason.
    mutating func failCommands(on id: DeviceID, reason: String, now: Date, effects: inout BridgeEffects) {
        let failed = commands.settle { $0.deviceID == id }
        guard !failed.isEmpty else {
            effects.log(.warning, reason, ["tb.device.id": id.rawValue])
            return
        }
        for pending in failed {
            finish(
                pending.sink, deviceID: id, correlationID: pending.correlationID,
                failure: CommandFailure(.protocolError, reason), now: now, effects: &effects)
        }
    }

    /// Commands whose echo did not come in time are reported `assumed`.
    mutating func expireCommands(now: Date, effects: inout BridgeEffects) {
        for pending in commands.expire(at: now) {
            let note =
                pending.awaitsFollowUp
                ? "the partner cloud answered PENDING and sent no follow-up within "
                    + "\(configuration.followUpTimeout.components.seconds) s" : nil
            finish(
                pending, status: "assumed", device: graph.devices[pending.deviceID], note: note, now: now,
                effects: &effects)
        }
    }

    /// A command ended (confirmed or assumed): its result on the MQTT result topic, or its EXECUTE outcome.
    mutating func finish(
        _ pending: PendingCommand, status: String, device: Device?, note: String? = nil, now: Date,
        effects: inout BridgeEffects
    ) {
        guard case .resultTopic(let topic) = pending.sink else {
            if case .execute(let job, let c2cID) = pending.sink {
                finishExecute(
                    job, executeOutcome(c2cID: c2cID, deviceID: pending.deviceID, status: status, failure: nil),
                    effects: &effects)
            } else if case .fanOut(let job, let command) = pending.sink {
                finishFanOut(
                    job, command: command, status: status, failure: nil, note: note, now: now, effects: &effects)
            }
            return
        }
        var result = JSONObject()
        result.setIfPresent("id", pending.correlationID.map { .string($0) })
        result["status"] = .string(status)
        result.setIfPresent("message", note.map { .string($0) })
        var values = JSONObject()
        var requested = JSONObject()
        for (key, value) in pending.expected.sorted(by: {
            "\($0.key.address).\($0.key.attribute)" < "\($1.key.address).\($1.key.attribute)"
        }) {
            values["\(key.address).\(key.attribute)"] =
                device?.trait(at: key.address)?.attributes[key.attribute]?.jsonValue ?? .null
            requested["\(key.address).\(key.attribute)"] = value.jsonValue
        }
        // `values`: what the device reports now; `requested`: what the command asked for.
        result["values"] = .object(values)
        result["requested"] = .object(requested)
        effects.publish(topic, JSONValue.object(result).serializedBytes(), retain: false)
    }

    /// A command was refused: an error result, or an EXECUTE outcome with Google's errorCode.
    mutating func finish(
        _ sink: CommandSink, deviceID: DeviceID, correlationID: String?, failure: CommandFailure, now: Date,
        effects: inout BridgeEffects
    ) {
        guard case .resultTopic(let topic) = sink else {
            if case .execute(let job, let c2cID) = sink {
                finishExecute(
                    job, executeOutcome(c2cID: c2cID, deviceID: deviceID, status: "error", failure: failure),
                    effects: &effects)
            } else if case .fanOut(let job, let command) = sink {
                finishFanOut(
                    job, command: command, status: "refused", failure: failure, note: nil, now: now,
                    effects: &effects)
            }
            return
        }
        var result = JSONObject()
        result.setIfPresent("id", correlationID.map { .string($0) })
        result["status"] = .string("error")
        result["code"] = .string(failure.code.rawValue)
        result["message"] = .string(failure.message)
        result.setIfPresent("errorCode", failure.errorCode.map { .string($0) })
        result.setIfPresent("challenge", failure.challenge.map { .string($0) })
        effects.publish(topic, JSONValue.object(result).serializedBytes(), retain: false)
        effects.log(
            .notice, "refused command: \(failure.message)",
            ["tb.mqtt.topic": topic, "tb.command.code": failure.code.rawValue])
    }
}
