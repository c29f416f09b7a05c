import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

extension BridgeState {
    /// A unified command: checked against the catalog, refused when the trait is offline,
    /// translated for the source, and answered on `…/set/result`.
    mutating func handleCommand(deviceID: DeviceID, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        let resultTopic = "\(configuration.prefix)/devices/\(deviceID.rawValue)/set/result"
        let parsed = UnifiedCommand.parse(payload)
        let command: UnifiedCommand
        switch parsed {
        case .failure(let failure):
            publishResult(resultTopic, correlationID: failure.correlationID, failure: failure, effects: &effects)
            return
        case .success(let value): command = value
        }
        do {
            let writes = try plan(command, deviceID: deviceID)
            let device = graph.devices[deviceID]
            let isGeneric = { (write: AttributeUpdate) in device?.trait(at: write.address)?.source?.family == Self.genericFamily }
            let genericWrites = writes.filter(isGeneric)
            let z2mWrites = writes.filter { !isGeneric($0) }
            var outgoing = try genericCommands(genericWrites, on: deviceID)
            if !z2mWrites.isEmpty {
                guard let source = zigbee2mqtt, let base = configuration.zigbee2mqtt?.baseTopic, let mapped = z2mDevices[deviceID] else {
                    throw CommandFailure(.notSupported, "device '\(deviceID)' has no source that accepts these commands yet (not discovered since start)")
                }
                let sourcePayload: JSONValue
                do {
                    sourcePayload = try source.commandPayload(for: z2mWrites, on: mapped)
                } catch {
                    throw CommandFailure(.notSupported, error.description)
                }
                outgoing.append(Outgoing(topic: "\(base)/\(mapped.friendlyName)/set", payload: sourcePayload.serializedBytes(), isRetained: false))
            }
            effects.publications += outgoing
            var expected: [PendingCommand.AttributeUpdateKey: AttributeValue] = [:]
            for write in writes { expected[.init(address: write.address, attribute: write.attribute)] = write.value }
            pendingCommands.append(PendingCommand(
                deviceID: deviceID, correlationID: command.correlationID, expected: expected,
                deadline: .now + configuration.commandTimeout, resultTopic: resultTopic))
            effects.log(.debug, "sent command", ["tb.device.id": deviceID.rawValue, "tb.mqtt.topic": outgoing.map(\.topic).joined(separator: ",")])
        } catch let failure as CommandFailure {
            var failure = failure
            failure.correlationID = command.correlationID
            publishResult(resultTopic, correlationID: command.correlationID, failure: failure, effects: &effects)
        } catch {
            publishResult(resultTopic, correlationID: command.correlationID, failure: CommandFailure(.protocolError, "\(error)"), effects: &effects)
        }
    }

