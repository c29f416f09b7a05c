import Foundation
import TraitBridgeAutomation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Automation requests (admin): add (or replace), remove, enable, disable, run; and a home's
/// location, which its automations' clocks and sun follow. Retained: `<prefix>/automations/<id>`
/// (definition in words, enabled, next fire, last run) and `…/<id>/history` (the last 20 runs).
extension BridgeState {
    static let automationOperations = [
        "automation-add", "automation-remove", "automation-enable", "automation-disable", "automation-run",
        "home-location",
    ]

    mutating func handleAutomationRequest(
        _ operation: String, payload: [UInt8], reply: ResponseSink, now: Date, effects: inout BridgeEffects
    ) {
        func answer(_ value: JSONValue) { effects.answer(reply, value.serializedBytes()) }
        func refuse(_ message: String) { answer(["status": "error", "message": .string("\(operation): \(message)")]) }
        let root: JSON
        do { root = try JSONDocument.parse(payload.isEmpty ? Array("{}".utf8) : payload, maxDepth: 32).root } catch {
            return refuse("the request is not JSON: \(error)")
        }
        guard root.kind == .object else { return refuse("the request must be a JSON object") }
        if operation == "home-location" { return answer(setLocation(root, now: now, effects: &effects)) }
        if operation == "automation-add" {
            let automation: Automation
            do { automation = try AutomationDecoder.decode(root, origin: "registry", now: now) } catch {
                return refuse(error.problems.map(\.description).joined(separator: "; "))
            }
            if let existing = automations[automation.id], existing.origin != "registry" {
                return refuse(
                    "'\(automation.id)' is defined in \(existing.origin); edit that file, or give another \"id\"")
            }
            if let problem = referenceProblem(automation) { return refuse(problem) }
            automations.set(automation, now: now, world: world)
            storeAutomation(automation, effects: &effects)
            publishAutomation(automation.id, effects: &effects)
            return answer(["status": "ok", "automation": automationDocument(automation)])
        }
        guard let text = root["automation"]?.string else { return refuse("give \"automation\": its id or name") }
        let key = NameRules.comparisonKey(text)
        guard
            let automation = automations[AutomationID(text)]
                ?? automations.all.first(where: { NameRules.comparisonKey($0.name) == key })
        else {
            return refuse("no automation '\(text)'; traitbridge automation list names them")
        }
        if operation == "automation-run" {
            // A run by request runs the actions whatever the conditions; the answer waits for them.
            let fire = AutomationFire(automation: automation.id, reason: "run by request", at: now)
            return runAutomation(fire, reply: reply, now: now, effects: &effects)
        }
        guard automation.origin == "registry" else {
            return refuse("'\(automation.name)' is defined in \(automation.origin); change it there")
        }
        if operation == "automation-remove" {
            automations.remove(automation.id)
            effects.storeChanges.append(.automation(automation.id.rawValue, nil))
            publishAutomation(automation.id, effects: &effects)
            return answer(["status": "ok", "removed": .string(automation.name)])
        }
        automations.setEnabled(automation.id, operation == "automation-enable", now: now, world: world)
        guard let changed = automations[automation.id] else { return }
        storeAutomation(changed, effects: &effects)
        publishAutomation(changed.id, effects: &effects)
        answer(["status": "ok", "automation": automationDocument(changed)])
    }

    /// What a definition names that the bridge does not have (a device, its trait, a scene of
    /// the home, the home's location for the sun), or `nil`.
    func referenceProblem(_ automation: Automation) -> String? {
        let home = world.home(of: automation)
        if let text = automation.home, home.id.rawValue != text,
            NameRules.comparisonKey(home.name) != NameRules.comparisonKey(text)
        {
            return "no home '\(text)'"
        }
        func check(_ device: DeviceID, _ trait: TraitID?, _ key: String?) -> String? {
            guard let found = graph.devices[device] else {
                return "no device '\(device.rawValue)' (traitbridge devices)"
            }
            guard let trait else { return nil }
            do { _ = try CommandRouting.address(on: found, trait, deviceTypeKey: key) } catch {
                return "\(device.rawValue): \(error.message)"
            }
            return nil
        }
        for trigger in automation.triggers {
            switch trigger {
            case .attribute(let reference, _, _):
                if let problem = check(reference.device, reference.trait, reference.deviceTypeKey) { return problem }
            case .connectivity(let device, _, _):
                if let problem = check(device, nil, nil) { return problem }
            case .solar where home.location?.latitude == nil:
                return "a solar trigger needs the home's place: traitbridge home location '\(home.name)' "
                    + "--latitude … --longitude … --time-zone …"
            default: break
            }
        }
        for condition in automation.conditions {
            switch condition {
            case .attribute(let reference, _):
                if let problem = check(reference.device, reference.trait, reference.deviceTypeKey) { return problem }
            case .connectivity(let device, _):
                if let problem = check(device, nil, nil) { return problem }
            case .sun where home.location?.latitude == nil:
                return "a sun condition needs the home's place: traitbridge home location '\(home.name)' …"
            default: break
            }
        }
        for action in automation.actions + (automation.end?.actions ?? []) {
            switch action {
            case .scene(let text):
                let key = NameRules.comparisonKey(text)
                if !home.scenes.contains(where: { $0.id.rawValue == text || NameRules.comparisonKey($0.name) == key }) {
                    return "home '\(home.name)' has no scene '\(text)'"
                }
            case .device(let sceneAction):
                if let problem = check(sceneAction.device, sceneAction.trait, sceneAction.deviceTypeKey) {
                    return problem
                }
            case .notify: break
            }
        }
        return nil
    }

