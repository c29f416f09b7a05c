import TraitBridgeJSON

/// The `history` section as read: whether changes are kept, and for how long and in how many bytes.
struct HistorySettings: Sendable, Hashable {
    /// False: no history is kept (nothing recorded; `history` requests are refused with `historyOff`).
    var isEnabled = true
    var maxAgeDays = 10.0
    var maxBytes: Int64 = 256 << 20
}

extension ServeConfiguration {
    static let historyKeys = ["enabled", "maxAgeDays", "maxBytes"]

    /// `history`: `{"enabled": true, "maxAgeDays": 10, "maxBytes": 268435456}`; on by default.
    static func parseHistory(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> HistorySettings
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object with \(historyKeys.joined(separator: ", "))")
        }
        var settings = HistorySettings()
        for (key, member) in value.members where !key.hasPrefix("$") {
            let keyAt = at.appending(key)
            switch key {
            case "enabled":
                guard let flag = member.bool else { throw fail(keyAt, "expected true or false") }
                settings.isEnabled = flag
            case "maxAgeDays":
                guard let days = member.double, days > 0, days <= 3_650 else {
                    throw fail(keyAt, "expected a number of days above 0, at most 3650 (0.5 keeps 12 hours)")
                }
                settings.maxAgeDays = days
            case "maxBytes":
                guard member.isInteger, let bytes = member.int64, (1 << 20...1 << 40).contains(bytes) else {
                    throw fail(keyAt, "expected a whole number of bytes from 1048576 (1 MiB) to 1099511627776 (1 TiB)")
                }
                settings.maxBytes = bytes
            default:
                throw fail(keyAt, "unknown key '\(key)'; allowed: \(historyKeys.joined(separator: ", "))")
            }
        }
        return settings
    }
}
