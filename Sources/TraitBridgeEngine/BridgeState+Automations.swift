public import Foundation
public import TraitBridgeAutomation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// An automation's run in progress: which automation, why, whether it is the end action.
struct AutomationRunInfo: Sendable {
    var automation: AutomationID
    var reason: String
    var isEnd: Bool
    var at: Date
}

/// The home as the scheduler reads it: values and connectivity from the graph, a home's place.
struct GraphWorld: AutomationWorld {
    let graph: HomeGraph
    let fallbackZone: TimeZone

    /// The value of an attribute; when several device types hold the trait and the reference
    /// names none (a device fed by two paths), the value of the first that knows one.
    func value(of reference: AttributeReference) -> AttributeValue? {
        guard let device = graph.devices[reference.device] else { return nil }
        if let address = try? device.resolve(reference.trait, deviceTypeKey: reference.deviceTypeKey) {
            return device.trait(at: address)?.attributes[reference.attribute]
        }
        guard reference.deviceTypeKey == nil else { return nil }
        for type in device.deviceTypes {
            if let value = type.trait(reference.trait)?.attributes[reference.attribute] { return value }
        }
        return nil
    }

    func connectivity(of device: DeviceID) -> ConnectivityState {
        graph.devices[device]?.sourceConnectivity.connectivityState ?? .unknown
    }

    func place(of automation: Automation) -> AutomationPlace {
        let home = home(of: automation)
        return AutomationPlace.make(
            timeZone: home.location?.timeZone, latitude: home.location?.latitude, longitude: home.location?.longitude,
            fallback: fallbackZone)
    }

    /// The automation's home (by id or name), else the primary home.
    func home(of automation: Automation) -> Home {
        guard let text = automation.home else { return graph.primaryHome }
        let key = NameRules.comparisonKey(text)
        return graph.home(HomeID(text)) ?? graph.homes.first { NameRules.comparisonKey($0.name) == key }
            ?? graph.primaryHome
    }
}

extension BridgeState {
    var automationsTopic: String { "\(configuration.prefix)/automations" }
    var world: GraphWorld { GraphWorld(graph: graph, fallbackZone: configuration.timeZone) }

    /// The automations kept in the registry, those read from files (`--automations DIR`), their
    /// histories, and the fires missed since the bridge last ran: recorded, logged, and run
    /// once when the broker is up for those that ask for it.
    public mutating func restoreAutomations(
        definitions: [(id: String, definition: [UInt8])], histories: [String: [UInt8]], clock: Date?,
        files: [Automation], now: Date
    ) -> [BridgeLogLine] {
        var logs: [BridgeLogLine] = []
        let decoder = JSONDecoder()
        for (id, bytes) in definitions {
            do {
                let automation = try decoder.decode(Automation.self, from: Data(bytes))
                guard !files.contains(where: { $0.id == automation.id }) else {
                    logs.append(
                        BridgeLogLine(
                            .warning, "automation '\(id)' in the registry is also in a file; the file's is used"))
                    continue
                }
                automations.set(automation, now: now, world: world)
            } catch {
                logs.append(
                    BridgeLogLine(.error, "automation '\(id)' in the registry cannot be read (\(error)); add it again"))
            }
        }
        for automation in files { automations.set(automation, now: now, world: world) }
        for (id, bytes) in histories {
            let runs = (try? JSONDocument.parse(bytes, maxDepth: 16).root.elements.map(\.value)) ?? []
            automations.restoreRuns(runs, of: AutomationID(id))
        }
        if let clock {
            let missed = automations.missedFires(since: clock, now: now, world: world)
            for (id, dates) in missed.sorted(by: { $0.key < $1.key }) {
                guard let automation = automations[id] else { continue }
                let text =
                    dates.prefix(5).map(AutomationClock.text).joined(separator: ", ")
                    + (dates.count > 5 ? " and \(dates.count - 5) more" : "")
                var entry = JSONObject()
                entry.append("at", .string(AutomationClock.text(now)))
                entry.append("status", "missed")
                entry.append("reason", .string("the bridge was not running at \(text)"))
                entry.append("missed", .array(dates.map { .string(AutomationClock.text($0)) }))
                entry.append("runsAtStart", .bool(automation.runMissed))
                automations.record(.object(entry), of: id)
                logs.append(
                    BridgeLogLine(
                        .warning,
                        "automation '\(automation.name)' missed \(dates.count) "
                            + "timer fire\(dates.count == 1 ? "" : "s") "
                            + "while the bridge was down (\(text))"
                            + (automation.runMissed ? "; it runs once now" : ""),
                        ["tb.automation": id.rawValue]))
                if automation.runMissed {
                    automations.wait(
                        AutomationFire(automation: id, reason: "missed while the bridge was down (\(text))", at: now))
                }
            }
        }
        logs.append(BridgeLogLine(.info, "\(automations.count) automations"))
        return logs
    }

