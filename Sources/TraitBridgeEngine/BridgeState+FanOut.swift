import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

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
                do { _ = try CommandRouting.address(on: device, trait, deviceTypeKey: key) } catch {
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
            if let address = try? CommandRouting.address(on: device, action.trait, deviceTypeKey: action.deviceTypeKey),
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

}
