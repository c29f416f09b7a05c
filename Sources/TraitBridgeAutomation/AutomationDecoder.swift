public import Foundation
public import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// One problem in an automation definition: where (JSON path; file:line:col for a file) and what.
public struct AutomationProblem: Sendable, Hashable, CustomStringConvertible {
    public var file: String?
    public var location: SourceLocation?
    public var path: JSONPath
    public var message: String

    public var description: String {
        let place = file.map { "\($0):\(location.map { "\($0)" } ?? "1:1"): " } ?? ""
        return "\(place)\(path): \(message)"
    }
}

/// A definition that cannot be used; every problem found is listed.
public struct AutomationError: Error, Sendable, CustomStringConvertible {
    public var problems: [AutomationProblem]
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Reads automation definitions (the request's JSON or a file of `--automations DIR`):
///
/// ```json
/// {"name": "Hall light when the back door opens", "home": "My Home",
///  "triggers": [{"type": "attribute", "device": "z2m-…", "trait": "matter.BooleanState",
///                "attribute": "stateValue", "equals": false}],
///  "conditions": [{"type": "sun", "is": "down"}],
///  "actions": [{"type": "command", "device": "z2m-…", "trait": "matter.OnOff", "command": "on"}],
///  "end": {"after": 120, "actions": [{"type": "command", …, "command": "off"}]}}
/// ```
/// Triggers: `timer` (`fireDate`, `recurrence` `{"every", "unit"}`), `calendar` (`at` "07:00",
/// `weekdays` ["mon", …]), `solar` (`event`, `offsetMinutes`), `attribute` (`changes`, `equals`,
/// `above`, `below`; `for` seconds), `connectivity` (`state`, `for`). Conditions: `time`
/// (`after`, `before`), `sun` (`is` up|down), `attribute` (`equals`, `notEquals`, `above`,
/// `below`), `connectivity`. Actions: `scene`, `command`, `set`, `notify`.
public struct AutomationDecoder {
    static let maxItems = 64
    static let maxHoldSeconds = 7 * 86400

    var problems: [AutomationProblem] = []
    let now: Date?

    /// `now`: the time of a request, for HomeKit's "fire date in the future" rule (`nil` for
    /// definitions read back or from files, made earlier).
    public init(now: Date?) { self.now = now }

    /// The automation, or every problem with its JSON path.
    public static func decode(_ root: JSON, origin: String = "registry", now: Date?) throws(AutomationError)
        -> Automation
    {
        var decoder = AutomationDecoder(now: now)
        let automation = decoder.automation(root, origin: origin)
        guard let automation, decoder.problems.isEmpty else { throw AutomationError(problems: decoder.problems) }
        return automation
    }

    /// Every `*.json` file of a folder, each one automation; problems carry file:line:col.
    public static func loadFolder(_ folder: String) -> (automations: [Automation], problems: [AutomationProblem]) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".json")
        }
        var automations: [Automation] = []
        var problems: [AutomationProblem] = []
        if !FileManager.default.fileExists(atPath: folder) {
            problems.append(
                AutomationProblem(
                    file: folder, path: .root, message: "no such folder; give --automations a folder of JSON files"))
        }
        for name in names.sorted() {
            let path = folder + "/" + name
            guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
                problems.append(
                    AutomationProblem(file: path, path: .root, message: "cannot read it (or it is over 1 MiB)"))
                continue
            }
            let bytes = [UInt8](data)
            let root: JSON
            do { root = try JSONDocument.parse(bytes, maxDepth: 32).root } catch {
                problems.append(
                    AutomationProblem(
                        file: path, location: SourceLocation(line: error.line, column: error.column), path: .root,
                        message: "invalid JSON: \(error.reason)"))
                continue
            }
            var decoder = AutomationDecoder(now: nil)
            let automation = decoder.automation(root, origin: path)
            let map = JSONSourceMap(bytes: bytes)
            problems += decoder.problems.map { problem in
                var located = problem
                located.file = path
                located.location = map.location(of: problem.path)
                return located
            }
            if let automation, decoder.problems.isEmpty { automations.append(automation) }
        }
        var seen: Set<AutomationID> = []
        for automation in automations where !seen.insert(automation.id).inserted {
            problems.append(
                AutomationProblem(
                    file: automation.origin, path: JSONPath.root.appending("id"),
                    message: "the id '\(automation.id)' is used by two files"))
        }
        return (automations, problems)
    }

    mutating func fail(_ path: JSONPath, _ message: String) {
        problems.append(AutomationProblem(path: path, message: message))
    }

    mutating func automation(_ root: JSON, origin: String) -> Automation? {
        let path = JSONPath.root
        guard root.kind == .object else {
            fail(path, "an automation is a JSON object with \"name\", \"triggers\" and \"actions\"")
            return nil
        }
        let known: Set<String> = [
            "$comment", "id", "name", "home", "enabled", "triggers", "conditions", "actions", "end", "runMissed",
        ]
        for (key, _) in root.members where !known.contains(key) {
            fail(
                path.appending(key), "unknown key '\(key)'; an automation has \(known.sorted().joined(separator: ", "))"
            )
        }
        guard let name = root["name"]?.string, !name.isEmpty, name.count <= 64 else {
            fail(path.appending("name"), "give \"name\", 1 to 64 characters")
            return nil
        }
        let id = AutomationID(root["id"]?.string ?? Self.slug(name))
        if !Self.isValidID(id.rawValue) {
            fail(path.appending("id"), "'\(id)' is not usable in a topic; use 1–64 of a–z 0–9 - _")
        }
        let triggers = list(root, "triggers", at: path, required: true) { decoder, element, at in
            decoder.trigger(element, at: at)
        }
        let conditions = list(root, "conditions", at: path, required: false) { decoder, element, at in
            decoder.condition(element, at: at)
        }
        let actions = list(root, "actions", at: path, required: true) { decoder, element, at in
            decoder.action(element, at: at)
        }
        var end: EndAction?
        if let given = root["end"] {
            let at = path.appending("end")
            if let seconds = given["after"]?.double, seconds >= 1, seconds <= 86400, seconds.rounded() == seconds {
                let endActions = list(given, "actions", at: at, required: true) { decoder, element, at in
                    decoder.action(element, at: at)
                }
                end = EndAction(afterSeconds: FiniteNumber.int(clamping: seconds) ?? 1, actions: endActions)
            } else {
                fail(at.appending("after"), "give \"after\" in whole seconds, 1 to 86400")
            }
        }
        return Automation(
            id: id, name: name, home: root["home"]?.string, isEnabled: root["enabled"]?.bool ?? true,
            triggers: triggers,
            conditions: conditions, actions: actions, end: end, runMissed: root["runMissed"]?.bool ?? false,
            origin: origin)
    }

    mutating func list<Item>(
        _ root: JSON, _ key: String, at path: JSONPath, required: Bool,
        _ read: (inout AutomationDecoder, JSON, JSONPath) -> Item?
    ) -> [Item] {
        let at = path.appending(key)
        guard let value = root[key] else {
            if required { fail(at, "give \"\(key)\" as a list (at least one)") }
            return []
        }
        guard value.kind == .array, !required || !value.elements.isEmpty else {
            fail(at, "\"\(key)\" must be a list\(required ? " with at least one entry" : "")")
            return []
        }
        guard value.elements.count <= Self.maxItems else {
            fail(at, "\(value.elements.count) entries; at most \(Self.maxItems)")
            return []
        }
        return value.elements.enumerated().compactMap { index, element in read(&self, element, at.appending(index)) }
    }

    static func slug(_ name: String) -> String {
        var slug = ""
        for scalar in name.lowercased().unicodeScalars {
            if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return String((slug.isEmpty ? "automation" : slug).prefix(64))
    }

    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
            }
    }
}
