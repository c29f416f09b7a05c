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

    /// A unified command for a caller waiting on its answer (``Bridge/command(_:payload:)``).
    mutating func runCommand(_ deviceID: DeviceID, payload: [UInt8], waiter: Int, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        switch UnifiedCommand.parse(payload) {
        case .failure(let failure):
            finish(
                .waiter(waiter), deviceID: deviceID, correlationID: failure.correlationID, failure: failure, now: now,
                effects: &effects)
        case .success(let command):
            runCommand(command, deviceID: deviceID, sink: .waiter(waiter), now: now, effects: &effects)
        }
        return effects
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
        if Self.isLiveView(command) {
            return runLiveView(command, deviceID: deviceID, sink: sink, now: now, effects: &effects)
        }
        do {
            let device = graph.devices[deviceID]
            // Commands on google traits the cloud feeds go to the relay as they are.
            var relayed: [(address: TraitAddress, command: String, arguments: [String: AttributeValue])] = []
            var local: [UnifiedCommand.Action] = []
            for action in command.actions {
                if case .invoke(let trait, let key, let name, let arguments) = action, trait.namespace == .google,
                    let device,
                    let address = try? CommandRouting.address(on: device, trait, deviceTypeKey: key),
                    CloudImport.feeds(device.trait(at: address)?.source)
                {
                    try refuseIfOffline(device, address)
                    relayed.append((address, name, arguments))
                } else {
                    local.append(action)
                }
            }
            let writes = ColorWrites.adapt(
                local.isEmpty
                    ? []
                    : try plan(
                        UnifiedCommand(correlationID: command.correlationID, actions: local), deviceID: deviceID),
                on: device, writable: writableAttributes)
            let imported = { (write: AttributeUpdate) in CloudImport.feeds(device?.trait(at: write.address)?.source) }
            let cloudWrites = writes.filter(imported)
            let pluginWrites = writes.filter { !imported($0) }
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
                deadline: now.adding(configuration.commandTimeout), sink: sink, sent: now)
            for planned in relayedCommands.links {
                pending.openLinkRequests[planned.request.requestID] = (planned.request.link, planned.covers)
            }
            if expected.isEmpty && pending.openLinkRequests.isEmpty {
                // Nothing to echo (a relayed google command).
                finish(pending, status: "assumed", device: device, now: now, effects: &effects)
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

    func refuseIfOffline(_ device: Device, _ address: TraitAddress) throws(CommandFailure) {
        if let trait = device.trait(at: address), trait.connectivity.state == .offline {
            throw CommandFailure(
                .deviceOffline, "\(address) is offline: \(trait.connectivity.reason?.description ?? "no reason known")")
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
            if let offer = pending.openOffer {
                let waited = commands.liveViews.offerSettled(offer)
                var who = "the camera's live view endpoint gave no answer"
                if waited?.partner != nil { who = "the partner's signalling URL gave no answer" }
                if waited?.linkRequest != nil { who = "the camera's partner cloud gave no stream (GetCameraStream)" }
                let failure = CommandFailure(.deviceOffline, "\(who) within \(Self.offerAnswerSeconds) s")
                finish(
                    pending.sink, deviceID: pending.deviceID, correlationID: pending.correlationID, failure: failure,
                    now: now, effects: &effects)
                continue
            }
            let note =
                pending.awaitsFollowUp
                ? "the partner cloud answered PENDING and sent no follow-up within "
                    + "\(configuration.followUpTimeout.components.seconds) s" : nil
            finish(
                pending, status: "assumed", device: graph.devices[pending.deviceID], note: note, now: now,
                effects: &effects)
        }
    }
}

extension BridgeState {
    /// What the source of a device's trait writes (empty when it does not say).
    func writableAttributes(of device: Device, at address: TraitAddress) -> Set<String> {
        Set((sourceBindings(of: device, at: address) ?? []).filter(\.isWritable).map(\.attribute))
    }
}
