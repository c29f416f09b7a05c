import Foundation
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeHTTP
import TraitBridgeHomeKit
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// The settings of `traitbridge serve`, from the config file (`--config`), then flags, then
/// environment (`TRAITBRIDGE_PASSWORD`). Unknown keys and wrong types in the file are errors that
/// name file:line:col and the key, so a typo never silently falls back to a default.
struct ServeConfiguration: Sendable {
    var broker = "mqtt://127.0.0.1:1883"
    var username: String?
    var password: String?
    var clientID: String?
    var protocolVersion = "5"
    var keepAliveSeconds = 30
    var isCleanSession = true
    var tlsCAFile: String?
    var tlsCertificateFile: String?
    var tlsKeyFile: String?
    var tlsInsecure = false
    var prefix = "traitbridge"
    var dataDirectory: String?
    /// A folder of automation definitions (JSON files), read at start.
    var automationsFolder: String?
    /// A folder whose files add to or replace the embedded mappings (`nil`: the embedded ones alone).
    var mappingsDirectory: String?
    var logLevel = "info"
    var commandTimeoutSeconds = 3.0
    /// The sources to read, each an instance of a registry family, from their sections of the file
    /// (`zigbee2mqtt`, `tasmota`…, each read and checked by its family); those with no section keep
    /// their families' defaults.
    var sources = SourceRegistry.standard.defaultInstances
    /// `cloudAliases`: C2C device id → the local device id it is.
    var cloudAliases: [String: String] = [:]
    /// `limits`: what outside input may make the bridge hold (see `BridgeLimits`).
    var limits = BridgeLimits()
    /// `http`: Google's fulfillment endpoint and account linking; off without the section.
    var http: FulfillmentSettings?
    /// `export`: which devices Google is given.
    var exportRules = ExportRules()
    /// `cloudLinks`: partner clouds the bridge calls for their devices.
    var cloudLinks: [CloudLinkSettings] = []
    /// `homekit`: the bridge as a HomeKit bridge (HAP over IP); off without the section.
    var homeKit: HomeKitBridge.Settings?
    /// `homeAssistantExport`: Home Assistant MQTT discovery out; off without the section (`homeAssistant`
    /// is the source that reads Home Assistant's discovery).
    var homeAssistant: HomeAssistantSettings?
    /// `matterBridge`: the bridge as a Matter device (an On/Off Light for one device); off without the section.
    var matterBridge: MatterBridgeSettings?
    /// `history`: value and connectivity changes kept on disk (on by default).
    var history = HistorySettings()
    static let keys = Set([
        "broker", "username", "password", "passwordFile", "passwordEnv", "clientId", "protocol", "keepAliveSeconds",
        "cleanSession",
        "tls", "prefix", "dataDir", "automations",
        "mappings", "logLevel", "commandTimeoutSeconds", "cloudAliases", "limits", "http", "export", "cloudLinks",
        "homekit", "matterBridge", "homeAssistantExport", "history",
    ]).union(SourceRegistry.standard.configKeys)

