import Foundation
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

extension AutomationDecoder {
    mutating func trigger(_ entry: JSON, at path: JSONPath) -> AutomationTrigger? {
        switch entry["type"]?.string {
        case "timer":
            guard let text = entry["fireDate"]?.string, let fireDate = Timestamp.parse(text) else {
                fail(path.appending("fireDate"), "give \"fireDate\" as an RFC 3339 time, e.g. \"2026-12-01T07:00:00Z\"")
                return nil
            }
            var recurrence: Recurrence?
            if let given = entry["recurrence"] {
                guard let count = given["every"]?.double, count >= 1, count <= 100_000, count.rounded() == count,
                    let unit = given["unit"]?.string.flatMap(Recurrence.Unit.init(rawValue:))
                else {
                    fail(
                        path.appending("recurrence"),
                        "give {\"every\": N, \"unit\": \"minutes\"|\"hours\"|\"days\"|\"weeks\"}")
                    return nil
                }
                recurrence = Recurrence(count: FiniteNumber.int(clamping: count) ?? 1, unit: unit)
            }
            let problem = TimerRules.problem(fireDate: fireDate, recurrence: recurrence, now: now ?? .distantPast)
            if let problem {
                fail(path, problem)
                return nil
            }
            return .timer(fireDate: fireDate, recurrence: recurrence)
        case "calendar":
            guard let minute = entry["at"]?.string.flatMap(AutomationClock.minuteOfDay) else {
                fail(path.appending("at"), "give \"at\" as HH:MM in the home's time zone, e.g. \"07:00\"")
                return nil
            }
            var days: Set<Int> = []
            for (index, day) in (entry["weekdays"]?.elements ?? []).enumerated() {
                guard let number = day.string.flatMap(Weekdays.number) else {
                    fail(
                        path.appending("weekdays").appending(index),
                        "a weekday is one of \(Weekdays.names.joined(separator: ", "))")
                    return nil
                }
                days.insert(number)
            }
            return .calendar(weekdays: days, minuteOfDay: minute)
        case "solar":
            guard let event = entry["event"]?.string.flatMap(SolarEvent.init(rawValue:)) else {
                fail(path.appending("event"), "give \"event\": \"sunrise\" or \"sunset\"")
                return nil
            }
            let offset = entry["offsetMinutes"]?.double ?? 0
            guard abs(offset) <= 720, offset.rounded() == offset else {
                fail(path.appending("offsetMinutes"), "give \"offsetMinutes\" in whole minutes, −720 to 720")
                return nil
            }
            return .solar(event: event, offsetMinutes: FiniteNumber.int(clamping: offset) ?? 0)
        case "attribute":
            guard let reference = reference(entry, at: path) else { return nil }
            let change: AttributeChange
            if entry["changes"]?.bool == true {
                change = .changes
            } else if let value = entry["equals"] {
                change = .equals(AttributeValue(json: value))
            } else if let threshold = entry["above"]?.double, threshold.isFinite {
                change = .above(threshold)
            } else if let threshold = entry["below"]?.double, threshold.isFinite {
                change = .below(threshold)
            } else {
                fail(path, "give one of \"changes\": true, \"equals\": value, \"above\": number, \"below\": number")
                return nil
            }
            guard let hold = holdSeconds(entry, at: path) else { return nil }
            if hold > 0, change == .changes {
                fail(path.appending("for"), "\"for\" needs a state to hold: use \"equals\", \"above\" or \"below\"")
                return nil
            }
            return .attribute(reference, change, holdSeconds: hold)
        case "connectivity":
            guard let device = device(entry, at: path), let state = connectivity(entry, at: path),
                let hold = holdSeconds(entry, at: path)
            else { return nil }
            return .connectivity(device: device, state: state, holdSeconds: hold)
        default:
            fail(path.appending("type"), "a trigger's \"type\" is timer, calendar, solar, attribute or connectivity")
            return nil
        }
    }

    mutating func condition(_ entry: JSON, at path: JSONPath) -> AutomationCondition? {
        switch entry["type"]?.string {
        case "time":
            guard let after = entry["after"]?.string.flatMap(AutomationClock.minuteOfDay),
                let before = entry["before"]?.string.flatMap(AutomationClock.minuteOfDay), after != before
            else {
                fail(path, "give \"after\" and \"before\" as HH:MM (different; \"22:00\" to \"06:00\" spans midnight)")
                return nil
            }
            return .timeOfDay(afterMinute: after, beforeMinute: before)
        case "sun":
            guard let state = entry["is"]?.string, state == "up" || state == "down" else {
                fail(path.appending("is"), "give \"is\": \"up\" or \"down\"")
                return nil
            }
            return .sun(isUp: state == "up")
        case "attribute":
            guard let reference = reference(entry, at: path) else { return nil }
            if let value = entry["equals"] { return .attribute(reference, .equals(AttributeValue(json: value))) }
            if let value = entry["notEquals"] { return .attribute(reference, .notEquals(AttributeValue(json: value))) }
            if let threshold = entry["above"]?.double, threshold.isFinite {
                return .attribute(reference, .above(threshold))
            }
            if let threshold = entry["below"]?.double, threshold.isFinite {
                return .attribute(reference, .below(threshold))
            }
            fail(path, "give one of \"equals\", \"notEquals\", \"above\", \"below\"")
            return nil
        case "connectivity":
            guard let device = device(entry, at: path), let state = connectivity(entry, at: path) else { return nil }
            return .connectivity(device: device, state: state)
        default:
            fail(path.appending("type"), "a condition's \"type\" is time, sun, attribute or connectivity")
            return nil
        }
    }

