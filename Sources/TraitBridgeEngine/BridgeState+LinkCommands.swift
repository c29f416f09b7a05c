public import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

/// What a partner cloud said about one EXECUTE request (its answer, or a later follow-up).
enum LinkOutcome: Equatable {
    case success
    /// PENDING: the outcome comes later in a follow-up notification.
    case pending
    case failure(CommandFailure)
}

extension BridgeState {
    /// A link's answer to one EXECUTE request: its states are applied like a QUERY's, then the
    /// command that sent it is settled — SUCCESS vouches for the values it asked for, PENDING waits
    /// for the follow-up, OFFLINE / ERROR / EXCEPTIONS end it with the partner's errorCode, and
    /// `challengeNeeded` asks the caller to send it again with the user's yes or PIN.
    public mutating func applyLinkExecute(_ body: [UInt8], link: String, requestID: String, now: Date) -> BridgeEffects
    {
        var effects = BridgeEffects()
        if partnerStreamAnswered(body, failure: nil, link: link, requestID: requestID, now: now, effects: &effects) {
            return effects
        }
        effects = applyLinkAnswer(body, link: link, now: now)
        let outcome = Self.executeOutcome(body, link: link)
        settleLinkRequest(requestID, outcome, now: now, effects: &effects)
        return effects
    }

    /// A link's EXECUTE request got no answer (refused, timed out, token rejected): its command
    /// ends with the reason; the link's traits are marked by ``linkFailed(_:error:state:now:)``.
    public mutating func linkRequestFailed(_ requestID: String, link: String, error: String, now: Date) -> BridgeEffects
    {
        var effects = BridgeEffects()
        if partnerStreamAnswered(nil, failure: error, link: link, requestID: requestID, now: now, effects: &effects) {
            return effects
        }
        let failure = CommandFailure(.deviceOffline, "cloud link \(link): \(error)")
        settleLinkRequest(requestID, .failure(failure), now: now, effects: &effects)
        return effects
    }

    mutating func settleLinkRequest(
        _ requestID: String, _ outcome: LinkOutcome, now: Date, effects: inout BridgeEffects
    ) {
        let followUp = configuration.followUpTimeout
        var wasAwaiting = false
        var isDone = false
        let updated = commands.updateCommand(sentRequest: requestID) { pending in
            wasAwaiting = pending.awaitsFollowUp
            switch outcome {
            case .failure: isDone = true
            case .pending:
                pending.awaitsFollowUp = true
                pending.deadline = max(pending.deadline, now.adding(followUp))
            case .success:
                let covers = pending.openLinkRequests.removeValue(forKey: requestID)?.covers ?? []
                pending.vouched.formUnion(covers)
                if pending.openLinkRequests.isEmpty { pending.awaitsFollowUp = false }
                isDone = pending.expected.isEmpty && pending.openLinkRequests.isEmpty
            }
            return !isDone
        }
        guard let pending = updated else { return }
        switch outcome {
        case .failure(var failure):
            failure.correlationID = pending.correlationID
            finish(
                pending.sink, deviceID: pending.deviceID, correlationID: pending.correlationID, failure: failure,
                now: now, effects: &effects)
        case .pending:
            if !wasAwaiting, case .resultTopic(let topic) = pending.sink {
                // Said once, so a waiting caller knows to wait for the follow-up.
                var interim = JSONObject()
                interim.setIfPresent("id", pending.correlationID.map { .string($0) })
                interim.append("status", "pending")
                let seconds = followUp.components.seconds
                interim.append(
                    "message", .string("the partner cloud is carrying it out; the outcome follows (≤ \(seconds) s)"))
                interim.append("waitSeconds", .int(seconds))
                effects.publish(topic, JSONValue.object(interim).serializedBytes(), retain: false)
            }
        case .success:
            if isDone {
                finish(
                    pending, status: "confirmed", device: graph.devices[pending.deviceID], now: now, effects: &effects)
            } else {
                confirmCommands(for: pending.deviceID, now: now, effects: &effects)
            }
        }
    }

