public import FoundationEssentials
import TraitBridgeCloud
public import TraitBridgeJSON
public import TraitBridgeModel

extension BridgeState {
    /// The answer to `action.devices.SYNC` for the linked user `agentUserID`: every device that
    /// has a trait Google can express, with the attributes its sources really support.
    public func smartHomeSync(requestID: String, agentUserID: String) -> [UInt8] {
        guard let cloud else { return Self.noCloudTable(requestID) }
        let response = cloud.syncResponse(cloudExportInputs(), agentUserID: agentUserID, requestID: requestID).response
        return addingScenes(toSync: response).serializedBytes()
    }

    /// The answer to `action.devices.QUERY`: the full state of every device asked for, with
    /// `online`/`status`/`errorCode` from its connectivity; an id the bridge does not hold is
    /// answered `deviceNotFound` rather than left out.
    public func smartHomeQuery(_ body: [UInt8], requestID: String, source: String) -> [UInt8] {
        guard let cloud else { return Self.noCloudTable(requestID) }
        let ids: [String]
        do {
            ids = try cloud.parseQueryRequest(body, source: source).ids
        } catch {
            return GoogleC2C.errorResponse(
                requestID: requestID, errorCode: "protocolError", debugString: error.description
            )
            .serializedBytes()
        }
        var inputs: [CloudExportInput] = []
        var missing: [String] = []
        var scenes: [String] = []
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted {
            if scene(forCloudID: id) != nil {
                scenes.append(id)
            } else if let input = device(forCloudID: id).flatMap({ exportedInput($0) }), input.c2cID == id {
                inputs.append(input)
            } else {
                missing.append(id)
            }
        }
        return addingScenes(toQuery: cloud.queryResponse(inputs, requestID: requestID, missing: missing), scenes)
            .serializedBytes()
    }

    /// Starts `action.devices.EXECUTE` through the unified command path; the answer arrives as an
    /// effect for `waiter` once every device has an outcome (confirmed, pending or an error),
    /// which the command timeout bounds.
    public mutating func smartHomeExecute(
        _ body: [UInt8], requestID: String, source: String, waiter: Int, stream: CameraStreamContext? = nil, now: Date
    ) -> BridgeEffects {
        var effects = BridgeEffects()
        guard cloud != nil else {
            effects.answer(.waiter(waiter), Self.noCloudTable(requestID))
            return effects
        }
        startExecute(
            body, reply: .waiter(waiter), correlation: requestID, source: source, stream: stream, now: now,
            effects: &effects)
        return effects
    }

    /// What Report State sends for these devices: `{<C2C id>: {online, <trait states>}}`, the
    /// keys of a QUERY answer without its `status`/`errorCode`; devices SYNC does not list (or
    /// that are gone) are left out.
    public func smartHomeReportStates(_ ids: some Sequence<DeviceID>) -> JSONObject {
        var states = JSONObject()
        guard let cloud else { return states }
        var seen = Set<DeviceID>()
        for id in ids where seen.insert(id).inserted {
            guard let input = exportedInput(id), cloud.isExported(input) else { continue }
            var entry = JSONObject()
            for (key, value) in cloud.queryEntry(input).members where key != "status" && key != "errorCode" {
                entry.append(key, value)
            }
            states.append(input.c2cID, .object(entry))
        }
        return states
    }

    /// Every waiting EXECUTE answered now (the bridge is stopping): PENDING for what was sent; every
    /// waiting command of an HTTP caller `assumed`.
    public mutating func abandonWaiters(now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        for (jobID, job) in commands.waitingExecutes {
            guard case .waiter = job.reply else { continue }
            for c2cID in job.order where job.outcomes[c2cID] == nil {
                finishExecute(jobID, ExecuteOutcome(c2cID: c2cID, status: .pending), effects: &effects)
            }
        }
        // An HTTP caller waiting on a command's echo: `assumed`, saying why.
        for pending in commands.settle(where: { if case .waiter = $0.sink { true } else { false } }) {
            finish(
                pending, status: "assumed", device: graph.devices[pending.deviceID],
                note: "the bridge stopped before the device answered", now: now, effects: &effects)
        }
        return effects
    }

    static func noCloudTable(_ requestID: String) -> [UInt8] {
        GoogleC2C.errorResponse(
            requestID: requestID, errorCode: "notSupported",
            debugString: "this bridge has no Cloud-to-cloud table (mappings/cloud/google-c2c.json)"
        ).serializedBytes()
    }
}