    mutating func action(_ entry: JSON, at path: JSONPath) -> AutomationAction? {
        switch entry["type"]?.string {
        case "scene":
            guard let scene = entry["scene"]?.string, !scene.isEmpty else {
                fail(path.appending("scene"), "give the scene's name or id")
                return nil
            }
            return .scene(scene)
        case "command", "set":
            guard let device = device(entry, at: path) else { return nil }
            guard let trait = entry["trait"]?.string.flatMap(TraitID.init(parsing:)) else {
                fail(path.appending("trait"), "give \"trait\", e.g. \"matter.OnOff\"")
                return nil
            }
            let key = entry["deviceType"]?.string
            if entry["type"]?.string == "command" {
                guard let command = entry["command"]?.string else {
                    fail(path.appending("command"), "give \"command\", e.g. \"on\"")
                    return nil
                }
                var arguments: [String: AttributeValue] = [:]
                for (name, value) in entry["arguments"]?.members ?? [] { arguments[name] = AttributeValue(json: value) }
                return .device(
                    SceneAction(
                        device: device, deviceTypeKey: key, trait: trait,
                        operation: .invoke(command: command, arguments: arguments)))
            }
            guard let attribute = entry["attribute"]?.string, let value = entry["value"] else {
                fail(path, "give \"attribute\" and \"value\"")
                return nil
            }
            return .device(
                SceneAction(
                    device: device, deviceTypeKey: key, trait: trait,
                    operation: .write(attribute: attribute, value: AttributeValue(json: value))))
        case "notify":
            let topic = entry["topic"]?.string ?? "automations"
            guard topic.utf8.count <= 64, !topic.isEmpty,
                topic.unicodeScalars.allSatisfy({
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_".unicodeScalars.contains($0)
                })
            else {
                fail(
                    path.appending("topic"), "a notification topic is 1–64 letters, digits, - or _ (one topic level)")
                return nil
            }
            guard let message = entry["message"]?.string, message.count <= 500 else {
                fail(path.appending("message"), "give \"message\", at most 500 characters")
                return nil
            }
            return .notify(topic: topic, message: message)
        default:
            fail(path.appending("type"), "an action's \"type\" is scene, command, set or notify")
            return nil
        }
    }

    // MARK: Fields

    mutating func device(_ entry: JSON, at path: JSONPath) -> DeviceID? {
        guard let text = entry["device"]?.string, let id = try? DeviceID(text) else {
            fail(path.appending("device"), "give \"device\" as a device id (traitbridge devices lists them)")
            return nil
        }
        return id
    }

    mutating func reference(_ entry: JSON, at path: JSONPath) -> AttributeReference? {
        guard let device = device(entry, at: path) else { return nil }
        guard let trait = entry["trait"]?.string.flatMap(TraitID.init(parsing:)),
            let attribute = entry["attribute"]?.string, !attribute.isEmpty
        else {
            fail(path, "give \"trait\" (e.g. \"matter.BooleanState\") and \"attribute\" (e.g. \"stateValue\")")
            return nil
        }
        return AttributeReference(
            device: device, deviceTypeKey: entry["deviceType"]?.string, trait: trait, attribute: attribute)
    }

    mutating func connectivity(_ entry: JSON, at path: JSONPath) -> ConnectivityState? {
        guard let state = entry["state"]?.string.flatMap(ConnectivityState.init(rawValue:)) else {
            fail(path.appending("state"), "give \"state\": online, offline, partiallyOnline or unknown")
            return nil
        }
        return state
    }

    mutating func holdSeconds(_ entry: JSON, at path: JSONPath) -> Int? {
        guard let given = entry["for"] else { return 0 }
        guard let seconds = given.double, seconds >= 0, seconds <= Double(Self.maxHoldSeconds),
            seconds.rounded() == seconds
        else {
            fail(path.appending("for"), "give \"for\" in whole seconds, 0 to \(Self.maxHoldSeconds)")
            return nil
        }
        return FiniteNumber.int(clamping: seconds) ?? 0
    }
}