    /// The outcome an EXECUTE answer gives its (single) device: the most serious of its groups.
    static func executeOutcome(_ body: [UInt8], link: String) -> LinkOutcome {
        guard let root = try? JSONDocument.parse(body).root, let groups = root["payload"]?["commands"],
            groups.kind == .array, !groups.elements.isEmpty
        else {
            return .failure(
                CommandFailure(.protocolError, "cloud link \(link): the EXECUTE answer has no payload.commands"))
        }
        var outcome = LinkOutcome.success
        for group in groups.elements.prefix(100) {
            let status = group["status"]?.string ?? ""
            switch status {
            case "SUCCESS": continue
            case "PENDING": if outcome == .success { outcome = .pending }
            case "OFFLINE", "ERROR", "EXCEPTIONS":
                let code = group["errorCode"]?.string ?? (status == "OFFLINE" ? "deviceOffline" : "unknownError")
                return .failure(partnerFailure(code, challenge: group["challengeNeeded"]?["type"]?.string, link: link))
            default:
                let message = "cloud link \(link): the EXECUTE answer's status '\(status.prefix(40))' is not Google's"
                return .failure(CommandFailure(.protocolError, message))
            }
        }
        return outcome
    }

    /// A partner's errorCode in the bridge's words: the contract's code where there is one
    /// (offline, out of range…), `partnerError` otherwise; the partner's code is kept as it is.
    static func partnerFailure(_ errorCode: String, challenge: String?, link: String) -> CommandFailure {
        let code = String(errorCode.prefix(64))
        var failure: CommandFailure
        switch code {
        case "challengeNeeded":
            let type = String((challenge ?? "ackNeeded").prefix(64))
            let what =
                switch type {
                case "pinNeeded": "asks for the PIN: send it again with --pin PIN"
                case "challengeFailedPinNeeded": "refused the PIN: send it again with the right --pin"
                default: "asks the user to confirm: send it again with --ack"
                }
            failure = CommandFailure(.challengeNeeded, "cloud link \(link) \(what)")
            failure.challenge = type
        case "deviceOffline", "offline", "deviceTurnedOff", "unreachable":
            failure = CommandFailure(.deviceOffline, "cloud link \(link): the partner says the device is \(code)")
        case "valueOutOfRange", "rangeTooClose", "temperatureOutOfRange":
            failure = CommandFailure(.valueOutOfRange, "cloud link \(link): the partner answered \(code)")
        case "functionNotSupported", "notSupported", "actionNotAvailable":
            failure = CommandFailure(.notSupported, "cloud link \(link): the partner answered \(code)")
        case "deviceNotFound":
            failure = CommandFailure(.deviceNotFound, "cloud link \(link): the partner no longer has the device")
        default:
            failure = CommandFailure(.partnerError, "cloud link \(link): the partner refused the command: \(code)")
        }
        failure.errorCode = code
        return failure
    }

    /// Report State notifications of a link's devices: a `followUpResponse` settles the command
    /// that waited for it; any other (a doorbell press, an object seen, a run cycle) is published
    /// once on `<prefix>/devices/<id>/event` for `traitbridge watch` and automations.
    mutating func handleLinkNotifications(_ body: [UInt8], link: String, now: Date, effects: inout BridgeEffects) {
        guard let root = try? JSONDocument.parse(body).root,
            let notifications = root["payload"]?["devices"]?["notifications"], notifications.kind == .object
        else { return }
        for (c2cID, traits) in notifications.members.prefix(1000) where traits.kind == .object {
            guard let runtime = cloudImport.devices[c2cID], runtime.source.instance == link else {
                effects.log(
                    .notice, "link \(link): a notification for '\(c2cID.prefix(64))', never synced", ["tb.link": link])
                continue
            }
            for (trait, notification) in traits.members.prefix(50) where notification.kind == .object {
                if let followUp = notification["followUpResponse"], let token = followUp["followUpToken"]?.string {
                    let outcome: LinkOutcome =
                        followUp["status"]?.string == "SUCCESS"
                        ? .success
                        : .failure(
                            Self.partnerFailure(
                                followUp["errorCode"]?.string ?? "unknownError", challenge: nil, link: link))
                    settleLinkRequest(token, outcome, now: now, effects: &effects)
                    continue
                }
                var event = JSONObject()
                event.append("time", .string(now.formatted(.iso8601)))
                event.append("link", .string(link))
                event.append("trait", .string("google." + String(trait.prefix(64))))
                let value = notification.value
                let bytes = value.serializedBytes()
                event.append("notification", bytes.count <= 4096 ? value : ["truncated": .int(Int64(bytes.count))])
                effects.publish(
                    configuration.devicesTopicPrefix + runtime.target.rawValue + "/event",
                    JSONValue.object(event).serializedBytes(), retain: false, qos: 1)
            }
        }
    }
}
