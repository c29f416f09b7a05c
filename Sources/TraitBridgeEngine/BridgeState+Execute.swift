import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// An EXECUTE request in progress: one outcome per device, answered when all are known.
struct ExecuteJob: Sendable {
    var requestID: String
    var reply: ResponseSink
    /// C2C ids in request order.
    var order: [String]
    var outcomes: [String: ExecuteOutcome] = [:]
}

/// Where a command's outcome goes: the MQTT result topic, or an EXECUTE job.
enum CommandSink: Sendable, Hashable {
    case resultTopic(String)
    case execute(job: Int, c2cID: String)
    /// One command of a group command or scene run (``FanOutJob``).
    case fanOut(job: Int, command: Int)
    /// A caller waiting in ``Bridge/command(_:payload:)`` (the HTTP API): the result's bytes, as
    /// the result topic would carry them.
    case waiter(Int)
}

extension BridgeState {
    /// Runs every execution of an EXECUTE request through the same command path as MQTT commands;
    /// the response goes out when every device has an outcome (confirmed, pending or an error).
    mutating func startExecute(
        _ payload: [UInt8], reply: ResponseSink, correlation: String, source: String = "execute",
        stream: CameraStreamContext? = nil, now: Date, effects: inout BridgeEffects
    ) {
        guard let cloud else { return }
        let request: ExecuteRequest
        do {
            request = try cloud.parseExecuteRequest(payload, source: source)
        } catch {
            let answer: JSONValue =
                switch reply {
                case .mqtt: ["status": "error", "message": .string(error.description)]
                case .waiter:
                    GoogleC2C.errorResponse(
                        requestID: correlation, errorCode: "protocolError", debugString: error.description)
                }
            effects.answer(reply, answer.serializedBytes())
            return
        }
        for problem in request.problems { effects.log(.notice, "EXECUTE request: \(problem)", ["tb.request": source]) }
        var order: [String] = []
        for group in request.groups { for id in group.deviceIDs where !order.contains(id) { order.append(id) } }
        let jobID = commands.startExecute(
            ExecuteJob(requestID: request.requestID ?? correlation, reply: reply, order: order))
        for group in request.groups {
            for c2cID in group.deviceIDs where !commands.hasOutcome(job: jobID, for: c2cID) {
                if let scene = scene(forCloudID: c2cID) {
                    executeScene(
                        scene, c2cID: c2cID, executions: group.executions, job: jobID, now: now, effects: &effects)
                    continue
                }
                guard let deviceID = device(forCloudID: c2cID), let device = graph.devices[deviceID],
                    let input = exportedInput(deviceID)
                else {
                    finishExecute(
                        jobID, ExecuteOutcome(c2cID: c2cID, status: .error, errorCode: "deviceNotFound"),
                        effects: &effects)
                    continue
                }
                if let refusal = challengeRefusal(group.executions, on: deviceID, c2cID: c2cID, now: now) {
                    effects.log(
                        .notice, "EXECUTE \(refusal.errorCode ?? "refused"): \(refusal.debugString ?? "")",
                        ["tb.device.id": deviceID.rawValue, "tb.request": source])
                    finishExecute(jobID, refusal, effects: &effects)
                    continue
                }
                if group.executions.contains(where: { $0.command == "GetCameraStream" }) {
                    let grant = grantCameraStream(group.executions, on: device, c2cID: c2cID, context: stream, at: now)
                    finishExecute(jobID, grant, effects: &effects)
                    continue
                }
                var actions: [UnifiedCommand.Action] = []
                var failure: ExecuteFailure?
                for execution in group.executions {
                    switch cloud.actions(for: execution, on: device, metadata: input.metadata) {
                    case .success(let cloudActions): actions += cloudActions.map(Self.unifiedAction)
                    case .failure(let error): failure = error
                    }
                    if failure != nil { break }
                }
                if let failure {
                    finishExecute(
                        jobID,
                        ExecuteOutcome(
                            c2cID: c2cID, status: .error, errorCode: failure.errorCode, debugString: failure.message),
                        effects: &effects)
                    continue
                }
                let command = UnifiedCommand(correlationID: "execute-\(jobID)-\(c2cID)", actions: actions)
                runCommand(
                    command, deviceID: deviceID, sink: .execute(job: jobID, c2cID: c2cID), now: now, effects: &effects)
            }
        }
        if order.isEmpty { finishExecute(jobID, nil, effects: &effects) }
    }

