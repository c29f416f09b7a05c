import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// A group command or a scene run in progress: one entry per member (or scene action), each
/// settled by the outcome of the command that carries it; answered when the last one is.
struct FanOutJob: Sendable {
    /// Where the answer goes; `nil` for an automation's run (recorded in its history instead).
    var reply: ResponseSink?
    /// "group" or "scene", the thing's id and name (for the answer).
    var kind: String
    var id: String
    var name: String
    var scene: SceneID?
    /// The automation whose run this is, and why it ran.
    var automation: AutomationRunInfo?
    /// The EXECUTE request (Google's ActivateScene) this scene run answers, and the scene's C2C id.
    var execute: (job: Int, c2cID: String)?
    var entries: [FanOutEntry]
    /// Command index → the entries its outcome settles.
    var commands: [[Int]] = []
    var open = 0
    var started: Date
}

/// One member's or action's outcome: confirmed, assumed, refused (with the command's code),
/// skipped (offline: not sent) or notApplicable (a member without the trait).
struct FanOutEntry: Sendable {
    /// `nil` for an action on no device (a notification).
    var device: DeviceID?
    var deviceTypeKey: String?
    var action: JSONValue?
    var status: String?
    var code: String?
    var message: String?
}

extension BridgeState {
    /// Control requests: a command to every member of a group, a scene run.
    static let fanOutOperations = ["group-command", "scene-run"]

    /// `group-command`: the unified command (`{"trait", "command"…}` or `{"writes": […]}`) with
    /// `"group"`, sent to every member that has the traits; `scene-run` `{"scene"}`: each action,
    /// one command per device, offline targets skipped with their reason. Answered per member or
    /// action when every outcome is known (confirmed by the device, or assumed at the timeout).
    mutating func startFanOut(
        _ operation: String, payload: [UInt8], reply: ResponseSink, now: Date, effects: inout BridgeEffects
    ) {
        func refuse(_ message: String) {
            let answer: JSONValue = ["status": "error", "message": .string("\(operation): \(message)")]
            effects.answer(reply, answer.serializedBytes())
        }
        let root: JSON
        do { root = try JSONDocument.parse(payload, maxDepth: 16).root } catch {
            return refuse("the request is not JSON: \(error)")
        }
        do {
            let home = try requestHome(root)
            if operation == "group-command" {
                let group = try find(root, "group", in: home, \.groups, id: \.id.rawValue, name: \.name)
                let command: UnifiedCommand
                switch UnifiedCommand.parse(payload) {
                case .success(let parsed): command = parsed
                case .failure(let failure): return refuse(failure.message)
                }
                runGroupCommand(group, command, reply: reply, now: now, effects: &effects)
            } else {
                let scene = try find(root, "scene", in: home, \.scenes, id: \.id.rawValue, name: \.name)
                runScene(scene, reply: reply, now: now, effects: &effects)
            }
        } catch {
            refuse(error.message)
        }
    }

    private mutating func runGroupCommand(
        _ group: DeviceGroup, _ command: UnifiedCommand, reply: ResponseSink, now: Date, effects: inout BridgeEffects
    ) {
        var job = FanOutJob(
            reply: reply, kind: "group", id: group.id.rawValue, name: group.name, entries: [], started: now)
        var planned: [(DeviceID, UnifiedCommand)] = []
        for member in group.members {
            var entry = FanOutEntry(device: member.device, deviceTypeKey: member.deviceTypeKey)
            guard let device = graph.devices[member.device] else {
                entry.status = "refused"
                entry.code = CommandFailure.Code.deviceNotFound.rawValue
                entry.message = "the bridge no longer holds \(member.device.rawValue)"
                job.entries.append(entry)
                continue
            }
            var actions: [UnifiedCommand.Action] = []
            var missing: String?
            var unclear: CommandFailure?
            func check(_ trait: TraitID, _ key: String?) {
                do { _ = try commandAddress(device, trait, deviceTypeKey: key) } catch {
                    // A member without the trait is not one the command is for; one that holds it
                    // in several device types (a dual relay) must be named with its type.
                    let holds = device.deviceTypes.contains {
                        key == nil || $0.key == key ? $0.trait(trait) != nil : false
                    }
                    if holds { unclear = error } else { missing = trait.description }
                }
            }
            for action in command.actions {
                switch action {
                case .invoke(let trait, let key, let name, let arguments):
                    let key = member.deviceTypeKey ?? key
                    check(trait, key)
                    actions.append(.invoke(trait: trait, deviceTypeKey: key, command: name, arguments: arguments))
                case .write(let trait, let key, let attribute, let value):
                    let key = member.deviceTypeKey ?? key
                    check(trait, key)
                    actions.append(.write(trait: trait, deviceTypeKey: key, attribute: attribute, value: value))
                }
            }
            if let missing {
                entry.status = "notApplicable"
                entry.message = "\(member) has no \(missing)"
                job.entries.append(entry)
                continue
            }
            if let unclear {
                entry.status = "refused"
                entry.code = unclear.code.rawValue
                entry.message = unclear.message + "; make the member DEVICE/TYPE (traitbridge group members)"
                job.entries.append(entry)
                continue
            }
            job.commands.append([job.entries.count])
            job.entries.append(entry)
            planned.append(
                (member.device, UnifiedCommand(correlationID: command.correlationID, actions: actions, challenge: nil)))
        }
        launch(job, planned, effects: &effects, now: now)
    }

