import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

/// The answer of a group command or scene run, once every member's outcome is known.
extension BridgeState {
    /// Every outcome of a fan-out job is known: the answer, the EXECUTE outcome, the automation's
    /// history and the scene's last run.
    mutating func answerFanOut(_ job: FanOutJob, now: Date, effects: inout BridgeEffects) {
        var counts: [String: Int] = [:]
        var results: [JSONValue] = []
        for entry in job.entries {
            let status = entry.status ?? "assumed"
            counts[status, default: 0] += 1
            var object = JSONObject()
            object.setIfPresent("device", entry.device.map { .string($0.rawValue) })
            object.setIfPresent("deviceType", entry.deviceTypeKey.map { .string($0) })
            object.setIfPresent("name", entry.device.flatMap { graph.devices[$0] }.map { .string($0.name) })
            object.setIfPresent("action", entry.action)
            object.append("status", .string(status))
            object.setIfPresent("code", entry.code.map { .string($0) })
            object.setIfPresent("message", entry.message.map { .string($0) })
            results.append(.object(object))
        }
        let succeeded = counts["confirmed", default: 0] + counts["assumed", default: 0]
        let attempted = job.entries.count - counts["notApplicable", default: 0]
        let overall = attempted > 0 && succeeded == attempted ? "ok" : succeeded == 0 ? "failed" : "partial"
        var summary = JSONObject()
        for key in ["confirmed", "assumed", "refused", "skipped", "notApplicable"] {
            summary.append(key, .int(Int64(counts[key, default: 0])))
        }
        var answer = JSONObject()
        answer.append("status", .string(overall))
        answer.append(job.kind, .string(job.name))
        answer.append("id", .string(job.id))
        answer.append("summary", .object(summary))
        answer.append("results", .array(results))
        if let reply = job.reply { effects.answer(reply, JSONValue.object(answer).serializedBytes()) }
        if let (executeJob, c2cID) = job.execute {
            let outcome: ExecuteOutcome =
                succeeded > 0 || attempted == 0
                ? ExecuteOutcome(c2cID: c2cID, status: .success, states: ["online": true])
                : ExecuteOutcome(
                    c2cID: c2cID, status: .error,
                    errorCode: counts["skipped", default: 0] == attempted ? "deviceOffline" : "hardError",
                    debugString: "scene '\(job.name)': none of its \(attempted) actions was done")
            finishExecute(executeJob, outcome, effects: &effects)
        }
        if let run = job.automation {
            recordRun(run, status: overall, summary: .object(summary), results: results, effects: &effects)
        }
        effects.log(
            overall == "ok" ? .info : .notice,
            "\(job.kind) '\(job.name)': \(overall) (\(succeeded) of \(attempted) done)", ["tb.\(job.kind)": job.id])
        if let scene = job.scene {
            var run = JSONObject()
            run.append("at", .string(DevicePayloads.timestamp(job.started)))
            run.append("status", .string(overall))
            run.append("summary", .object(summary))
            layout.setLastRun(.object(run), of: scene)
            publishScene(scene, effects: &effects)
        }
    }
}
