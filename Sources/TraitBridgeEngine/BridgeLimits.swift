import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSources

/// Bounds on what input from outside can make the bridge hold. Anyone on a shared broker can
/// publish a million ids or a gigabyte of retained text; each bound here turns that into a
/// refusal that is logged and counted (on `<prefix>/bridge/health`), never into unbounded memory
/// and never into a silent drop. Each is configurable (`limits` in the config file).
public struct BridgeLimits: Sendable, Hashable {
    /// Devices one source instance may create (zigbee2mqtt, Tasmota, Shelly, Home Assistant).
    public var devicesPerSource = 20_000
    /// The largest device message, discovery config or command.
    public var messageBytes = 1 << 20
    /// The largest list: zigbee2mqtt `bridge/devices`, a request to the bridge (a whole SYNC).
    public var listBytes = 64 << 20
    /// Messages kept for topics whose device is not known yet (the newest per topic)…
    public var pendingMessages = 10_000
    /// …and their bytes together.
    public var pendingBytes = 16 << 20
    /// Commands waiting for their device's echo.
    public var pendingCommands = 1_000

    public init() {}

    /// The limits by name, as the config file and the health topic spell them.
    public var named: [(name: String, value: Int)] {
        [
            ("devicesPerSource", devicesPerSource), ("messageBytes", messageBytes), ("listBytes", listBytes),
            ("pendingMessages", pendingMessages), ("pendingBytes", pendingBytes), ("pendingCommands", pendingCommands),
        ]
    }

    /// Sets a limit by its name; `false` when there is no such limit.
    public mutating func set(_ name: String, to value: Int) -> Bool {
        switch name {
        case "devicesPerSource": devicesPerSource = value
        case "messageBytes": messageBytes = value
        case "listBytes": listBytes = value
        case "pendingMessages": pendingMessages = value
        case "pendingBytes": pendingBytes = value
        case "pendingCommands": pendingCommands = value
        default: return false
        }
        return true
    }
}

/// Which bound refused something; the raw value is the counter's name on the health topic.
public enum LimitKind: String, Sendable, CaseIterable, Comparable {
    case devicesPerSource, messageBytes, listBytes, pendingMessages, pendingBytes, pendingCommands

    public static func < (a: LimitKind, b: LimitKind) -> Bool { a.rawValue < b.rawValue }
}

extension BridgeState {
    public var healthTopic: String { "\(configuration.prefix)/bridge/health" }

    /// Counts one refusal by `kind` and logs it: the first, then at every power of two, so a flood
    /// of 50 000 refusals is 16 log lines that each say how many so far.
    mutating func refuseAtLimit(_ kind: LimitKind, topic: String, _ detail: String, effects: inout BridgeEffects) {
        let count = sources.countRefusal(kind)
        guard count & (count - 1) == 0 else { return }
        let limit = configuration.limits.named.first { $0.name == kind.rawValue }?.value ?? 0
        effects.log(
            .warning,
            "refused: \(detail) (limit \(kind.rawValue) = \(limit); \(count) refused so far; raise it under \"limits\" in the config)",
            ["tb.mqtt.topic": topic, "tb.limit": kind.rawValue])
    }

    /// Whether a new device of `family` would pass the per-source bound (logged and counted if not).
    mutating func admitsNewDevice(_ family: String, count: Int, topic: String, effects: inout BridgeEffects) -> Bool {
        guard count >= configuration.limits.devicesPerSource else { return true }
        refuseAtLimit(
            .devicesPerSource, topic: topic, "a new \(family) device: \(count) are known already", effects: &effects)
        return false
    }

    /// The largest payload taken on `topic`: lists and requests may be larger than device messages.
    func payloadLimit(_ topic: String) -> Int {
        if sources.carriesList(topic) { return configuration.limits.listBytes }
        if topic.hasPrefix(configuration.prefix + "/bridge/request/") || topic == cloudResponseTopic {
            return configuration.limits.listBytes
        }
        return configuration.limits.messageBytes
    }

    /// `<prefix>/bridge/health` (retained): the limits, what each refused since start, and how
    /// many devices each source holds, and each cloud link's health.
    public func healthPayload() -> [UInt8] {
        var limits = JSONObject()
        for (name, value) in configuration.limits.named { limits.append(name, .int(Int64(value))) }
        var refused = JSONObject()
        for kind in LimitKind.allCases { refused.append(kind.rawValue, .int(Int64(sources.refusalCount(kind)))) }
        var devices = JSONObject()
        for plugin in sources.allPlugins {
            devices.append(
                plugin.instance == "default" ? plugin.family : "\(plugin.family)/\(plugin.instance)",
                .int(Int64(plugin.deviceCount)))
        }
        devices.append("all", .int(Int64(graph.devices.count)))
        var pending = JSONObject()
        pending.append("messages", .int(Int64(sources.pendingCount)))
        pending.append("bytes", .int(Int64(sources.pendingBytes)))
        pending.append("commands", .int(Int64(commands.waitingCount)))
        var root: JSONObject = [
            "limits": .object(limits), "refused": .object(refused), "devices": .object(devices),
            "pending": .object(pending),
        ]
        if !cloudImport.links.isEmpty { root.append("links", .object(linkHealth())) }
        let logins = sources.logins
        if !logins.isEmpty {
            root.append("logins", ["failed": .int(Int64(logins.failed)), "waited": .int(Int64(logins.waited))])
        }
        if let history = sources.history.payload { root.append("history", .object(history)) }
        return JSONValue.object(root).serializedBytes()
    }

    /// The history recorder's running totals (read by the runtime at its ticks).
    mutating func noteHistory(_ totals: HistoryRecorder.Totals, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        guard sources.noteHistory(totals, now: now) else { return effects }
        publishHealthIfChanged(effects: &effects)
        return effects
    }

    /// The login pages' running totals of wrong passwords and of attempts told to wait.
    public mutating func noteLogins(failed: Int, waited: Int) -> BridgeEffects {
        var effects = BridgeEffects()
        guard sources.noteLogins(failed: failed, waited: waited) else { return effects }
        publishHealthIfChanged(effects: &effects)
        return effects
    }

    /// Publishes the health topic when something changed since it was last published.
    mutating func publishHealthIfChanged(effects: inout BridgeEffects) {
        guard sources.takeHealthChange() else { return }
        effects.publish(healthTopic, healthPayload(), retain: true, qos: 1)
    }
}
