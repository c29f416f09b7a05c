import TraitBridgeHomeKit
import TraitBridgeJSON

extension ServeConfiguration {
    static let homeKitKeys = [
        "name", "listen", "port", "mdns", "setupCode", "connectionLimit", "accessoriesPerBridge", "include", "exclude",
    ]

    /// `homekit`: `{"name", "listen", "port", "mdns": [interfaces], "setupCode", "connectionLimit",
    /// "accessoriesPerBridge", "include", "exclude"}`; the bridge is a HomeKit bridge only with the section.
    static func parseHomeKit(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> HomeKitBridge.Settings
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object with \(homeKitKeys.joined(separator: ", "))")
        }
        var settings = HomeKitBridge.Settings()
        var export: [(String, JSON)] = []
        for (key, member) in value.members where !key.hasPrefix("$") {
            let keyAt = at.appending(key)
            switch key {
            case "name":
                guard let name = member.string, (1...64).contains(name.count), !name.contains("\n") else {
                    throw fail(keyAt, "expected a name of 1 to 64 characters (shown in the Home app)")
                }
                settings.name = name
            case "listen":
                guard let listen = member.string, !listen.isEmpty else { throw fail(keyAt, "expected an address") }
                settings.listen = listen
            case "port":
                guard let port = member.int64, (0...65535).contains(port) else {
                    throw fail(keyAt, "expected a port from 0 to 65535 (0: any free port)")
                }
                settings.port = Int(port)
            case "mdns":
                guard member.kind == .array, member.elements.allSatisfy({ $0.string?.isEmpty == false }) else {
                    throw fail(keyAt, "expected a list of interface names to announce on, [] for none")
                }
                settings.mdnsInterfaces = member.elements.compactMap(\.string)
            case "setupCode":
                guard let code = member.string, let formatted = SetupCode.format(code) else {
                    throw fail(keyAt, "expected eight digits XXX-XX-XXX, not a trivial one (12345678, 11111111…)")
                }
                settings.setupCode = formatted
            case "connectionLimit":
                guard let limit = member.int64, (8...1024).contains(limit) else {
                    throw fail(keyAt, "expected a number from 8 (HAP's minimum) to 1024")
                }
                settings.connectionLimit = Int(limit)
            case "accessoriesPerBridge":
                guard let count = member.int64.flatMap({ Int(exactly: $0) }), (1...149).contains(count) else {
                    throw fail(keyAt, "expected a number from 1 to 149 (HAP's limit); more devices make more bridges")
                }
                settings.accessoriesPerBridge = count
            case "include", "exclude": export.append((key, member))
            default: throw fail(keyAt, "unknown key '\(key)'; allowed: \(homeKitKeys.joined(separator: ", "))")
            }
        }
        if !export.isEmpty { settings.exportRules = try parseExport(members: export, at: at, fail: fail) }
        return settings
    }
}