    /// A device's values or connectivity changed (its state was published): the automations
    /// watching it, and only those.
    mutating func automationsDeviceChanged(_ id: DeviceID, now: Date, effects: inout BridgeEffects) {
        let fires = automations.deviceChanged(id, now: now, world: world)
        for fire in fires { runAutomation(fire, now: now, effects: &effects) }
    }

    /// Time passed: due timers, holds and end actions; fires that waited for the broker; and the
    /// bridge's clock in the registry once a minute (for the fires missed while it is down).
    mutating func automationsTick(now: Date, effects: inout BridgeEffects) {
        if sources.broker.status == .up {
            for fire in automations.takeWaiting() { runAutomation(fire, now: now, effects: &effects) }
        }
        for fire in automations.tick(now: now, world: world) {
            runAutomation(fire, now: now, effects: &effects)
        }
        if automations.takeClockWrite(now: now) { effects.storeChanges.append(.clock(now)) }
    }

    /// Runs a fire: records it when a condition blocked it; else runs its actions (scenes, device
    /// actions, notifications) as one job whose outcome goes to the automation's history, and
    /// schedules the end action.
    mutating func runAutomation(
        _ fire: AutomationFire, reply: ResponseSink? = nil, now: Date, effects: inout BridgeEffects
    ) {
        guard let automation = automations[fire.automation] else { return }
        let run = AutomationRunInfo(
            automation: automation.id, reason: withDeviceNames(fire.reason, of: automation), isEnd: fire.isEnd,
            at: fire.at)
        if let blocked = fire.blockedBy {
            var summary = JSONObject()
            summary.append("condition", .string(withDeviceNames(blocked, of: automation)))
            recordRun(run, status: "conditionsNotMet", summary: .object(summary), results: [], effects: &effects)
            return
        }
        var job = FanOutJob(
            reply: reply, kind: "automation", id: automation.id.rawValue, name: automation.name,
            automation: run, entries: [], started: now)
        let home = world.home(of: automation)
        var actions: [SceneAction] = []
        for action in fire.isEnd ? automation.end?.actions ?? [] : automation.actions {
            switch action {
            case .scene(let text):
                let key = NameRules.comparisonKey(text)
                if let scene = home.scenes.first(where: {
                    $0.id.rawValue == text || NameRules.comparisonKey($0.name) == key
                }) {
                    actions += scene.actions
                } else {
                    job.entries.append(
                        FanOutEntry(
                            action: .string(action.description), status: "refused", code: "notFound",
                            message: "home '\(home.name)' has no scene '\(text)'"))
                }
            case .device(let sceneAction):
                actions.append(sceneAction)
            case .notify(let topic, let message):
                var note = JSONObject()
                note.append("automation", .string(automation.id.rawValue))
                note.append("name", .string(automation.name))
                note.append("message", .string(message))
                note.append("reason", .string(withDeviceNames(fire.reason, of: automation)))
                note.append("at", .string(AutomationClock.text(now)))
                effects.publish(
                    "\(configuration.prefix)/notifications/\(topic)", JSONValue.object(note).serializedBytes(),
                    retain: false, qos: 1)
                job.entries.append(FanOutEntry(action: .string(action.description), status: "confirmed"))
            }
        }
        let planned = plan(actions, correlation: "automation-\(automation.id.rawValue)", into: &job)
        effects.log(
            .info, "automation '\(automation.name)' runs: \(run.reason)", ["tb.automation": automation.id.rawValue])
        if !fire.isEnd, let end = automation.end {
            automations.scheduleEnd(automation.id, at: now.addingTimeInterval(Double(end.afterSeconds)))
        }
        launch(job, planned, effects: &effects, now: now)
    }

    /// Puts a run at the head of the automation's history (the last 20 are kept), in the
    /// registry and on `<prefix>/automations/<id>`.
    mutating func recordRun(
        _ run: AutomationRunInfo, status: String, summary: JSONValue, results: [JSONValue], effects: inout BridgeEffects
    ) {
        var entry = JSONObject()
        entry.append("at", .string(AutomationClock.text(run.at)))
        entry.append("reason", .string(run.reason))
        if run.isEnd { entry.append("end", true) }
        entry.append("status", .string(status))
        entry.append("summary", summary)
        if !results.isEmpty { entry.append("results", .array(results)) }
        let runs = automations.record(.object(entry), of: run.automation)
        effects.storeChanges.append(
            .automationHistory(run.automation.rawValue, JSONValue.array(runs).serializedBytes()))
        publishAutomation(run.automation, effects: &effects)
    }
}