    /// Resolves the actions into model writes, validating each.
    private func plan(_ command: UnifiedCommand, deviceID: DeviceID) throws -> [AttributeUpdate] {
        guard let device = graph.devices[deviceID] else { throw CommandFailure(.deviceNotFound, "no device with id '\(deviceID)'") }
        guard let table = zigbee2mqtt?.table else {
            throw CommandFailure(.notSupported, "no command rules are loaded (mappings/sources/zigbee2mqtt.json)")
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
            let address: TraitAddress
            do { address = try device.resolve(traitID, deviceTypeKey: key) } catch { throw CommandFailure(.notSupported, error.description) }
            if let trait = device.trait(at: address), trait.connectivity.state == .offline {
                throw CommandFailure(.deviceOffline, "\(address) is offline: \(trait.connectivity.reason?.description ?? "no reason known")")
            }
            switch action {
            case .write(_, _, let attribute, let value):
                let metadata: AttributeMetadata
                do { metadata = try catalog.attributeMetadata(traitID, attribute) } catch { throw CommandFailure(.notSupported, error.description) }
                let settable = metadata.isWritable || table.commands.contains { $0.trait == traitID && $0.sets.contains { $0.attribute == attribute } }
                guard settable else { throw CommandFailure(.notSupported, "\(address).\(attribute) is read-only") }
                do { try metadata.validate(value) } catch { throw CommandFailure(Self.code(error), "\(address).\(attribute): \(error)") }
                writes.append(AttributeUpdate(address: address, attribute: attribute, value: value))
            case .invoke(_, _, let name, let arguments):
                guard let definition = catalog.trait(traitID)?.command(named: name) else {
                    throw CommandFailure(.notSupported, "trait \(traitID) has no command '\(name)'")
                }
                guard let rule = table.command(traitID, name), rule.unsupportedReason == nil else {
                    throw CommandFailure(.notSupported, "\(traitID).\(name) is not supported through zigbee2mqtt" + (table.command(traitID, name)?.unsupportedReason.map { ": \($0)" } ?? ""))
                }
                for field in definition.fields {
                    guard let argument = arguments[field.name] else {
                        if !field.isOptional && rule.sets.contains(where: { if case .argument(field.name) = $0.value { true } else { false } }) {
                            throw CommandFailure(.protocolError, "\(traitID).\(name) needs argument '\(field.name)'")
                        }
                        continue
                    }
                    do { try field.metadata.validate(argument) } catch { throw CommandFailure(Self.code(error), "\(name).\(field.name): \(error)") }
                }
                for set in rule.sets {
                    switch set.value {
                    case .literal(let value): writes.append(AttributeUpdate(address: address, attribute: set.attribute, value: value))
                    case .argument(let field):
                        guard let value = arguments[field] else { continue }
                        writes.append(AttributeUpdate(address: address, attribute: set.attribute, value: value))
                    }
                }
                if let attribute = rule.toggles {
                    let current = device.trait(at: address)?.attributes[attribute]
                    guard case .bool(let isOn)? = current else {
                        throw CommandFailure(.notSupported, "toggle needs the current value of \(attribute), which is not known yet")
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
        guard !pendingCommands.isEmpty, let device = graph.devices[id] else { return }
        var remaining = pendingCommands
        remaining.removeAll { pending in
            guard pending.deviceID == id else { return false }
            let matched = pending.expected.allSatisfy { key, value in
                guard let reported = device.trait(at: key.address)?.attributes[key.attribute] else { return false }
                guard let metadata = try? catalog.attributeMetadata(key.address.traitID, key.attribute) else { return reported == value }
                let wanted = ValuePipeline.fit(value, to: metadata)
                if let a = reported.numericValue, let b = wanted.numericValue { return abs(a - b) <= 1 }
                return reported == wanted
            }
            if matched { publishResult(pending.resultTopic, correlationID: pending.correlationID, status: "confirmed", device: device, pending: pending, effects: &effects) }
            return matched
        }
        pendingCommands = remaining
    }

    /// Commands whose echo did not come in time are reported `assumed`.
    mutating func expireCommands(now: Date, effects: inout BridgeEffects) {
        let instant = ContinuousClock.now
        guard !pendingCommands.isEmpty else { return }
        var remaining = pendingCommands
        remaining.removeAll { pending in
            guard pending.deadline <= instant else { return false }
            publishResult(pending.resultTopic, correlationID: pending.correlationID, status: "assumed", device: graph.devices[pending.deviceID], pending: pending, effects: &effects)
            return true
        }
        pendingCommands = remaining
    }

    private func publishResult(_ topic: String, correlationID: String?, status: String, device: Device?, pending: PendingCommand, effects: inout BridgeEffects) {
        var result = JSONObject()
        result.setIfPresent("id", correlationID.map { .string($0) })
        result["status"] = .string(status)
        var values = JSONObject()
        var requested = JSONObject()
        for (key, value) in pending.expected.sorted(by: { "\($0.key.address).\($0.key.attribute)" < "\($1.key.address).\($1.key.attribute)" }) {
            values["\(key.address).\(key.attribute)"] = device?.trait(at: key.address)?.attributes[key.attribute]?.jsonValue ?? .null
            requested["\(key.address).\(key.attribute)"] = value.jsonValue
        }
        // `values`: what the device reports now; `requested`: what the command asked for.
        result["values"] = .object(values)
        result["requested"] = .object(requested)
        effects.publish(topic, JSONValue.object(result).serializedBytes(), retain: false)
    }

    private func publishResult(_ topic: String, correlationID: String?, failure: CommandFailure, effects: inout BridgeEffects) {
        var result = JSONObject()
        result.setIfPresent("id", correlationID.map { .string($0) })
        result["status"] = .string("error")
        result["code"] = .string(failure.code.rawValue)
        result["message"] = .string(failure.message)
        effects.publish(topic, JSONValue.object(result).serializedBytes(), retain: false)
        effects.log(.notice, "refused command: \(failure.message)", ["tb.mqtt.topic": topic, "tb.command.code": failure.code.rawValue])
    }
}