    private mutating func storeAutomation(_ automation: Automation, effects: inout BridgeEffects) {
        guard automation.origin == "registry" else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        if let bytes = try? encoder.encode(automation) {
            effects.storeChanges.append(.automation(automation.id.rawValue, [UInt8](bytes)))
        }
    }

    /// `home-location` `{"home", "timeZone": "Europe/Berlin", "latitude", "longitude"}`.
    private mutating func setLocation(_ root: JSON, now: Date, effects: inout BridgeEffects) -> JSONValue {
        func refuse(_ message: String) -> JSONValue {
            ["status": "error", "message": .string("home-location: \(message)")]
        }
        let home: Home
        do { home = try requestHome(root) } catch { return refuse(error.message) }
        guard let zone = root["timeZone"]?.string, AutomationPlace.isKnownTimeZone(zone) else {
            return refuse("give \"timeZone\" as an IANA name such as \"Europe/Berlin\" (the zone database has it)")
        }
        let latitude = root["latitude"]?.double
        let longitude = root["longitude"]?.double
        do {
            try graph.setLocation(HomeLocation(timeZone: zone, latitude: latitude, longitude: longitude), of: home.id)
        } catch {
            return refuse(error.description)
        }
        layoutChanged(republishing: [], now: now, effects: &effects)
        // Timed triggers of the home's automations follow its new clock and sun.
        for automation in automations.all where world.home(of: automation).id == home.id {
            automations.set(automation, now: now, world: world)
            publishAutomation(automation.id, effects: &effects)
        }
        var object = JSONObject()
        object.append("status", "ok")
        object.append("home", homeDocument(graph.home(home.id)!))
        return .object(object)
    }

    // MARK: Publication

    func automationDocument(_ automation: Automation) -> JSONValue {
        func named(_ text: String) -> JSONValue { .string(withDeviceNames(text, of: automation)) }
        var object = JSONObject()
        object.append("id", .string(automation.id.rawValue))
        object.append("name", .string(automation.name))
        object.append("home", .string(world.home(of: automation).name))
        object.append("enabled", .bool(automation.isEnabled))
        object.append("origin", .string(automation.origin))
        object.append("triggers", .array(automation.triggers.map { named($0.description) }))
        object.append("conditions", .array(automation.conditions.map { named($0.description) }))
        object.append("actions", .array(automation.actions.map { named($0.description) }))
        if let end = automation.end {
            object.append(
                "end",
                [
                    "afterSeconds": .int(Int64(end.afterSeconds)),
                    "actions": .array(end.actions.map { named($0.description) }),
                ])
        }
        object.append("runMissed", .bool(automation.runMissed))
        object.setIfPresent(
            "nextFire", automations.nextFire(of: automation.id).map { .string(AutomationClock.text($0)) })
        object.setIfPresent("lastRun", automations.runs(of: automation.id).first)
        return .object(object)
    }

    /// The text with the automation's device ids replaced by the devices' names, where known
    /// ("Back door matter.BooleanState.stateValue becomes false").
    func withDeviceNames(_ text: String, of automation: Automation) -> String {
        var referenced: [DeviceID] = []
        for trigger in automation.triggers {
            switch trigger {
            case .attribute(let reference, _, _): referenced.append(reference.device)
            case .connectivity(let device, _, _): referenced.append(device)
            default: break
            }
        }
        for condition in automation.conditions {
            switch condition {
            case .attribute(let reference, _): referenced.append(reference.device)
            case .connectivity(let device, _): referenced.append(device)
            default: break
            }
        }
        for case .device(let action) in automation.actions + (automation.end?.actions ?? []) {
            referenced.append(action.device)
        }
        var result = text
        for id in referenced where result.contains(id.rawValue) {
            if let name = graph.devices[id]?.name { result = result.replacingOccurrences(of: id.rawValue, with: name) }
        }
        return result
    }

    /// Publishes an automation's topics when they changed; clears them when it is gone.
    mutating func publishAutomation(_ id: AutomationID, effects: inout BridgeEffects) {
        guard sources.broker.status == .up else { return }
        let topic = "\(automationsTopic)/\(id.rawValue)"
        var current: [(String, [UInt8])] = []
        if let automation = automations[id] {
            current.append((topic, automationDocument(automation).serializedBytes()))
            let history: JSONValue = ["runs": .array(automations.runs(of: id))]
            current.append((topic + "/history", history.serializedBytes()))
        }
        for gone in [topic, topic + "/history"] where !current.contains(where: { $0.0 == gone }) {
            if automations.unpublish(gone) {
                effects.publish(gone, [], retain: true, qos: 1)
            }
        }
        for (name, payload) in current {
            guard automations.publish(name, hash: DeviceRuntime.hash(payload)) else { continue }
            effects.publish(name, payload, retain: true, qos: 1)
        }
    }

    /// Every automation's topics (at connect).
    mutating func publishAutomations(effects: inout BridgeEffects) {
        automations.forgetEverythingPublished()  // sent again
        for automation in automations.all { publishAutomation(automation.id, effects: &effects) }
    }
}