    /// The outcome that stops a device's executions for want of the user's yes or PIN; `nil`
    /// when every execution may run. A wrong PIN is counted toward the lockout.
    mutating func challengeRefusal(
        _ executions: [ExecuteRequest.Execution], on deviceID: DeviceID, c2cID: String, now: Date
    ) -> ExecuteOutcome? {
        let rules = configuration.challengeRules
        guard !rules.isNone, let cloud, let input = exportedInput(deviceID) else { return nil }
        for execution in executions {
            guard let kind = cloud.requiredChallenge(execution, on: input, rules: rules) else { continue }
            let recentFailures = commands.recentWrongPins(now: now, lockoutSeconds: rules.lockoutSeconds)
            switch GoogleC2C.verify(kind, answer: execution.challenge, rules: rules, recentFailures: recentFailures) {
            case .pass: continue
            case .refused(let code):
                return ExecuteOutcome(
                    c2cID: c2cID, status: .error, errorCode: code,
                    debugString: code == "challengeFailedNotSetup"
                        ? "\(execution.command) on \(c2cID) is a secure action and no PIN is set: give "
                            + "http.challenge.pinFile, or secureActions \"ack\" or \"none\" to allow it without"
                        : "\(execution.command) on \(c2cID): too many wrong PINs; wait for the lockout to pass")
            case .needed(let type):
                if type == "challengeFailedPinNeeded" {
                    commands.recordWrongPin(now: now, keeping: rules.maxFailedPins)
                }
                return ExecuteOutcome(
                    c2cID: c2cID, status: .error, states: kind == .ack ? cloud.executeStates(of: input) : nil,
                    errorCode: "challengeNeeded", debugString: "\(execution.command) on \(c2cID): \(type)",
                    challengeNeeded: type)
            }
        }
        return nil
    }

    static func unifiedAction(_ action: CloudAction) -> UnifiedCommand.Action {
        switch action {
        case .write(let address, let attribute, let value):
            .write(trait: address.traitID, deviceTypeKey: address.deviceTypeKey, attribute: attribute, value: value)
        case .invoke(let address, let command, let arguments):
            .invoke(
                trait: address.traitID, deviceTypeKey: address.deviceTypeKey, command: command, arguments: arguments)
        }
    }

    /// Records one device's outcome; answers the request when it was the last one.
    mutating func finishExecute(_ jobID: Int, _ outcome: ExecuteOutcome?, effects: inout BridgeEffects) {
        guard let cloud, let job = commands.record(outcome, job: jobID) else { return }
        let response = cloud.executeResponse(
            requestID: job.requestID, outcomes: job.order.compactMap { job.outcomes[$0] })
        effects.answer(job.reply, response.serializedBytes())
    }

    /// The EXECUTE outcome of a finished command: confirmed → SUCCESS with the new states,
    /// assumed → PENDING, refused → ERROR with Google's errorCode.
    func executeOutcome(c2cID: String, deviceID: DeviceID, status: String, failure: CommandFailure?) -> ExecuteOutcome {
        if let failure {
            let code: String =
                switch failure.code {
                case .deviceOffline: "deviceOffline"
                case .deviceNotFound: "deviceNotFound"
                case .valueOutOfRange: "valueOutOfRange"
                case .notSupported: "functionNotSupported"
                case .protocolError, .invalidValue: "protocolError"
                case .failedPrecondition, .resourceExhausted: "hardError"
                case .challengeNeeded: "challengeNeeded"
                case .partnerError: failure.errorCode ?? "hardError"
                }
            return ExecuteOutcome(
                c2cID: c2cID, status: failure.code == .deviceOffline ? .offline : .error, errorCode: code,
                debugString: failure.message, challengeNeeded: failure.challenge)
        }
        guard status == "confirmed", let cloud, let input = cloudExportInput(deviceID) else {
            return ExecuteOutcome(c2cID: c2cID, status: .pending)
        }
        return ExecuteOutcome(c2cID: c2cID, status: .success, states: cloud.executeStates(of: input))
    }
}

