import TraitBridgeJSON

/// The `matter` section: one Matter Server (`{"url": "ws://127.0.0.1:5580/ws"}`) or several
/// (`[{…, "instance": "upstairs"}, …]`), each read over its WebSocket.
extension ServeConfiguration {
    /// One Matter Server's section.
    struct MatterSettings: Sendable, Equatable {
        var url: String
        var instance = "default"
        var locality: String?
    }

    static let matterKeys = ["url", "instance", "locality"]

    /// `ws://host[:port][/path]` or `wss://…`; the text says what is wrong.
    static func matterURLProblem(_ text: String) -> String? {
        guard text.hasPrefix("ws://") || text.hasPrefix("wss://") else {
            return "expected a WebSocket URL such as ws://127.0.0.1:5580/ws (the Matter Server's default)"
        }
        let host = text.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first ?? ""
        return host.isEmpty ? "the URL has no host: ws://HOST:5580/ws" : nil
    }

    static func parseMatter(
        _ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) -> [MatterSettings] {
        let sections = value.kind == .array ? value.elements : [value]
        var parsed: [MatterSettings] = []
        for (index, section) in sections.enumerated() {
            let sectionAt = value.kind == .array ? at.appending(index) : at
            guard section.kind == .object else {
                throw fail(sectionAt, "expected an object {\"url\": \"ws://127.0.0.1:5580/ws\"}")
            }
            var settings = MatterSettings(url: "")
            for (key, field) in section.members {
                let fieldAt = sectionAt.appending(key)
                switch key {
                case "url":
                    guard let text = field.string else { throw fail(fieldAt, "expected a ws:// URL") }
                    if let problem = matterURLProblem(text) { throw fail(fieldAt, problem) }
                    settings.url = text
                case "instance":
                    guard let text = field.string, !text.isEmpty, text.utf8.count <= 32,
                        text.unicodeScalars.allSatisfy({
                            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
                        })
                    else {
                        throw fail(
                            fieldAt, "expected a short name of a–z, 0–9 and - (it becomes part of device ids)")
                    }
                    settings.instance = text
                case "locality":
                    guard let text = field.string, ["direct", "localPeer", "remote"].contains(text) else {
                        throw fail(fieldAt, "locality must be one of direct, localPeer, remote")
                    }
                    settings.locality = text
                default:
                    throw fail(fieldAt, "unknown key '\(key)'; allowed: \(matterKeys.joined(separator: ", "))")
                }
            }
            guard !settings.url.isEmpty else { throw fail(sectionAt, "\"url\" is required: ws://127.0.0.1:5580/ws") }
            if parsed.contains(where: { $0.instance == settings.instance }) {
                throw fail(
                    sectionAt.appending("instance"),
                    "instance '\(settings.instance)' is used by another matter section; give each its own")
            }
            parsed.append(settings)
        }
        return parsed
    }
}
