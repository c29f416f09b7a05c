import TraitBridgeCloud
import TraitBridgeJSON

/// The `homeAssistantExport` section as read: Home Assistant MQTT discovery out.
struct HomeAssistantSettings: Sendable {
    /// Home Assistant's discovery prefix (its MQTT integration's setting; `homeassistant`).
    var discoveryPrefix = "homeassistant"
    /// The bridge's own device in Home Assistant.
    var name = "TraitBridge"
    /// False: publish nothing and clear what an earlier run published.
    var isEnabled = true
    /// Source instances whose devices Home Assistant has already (zigbee2mqtt with its own discovery).
    var skipSources: Set<String> = []
    var exportRules = ExportRules()
}

extension ServeConfiguration {
    static let homeAssistantKeys = ["enabled", "discoveryPrefix", "name", "skipSources", "include", "exclude"]

    /// `homeAssistantExport`: `{"enabled", "discoveryPrefix", "name", "skipSources": [source instances],
    /// "include", "exclude"}`; the bridge publishes Home Assistant discovery only with the section.
    static func parseHomeAssistant(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> HomeAssistantSettings
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object with \(homeAssistantKeys.joined(separator: ", "))")
        }
        var settings = HomeAssistantSettings()
        var export: [(String, JSON)] = []
        for (key, member) in value.members where !key.hasPrefix("$") {
            let keyAt = at.appending(key)
            switch key {
            case "enabled":
                guard let flag = member.bool else {
                    throw fail(keyAt, "expected true or false (false clears what an earlier run published)")
                }
                settings.isEnabled = flag
            case "discoveryPrefix":
                guard let prefix = member.string, Self.isTopicLevels(prefix) else {
                    throw fail(
                        keyAt,
                        "expected Home Assistant's discovery prefix: topic levels without + or # "
                            + "(its MQTT integration's setting, homeassistant unless changed)")
                }
                settings.discoveryPrefix = prefix
            case "name":
                guard let name = member.string, (1...64).contains(name.count), !name.contains("\n") else {
                    throw fail(keyAt, "expected a name of 1 to 64 characters (the bridge's device in Home Assistant)")
                }
                settings.name = name
            case "skipSources":
                guard member.kind == .array, member.count <= 64,
                    member.elements.allSatisfy({ $0.string.map { !$0.isEmpty && $0.count <= 64 } == true })
                else {
                    throw fail(
                        keyAt,
                        "expected a list of source instances (\"zigbee2mqtt\") whose devices "
                            + "Home Assistant has already")
                }
                settings.skipSources = Set(member.elements.compactMap(\.string))
            case "include", "exclude": export.append((key, member))
            default:
                throw fail(keyAt, "unknown key '\(key)'; allowed: \(homeAssistantKeys.joined(separator: ", "))")
            }
        }
        if !export.isEmpty { settings.exportRules = try parseExport(members: export, at: at, fail: fail) }
        return settings
    }

    /// Topic levels a prefix may be: not empty, at most 128 bytes, no wildcard, no empty level.
    static func isTopicLevels(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && !text.contains("+") && !text.contains("#")
            && !text.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
            && !text.unicodeScalars.contains { $0.value < 0x20 }
    }
}
