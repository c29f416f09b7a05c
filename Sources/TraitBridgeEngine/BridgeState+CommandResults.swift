import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// How a command ends: its result on the MQTT result topic, to a CLI waiter, or as an EXECUTE or
/// fan-out outcome.
extension BridgeState {
    /// A command ended (confirmed or assumed): its result on the MQTT result topic, or its EXECUTE outcome.
    mutating func finish(
        _ pending: PendingCommand, status: String, device: Device?, note: String? = nil, now: Date,
        effects: inout BridgeEffects
    ) {
        effects.commandOutcomes.append(
            CommandOutcome(status: status, seconds: pending.sent.map { now.timeIntervalSince($0) }))
        let topic: String
        switch pending.sink {
        case .resultTopic(let resultTopic): topic = resultTopic
        case .waiter: topic = ""
        default:
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
        result.setIfPresent("response", pending.response.map { .object($0) })
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
        if case .waiter(let waiter) = pending.sink {
            effects.answers.append((waiter, JSONValue.object(result).serializedBytes()))
        } else {
            effects.publish(topic, JSONValue.object(result).serializedBytes(), retain: false)
        }
    }

    /// A command was refused: an error result, or an EXECUTE outcome with Google's errorCode.
    mutating func finish(
        _ sink: CommandSink, deviceID: DeviceID, correlationID: String?, failure: CommandFailure, now: Date,
        effects: inout BridgeEffects
    ) {
        effects.commandOutcomes.append(CommandOutcome(status: "refused", seconds: nil))
        let topic: String
        switch sink {
        case .resultTopic(let resultTopic): topic = resultTopic
        case .waiter: topic = configuration.devicesTopicPrefix + deviceID.rawValue + "/set"
        default:
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
        if case .waiter(let waiter) = sink {
            effects.answers.append((waiter, JSONValue.object(result).serializedBytes()))
        } else {
            effects.publish(topic, JSONValue.object(result).serializedBytes(), retain: false)
        }
        effects.log(
            .notice, "refused command: \(failure.message)",
            ["tb.mqtt.topic": topic, "tb.command.code": failure.code.rawValue])
    }
}
