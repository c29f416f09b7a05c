public import TraitBridgeJSON
import TraitBridgeModel

extension ValuePresenter {
    /// A notification as a person reads it, for the history's lists and lines: Frigate's motion, tracked
    /// objects and review items, a button's action; any other shape as its JSON (at most 120 characters).
    public static func notificationText(_ note: JSONValue) -> String {
        func text(_ key: String) -> String? { note[key]?.stringValue }
        func names(_ key: String) -> [String] { note[key]?.arrayElements?.compactMap(\.stringValue) ?? [] }
        let ended = text("type") == "end"
        switch text("kind") {
        case "motion":
            return text("state") == "end" ? "motion ended" : "motion started"
        case "object":
            var words = "\(text("label") ?? "something") \(ended ? "gone" : "seen")"
            if let score = note["score"]?.numberValue, score.isFinite,
                let percent = FiniteNumber.int(clamping: (score * 100).rounded())
            {
                words += " (\(percent) %)"
            }
            let zones = names("zones")
            if !zones.isEmpty { words += " in \(zones.joined(separator: ", "))" }
            return words
        case "review":
            var words = "\(text("severity") ?? "review") \(ended ? "closed" : "opened")"
            let objects = names("objects")
            if !objects.isEmpty { words += ": \(objects.joined(separator: ", "))" }
            return words
        case "action":
            return "pressed: \(text("action") ?? "?")"
        default:
            if case .int(let size)? = note["truncated"] { return "a notification of \(size) bytes" }
            let raw = note.serialized()
            return raw.count > 120 ? String(raw.prefix(119)) + "…" : raw
        }
    }
}