    /// Reads a config file; the error names the place.
    static func load(path: String) throws(ConfigurationError) -> ServeConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        return try parse([UInt8](data), path: path)
    }

    /// Reads a config file's contents; `path` names the file in errors.
    static func parse(_ bytes: [UInt8], path: String) throws(ConfigurationError) -> ServeConfiguration {
        let root: JSON
        do {
            root = try JSONDocument.parse(bytes).root
        } catch {
            throw .invalid(path, "\(error.line):\(error.column)", "$", "invalid JSON: \(error.reason)")
        }
        let map = JSONSourceMap(bytes: bytes)
        func fail(_ jsonPath: JSONPath, _ message: String) -> ConfigurationError {
            .invalid(path, map.location(of: jsonPath).description, jsonPath.description, message)
        }
        guard root.kind == .object else { throw fail(.root, "expected an object") }
        var configuration = ServeConfiguration()
        for (key, value) in root.members where !key.hasPrefix("$") {
            let at = JSONPath.root.appending(key)
            func string() throws(ConfigurationError) -> String {
                guard let text = value.string else { throw fail(at, "expected a string, found \(value.kind)") }
                return text
            }
            switch key {
            case "broker": configuration.broker = try string()
            case "username": configuration.username = try string()
            case "password": configuration.password = try string()
            case "passwordFile":
                let file = try string()
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                    throw fail(at, "cannot read password file '\(file)'")
                }
                configuration.password = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "passwordEnv":
                let name = try string()
                guard let text = ProcessInfo.processInfo.environment[name] else {
                    throw fail(at, "environment variable \(name) is not set")
                }
                configuration.password = text
            case "clientId": configuration.clientID = try string()
            case "protocol":
                let text = try string()
                guard ["3.1.1", "5"].contains(text) else { throw fail(at, "protocol '\(text)' is not one of 3.1.1, 5") }
                configuration.protocolVersion = text
            case "keepAliveSeconds":
                guard let seconds = value.int64, (5...3600).contains(seconds) else {
                    throw fail(at, "expected whole seconds from 5 to 3600")
                }
                configuration.keepAliveSeconds = Int(seconds)
            case "cleanSession":
                guard let flag = value.bool else { throw fail(at, "expected true or false") }
                configuration.isCleanSession = flag
            case "prefix": configuration.prefix = try string()
            case "dataDir": configuration.dataDirectory = try string()
            case "automations": configuration.automationsFolder = try string()
            case "mappings": configuration.mappingsDirectory = try string()
            case "logLevel": configuration.logLevel = try string()
            case "commandTimeoutSeconds":
                guard let seconds = value.double, seconds > 0, seconds <= 600 else {
                    throw fail(at, "expected a number of seconds from 0 to 600")
                }
                configuration.commandTimeoutSeconds = seconds
            case "tls":
                for (tlsKey, tlsValue) in value.members {
                    let tlsAt = at.appending(tlsKey)
                    func path() throws(ConfigurationError) -> String? {
                        if tlsValue.isNull { return nil }
                        guard let text = tlsValue.string else {
                            throw fail(tlsAt, "expected a file path or null, found \(tlsValue.kind)")
                        }
                        return text
                    }
                    switch tlsKey {
                    case "caFile": configuration.tlsCAFile = try path()
                    case "certFile": configuration.tlsCertificateFile = try path()
                    case "keyFile": configuration.tlsKeyFile = try path()
                    case "insecure":
                        guard let flag = tlsValue.bool else { throw fail(tlsAt, "expected true or false") }
                        configuration.tlsInsecure = flag
                    default: throw fail(tlsAt, "unknown key '\(tlsKey)'; allowed: caFile, certFile, keyFile, insecure")
                    }
                }
            case "cloudAliases":
                guard value.kind == .object else {
                    throw fail(at, "expected an object {\"<C2C device id>\": \"<TraitBridge device id>\"}")
                }
                for (c2cID, target) in value.members {
                    guard let text = target.string, DeviceID.isValid(text) else {
                        throw fail(
                            at.appending(c2cID),
                            "expected a TraitBridge device id such as \"z2m-0x00158d0001a2b3c4\" (letters, digits, . _ -)"
                        )
                    }
                    configuration.cloudAliases[c2cID] = text
                }
            case "limits":
                guard value.kind == .object else {
                    throw fail(at, "expected an object such as {\"devicesPerSource\": 5000}")
                }
                for (name, limit) in value.members {
                    guard let number = limit.int64, (1...(1 << 40)).contains(number) else {
                        throw fail(at.appending(name), "expected a whole number from 1 to 2^40")
                    }
                    guard configuration.limits.set(name, to: Int(number)) else {
                        let known = configuration.limits.named.map(\.name).joined(separator: ", ")
                        throw fail(at.appending(name), "unknown limit '\(name)'; allowed: \(known)")
                    }
                }
            case "http":
                configuration.http = try parseHTTP(value, at: at, fail: fail)
            case "export":
                configuration.exportRules = try parseExport(value, at: at, fail: fail)
            case "cloudLinks":
                configuration.cloudLinks = try parseCloudLinks(value, at: at, fail: fail)
            case "homekit":
                configuration.homeKit = try parseHomeKit(value, at: at, fail: fail)
            case "matterBridge":
                configuration.matterBridge = try parseMatterBridge(value, at: at, fail: fail)
            case "homeAssistantExport":
                configuration.homeAssistant = try parseHomeAssistant(value, at: at, fail: fail)
            case "history":
                configuration.history = try parseHistory(value, at: at, fail: fail)
            default:
                let read: [SourceInstance]?
                do {
                    read = try SourceRegistry.standard.reading(value, key: key, at: at, into: configuration.sources)
                } catch { throw fail(error.path, error.message) }
                guard let read else {
                    throw fail(at, "unknown key '\(key)'; allowed: \(keys.sorted().joined(separator: ", "))")
                }
                configuration.sources = read
            }
        }
        return configuration
    }

    /// `$XDG_DATA_HOME/traitbridge`, or `~/.local/share/traitbridge`.
    static var defaultDataDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/traitbridge" }
        return (environment["HOME"] ?? ".") + "/.local/share/traitbridge"
    }
}

/// A config file that cannot be used; the text names the place and what is allowed.
enum ConfigurationError: Error, CustomStringConvertible {
    case unreadable(String)
    case invalid(String, String, String, String)

    var description: String {
        switch self {
        case .unreadable(let path): "cannot read config file '\(path)'"
        case .invalid(let file, let location, let path, let message): "\(file):\(location): \(path): \(message)"
        }
    }
}