    mutating func runScene(
        _ scene: Scene, reply: ResponseSink?, execute: (job: Int, c2cID: String)? = nil, now: Date,
        effects: inout BridgeEffects
    ) {
        var job = FanOutJob(
            reply: reply, kind: "scene", id: scene.id.rawValue, name: scene.name, scene: scene.id, entries: [],
            started: now)
        job.execute = execute
        let planned = plan(scene.actions, correlation: "scene-\(scene.id.rawValue)", into: &job)
        launch(job, planned, effects: &effects, now: now)
    }

    /// Entries for actions, and one command per device with its actions in order; an action on a
    /// device the bridge lacks or on an offline trait is skipped with the reason, not sent.
    mutating func plan(_ actions: [SceneAction], correlation: String, into job: inout FanOutJob) -> [(
        DeviceID, UnifiedCommand
    )] {
        var order: [DeviceID] = []
        var byDevice: [DeviceID: (actions: [UnifiedCommand.Action], entries: [Int])] = [:]
        for action in actions {
            var entry = FanOutEntry(
                device: action.device, deviceTypeKey: action.deviceTypeKey, action: Self.actionDocument(action))
            let index = job.entries.count
            guard let device = graph.devices[action.device] else {
                entry.status = "skipped"
                entry.code = CommandFailure.Code.deviceNotFound.rawValue
                entry.message = "the bridge no longer holds \(action.device.rawValue)"
                job.entries.append(entry)
                continue
            }
            if let address = try? commandAddress(device, action.trait, deviceTypeKey: action.deviceTypeKey),
                let trait = device.trait(at: address), trait.connectivity.state == .offline
            {
                entry.status = "skipped"
                entry.code = CommandFailure.Code.deviceOffline.rawValue
                entry.message =
                    "\(address) of \(device.name) is offline: "
                    + (trait.connectivity.reason?.description ?? "no reason known")
                job.entries.append(entry)
                continue
            }
            job.entries.append(entry)
            let unified: UnifiedCommand.Action =
                switch action.operation {
                case .write(let attribute, let value):
                    .write(trait: action.trait, deviceTypeKey: action.deviceTypeKey, attribute: attribute, value: value)
                case .invoke(let command, let arguments):
                    .invoke(
                        trait: action.trait, deviceTypeKey: action.deviceTypeKey, command: command,
                        arguments: arguments)
                }
            if byDevice[action.device] == nil { order.append(action.device) }
            byDevice[action.device, default: ([], [])].actions.append(unified)
            byDevice[action.device, default: ([], [])].entries.append(index)
        }
        var planned: [(DeviceID, UnifiedCommand)] = []
        for id in order {
            guard let group = byDevice[id] else { continue }
            job.commands.append(group.entries)
            planned.append((id, UnifiedCommand(correlationID: correlation, actions: group.actions)))
        }
        return planned
    }