/// An EXECUTE request for a cloud link, with the values of the command it covers.
struct PlannedLinkRequest {
    var request: LinkRequest
    var covers: Set<PendingCommand.AttributeUpdateKey>
}

extension BridgeState {
    /// Writes on traits the cloud feeds, and google commands, as EXECUTE requests: over the
    /// device's cloud link when it came from one (each request numbered; its answer settles the
    /// command), else on `<prefix>/cloud/execute` for an external relay to deliver (its answer
    /// comes back on `<prefix>/cloud/response` and confirms the command like any state report).
    mutating func cloudCommands(
        _ writes: [AttributeUpdate],
        invocations: [(address: TraitAddress, command: String, arguments: [String: AttributeValue])], on id: DeviceID,
        challenge: JSONValue? = nil
    ) throws(CommandFailure) -> (outgoing: [Outgoing], links: [PlannedLinkRequest]) {
        guard !writes.isEmpty || !invocations.isEmpty else { return ([], []) }
        guard let cloud, let device = graph.devices[id] else {
            throw CommandFailure(.notSupported, "no Cloud-to-cloud table is loaded")
        }
        var outgoing: [Outgoing] = []
        var links: [PlannedLinkRequest] = []
        func origin(_ address: TraitAddress) throws(CommandFailure) -> CloudDeviceOrigin {
            let source = device.trait(at: address)?.source
            guard let runtime = cloudImport.devices.runtime(for: source) else {
                throw CommandFailure(.notSupported, "\(address) comes from a cloud device this bridge no longer holds")
            }
            return runtime.origin
        }
        typealias Key = PendingCommand.AttributeUpdateKey
        func send(_ address: TraitAddress, _ command: String, _ params: [String: AttributeValue], covers: Set<Key>)
            throws(CommandFailure)
        {
            let origin = try origin(address)
            if let link = device.trait(at: address)?.source?.instance, cloudImport.links.contains(link) {
                let requestID = cloudImport.links.nextRequestID()
                let request = cloud.relayRequest(
                    origin: origin, command: command, params: params, requestID: requestID, challenge: challenge,
                    followUpToken: requestID)
                links.append(
                    PlannedLinkRequest(
                        request: LinkRequest(link: link, requestID: requestID, body: request.serializedBytes()),
                        covers: covers))
            } else {
                let request = cloud.relayRequest(
                    origin: origin, command: command, params: params, requestID: "tb-\(id.rawValue)-\(command)")
                outgoing.append(
                    Outgoing(topic: cloudExecuteTopic, payload: request.serializedBytes(), isRetained: false, qos: 1))
            }
        }
        var byAddress: [TraitAddress: [String: AttributeValue]] = [:]
        for write in writes { byAddress[write.address, default: [:]][write.attribute] = write.value }
        for (address, values) in byAddress.sorted(by: { $0.key.description < $1.key.description }) {
            guard
                let (command, params) = cloud.c2cCommand(
                    writing: values, on: address.traitID, current: device.trait(at: address)?.attributes ?? [:])
            else {
                throw CommandFailure(
                    .notSupported,
                    "no Cloud-to-cloud command sets \(values.keys.sorted().joined(separator: ", ")) on \(address)")
            }
            try send(address, command, params, covers: Set(values.keys.map { Key(address: address, attribute: $0) }))
        }
        for invocation in invocations {
            try send(invocation.address, invocation.command, invocation.arguments, covers: [])
        }
        return (outgoing, links)
    }
}
