import ArgumentParser
import TraitBridgeJSON

/// How a group command's or a scene run's answer is printed: one line per member or action with
/// its outcome, then the summary; exit 0 when every one was done, 5 when some were, 1 when none.
enum FanOutReport {
    static func print(_ answer: JSON, json: Bool, bytes: [UInt8]) throws {
        if json {
            printJSON(bytes)
        } else {
            for result in answer["results"]?.elements ?? [] { Swift.print(line(result)) }
            let summary = answer["summary"]
            let parts = ["confirmed", "assumed", "refused", "skipped", "notApplicable"].compactMap { key -> String? in
                guard let count = summary?[key]?.int64, count > 0 else { return nil }
                return "\(count) \(key)"
            }
            Swift.print("\(answer["status"]?.string ?? "?"): \(parts.joined(separator: ", "))")
        }
        switch answer["status"]?.string {
        case "ok": return
        case "partial": throw ExitCode(5)
        default: throw ExitCode.failure
        }
    }

    /// `✓ Hall light matter.OnOff.on: confirmed`, `✗ Relay/switch_l1: refused (deviceOffline): …`;
    /// an action on no device (an automation's notification) names only itself.
    static func line(_ result: JSON) -> String {
        let device = result["name"]?.string ?? result["device"]?.string
        let type = result["deviceType"]?.string.map { "/\($0)" } ?? ""
        let action = result["action"].map { describe($0) }
        let what = [device.map { $0 + type }, action].compactMap { $0 }.joined(separator: " ")
        let status = result["status"]?.string ?? "?"
        var line = "\(mark(status)) \(what): \(status)"
        if let code = result["code"]?.string { line += " (\(code))" }
        if let message = result["message"]?.string { line += ": \(message)" }
        return line
    }

    static func mark(_ status: String) -> String {
        switch status {
        case "confirmed", "assumed": "✓"
        case "notApplicable": "·"
        default: "✗"
        }
    }

    /// `matter.OnOff.on` or `matter.LevelControl.currentLevel=128`.
    static func describe(_ action: JSON) -> String {
        if let text = action.string { return text }
        let trait = action["trait"]?.string ?? "?"
        if let command = action["command"]?.string { return "\(trait).\(command)" }
        let value = action["value"].map { $0.value.serialized() } ?? "?"
        return "\(trait).\(action["attribute"]?.string ?? "?")=\(value)"
    }
}