    /// Registers the job before its first command runs (a refusal settles an entry at once), then
    /// sends each command through the same path as a device's `…/set`.
    mutating func launch(
        _ job: FanOutJob, _ planned: [(DeviceID, UnifiedCommand)], effects: inout BridgeEffects, now: Date
    ) {
        let jobID = commands.startFanOut(job, open: planned.count)
        if planned.isEmpty {
            if let job = commands.takeFanOut(jobID) { answerFanOut(job, now: now, effects: &effects) }
            return
        }
        for (index, (device, command)) in planned.enumerated() {
            runCommand(
                command, deviceID: device, sink: .fanOut(job: jobID, command: index), now: now, effects: &effects)
        }
    }

    /// One command of a job ended: its entries take the outcome; the last one answers.
    mutating func finishFanOut(
        _ jobID: Int, command: Int, status: String, failure: CommandFailure?, note: String?, now: Date,
        effects: inout BridgeEffects
    ) {
        guard let job = commands.settle(fanOut: jobID, command: command, status: status, failure: failure, note: note)
        else { return }
        answerFanOut(job, now: now, effects: &effects)
    }

    /// Every outcome of a fan-out job is known: the answer, the EXECUTE outcome, the automation's
    /// history and the scene's last run.
    private mutating func answerFanOut(_ job: FanOutJob, now: Date, effects: inout BridgeEffects) {
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

    /// The settable values a room, zone or group shows now, as a scene's actions: what the
    /// catalog's command rules set (on/off, level, colour, setpoints…), for colour only the
    /// attributes of the mode the light is in. Offline devices and unknown values are left out.
    func capture(_ root: JSON, in home: Home) throws(RequestRefusal) -> [SceneAction] {
        var targets: [GroupMember] = []
        if root["room"] != nil {
            let room = try find(root, "room", in: home, \.rooms, id: \.id.rawValue, name: \.name)
            targets = graph.devices(in: room.id).map { GroupMember(device: $0.id) }
        } else if root["zone"] != nil {
            let zone = try find(root, "zone", in: home, \.zones, id: \.id.rawValue, name: \.name)
            targets = zone.roomIDs.flatMap { graph.devices(in: $0) }.map { GroupMember(device: $0.id) }
        } else if root["group"] != nil {
            targets = try find(root, "group", in: home, \.groups, id: \.id.rawValue, name: \.name).members
        } else {
            throw RequestRefusal("give the \"room\", \"zone\" or \"group\" whose current state the scene keeps")
        }
        var actions: [SceneAction] = []
        for member in targets {
            guard let device = graph.devices[member.device] else { continue }
            for type in device.deviceTypes where member.deviceTypeKey == nil || member.deviceTypeKey == type.key {
                for trait in type.traits where trait.connectivity.state != .offline {
                    let settable = Set(
                        catalog.commandRules.filter { $0.trait == trait.traitID }.flatMap { $0.sets.map(\.attribute) })
                    for name in Self.capturedAttributes(trait, settable: settable) {
                        guard let value = trait.attributes[name] else { continue }
                        actions.append(
                            SceneAction(
                                device: device.id, deviceTypeKey: device.deviceTypes.count > 1 ? type.key : nil,
                                trait: trait.traitID, operation: .write(attribute: name, value: value)))
                    }
                }
            }
        }
        guard !actions.isEmpty else { throw RequestRefusal("nothing there has a known value a scene could set") }
        guard actions.count <= LayoutLimits.sceneActions else {
            throw RequestRefusal("\(actions.count) actions; a scene holds at most \(LayoutLimits.sceneActions)")
        }
        return actions
    }

    /// The attributes of a trait a captured scene sets, in a fixed order.
    static func capturedAttributes(_ trait: TraitInstance, settable: Set<String>) -> [String] {
        var names = settable.filter { trait.attributes[$0] != nil }
        if trait.traitID.description == "matter.ColorControl" {
            // colorMode 0: hue and saturation, 1: xy, 2: colour temperature (Matter's ColorMode).
            let byMode: [Int: Set<String>] = [
                0: ["currentHue", "currentSaturation"], 1: ["currentX", "currentY"], 2: ["colorTemperatureMireds"],
            ]
            let mode = trait.attributes["colorMode"]?.numericValue.flatMap { FiniteNumber.int(clamping: $0) }
            names = names.intersection(mode.flatMap { byMode[$0] } ?? byMode[2]!)
        }
        return names.sorted()
    }
}
