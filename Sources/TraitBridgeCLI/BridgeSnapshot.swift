import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel

/// What the bridge has published, read from the broker's retained messages: the CLI needs no
/// other channel than MQTT, so it works from any machine that reaches the broker.
///
/// Completeness: after subscribing, the reader publishes a marker to itself; a broker delivers a
/// subscription's retained messages before anything published after it on the same connection,
/// so when the marker comes back every retained message has arrived.
struct BridgeSnapshot: Sendable {
    /// `online`, `offline`, or nil when nothing was ever published on `<prefix>/bridge/state`.
    var bridgeState: String?
    /// Device id → its state payload.
    var states: [String: JSON]
    /// Device id → its description payload.
    var descriptions: [String: JSON]
    /// The cloud links on `<prefix>/bridge/health`, by name: devices, state, since, error.
    var links: [(name: String, health: JSON)] = []
    /// The layout: home id → its document (rooms, zones, groups, scenes); group id → its
    /// definition and its state; scene id → its definition and last run.
    var homes: [String: JSON] = [:]
    var groups: [String: JSON] = [:]
    var groupStates: [String: JSON] = [:]
    var scenes: [String: JSON] = [:]
    /// Automation id → its document (definition in words, next fire, last run), and its history.
    var automations: [String: JSON] = [:]
    var automationHistories: [String: JSON] = [:]

    enum ReadError: Error, CustomStringConvertible {
        case unreachable(String, String)
        case incomplete(String)

        var description: String {
            switch self {
            case .unreachable(let broker, let reason):
                "cannot reach the broker at \(broker): \(reason); check --broker (and that it runs)"
            case .incomplete(let broker):
                "the broker at \(broker) did not deliver the retained state in time; try again"
            }
        }
    }

    /// The snapshot of retained messages (topic → payload) under `prefix`. Anyone on the broker can
    /// publish there: a payload that is not JSON is left out, and the readers of a state take
    /// nothing for granted.
    init(retained messages: [String: [UInt8]], prefix: String) {
        bridgeState = nil
        states = [:]
        descriptions = [:]
        let devices = prefix + "/devices/"
        for (topic, payload) in messages where !payload.isEmpty {
            if topic == prefix + "/bridge/state" {
                bridgeState = String(decoding: payload, as: UTF8.self)
            } else if topic == prefix + "/bridge/health", let json = try? JSONDocument.parse(payload).root {
                links = (json["links"]?.members ?? []).map { ($0.key, $0.value) }
            } else if let (kind, id) = Self.layoutTopic(topic, prefix: prefix),
                let json = try? JSONDocument.parse(payload).root
            {
                switch kind {
                case "homes": homes[id] = json
                case "groups": groups[id] = json
                case "groups-state": groupStates[id] = json
                case "automations": automations[id] = json
                case "automations-history": automationHistories[id] = json
                default: scenes[id] = json
                }
            } else if topic.hasPrefix(devices), let json = try? JSONDocument.parse(payload).root {
                let rest = String(topic.dropFirst(devices.count))
                if rest.hasSuffix("/state") {
                    states[String(rest.dropLast(6))] = json
                } else if !rest.contains("/") {
                    descriptions[rest] = json
                }
            }
        }
    }

    /// `<prefix>/homes/<id>`, `<prefix>/groups/<id>[/state]`, `<prefix>/scenes/<id>` → kind and id.
    static func layoutTopic(_ topic: String, prefix: String) -> (String, String)? {
        guard topic.hasPrefix(prefix + "/") else { return nil }
        let parts = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[1].isEmpty else { return nil }
        switch (parts[0], parts.count) {
        case ("homes", 2), ("groups", 2), ("scenes", 2), ("automations", 2): return (String(parts[0]), String(parts[1]))
        case ("groups", 3) where parts[2] == "state": return ("groups-state", String(parts[1]))
        case ("automations", 3) where parts[2] == "history": return ("automations-history", String(parts[1]))
        default: return nil
        }
    }

    /// The home of a device (its description's name), and whether it is in a zone, for the
    /// `--home` and `--zone` filters; `nil` filters match everything.
    func isIn(_ id: String, home: String?, zone: String?) -> Bool {
        let description = descriptions[id]
        if let home {
            let key = NameRules.comparisonKey(home)
            let named = description?["home"]?.string.map(NameRules.comparisonKey)
            let homeID = homes.first { NameRules.comparisonKey($0.value["name"]?.string ?? "") == named }?.key
            guard named == key || homeID == home else { return false }
        }
        if let zone {
            let key = NameRules.comparisonKey(zone)
            let zones = description?["zones"]?.elements.compactMap(\.string) ?? []
            guard zones.contains(where: { NameRules.comparisonKey($0) == key }) else { return false }
        }
        return true
    }

    /// Reads the snapshot, or prints why not and exits 3 (broker not reachable).
    static func readOrExit(_ connection: ConnectionOptions) throws -> BridgeSnapshot {
        do {
            return try read(
                connection.clientConfiguration(
                    clientID: MQTTClientConfiguration.uniqueClientID(prefix: "traitbridge-cli")),
                prefix: connection.prefix, timeout: .seconds(connection.timeout))
        } catch let error as ReadError {
            printError("error: \(error)")
            throw ExitCode(3)
        }
    }

    /// The id of the device named by id or by name (exactly, else as the bridge compares names
    /// when it keeps them unique: ignoring case, spaces and apostrophes), or an error message and
    /// exit 4 — also when a name fits several devices.
    func deviceID(_ device: String, prefix: String) throws -> String {
        let ids = states.keys.sorted()
        if let id = ids.first(where: { $0 == device }) ?? ids.first(where: { states[$0]?["name"]?.string == device }) {
            return id
        }
        let wanted = NameRules.comparisonKey(device)
        let loose = ids.filter { NameRules.comparisonKey(states[$0]?["name"]?.string ?? "") == wanted }
        if loose.count == 1 { return loose[0] }
        if loose.count > 1 {
            printError("error: '\(device)' could be \(loose.joined(separator: ", ")); give the device id")
        } else {
            let names = ids.compactMap { states[$0]?["name"]?.string }
            printError(
                "error: no device '\(device)' on \(prefix)/devices/\(Suggestions.didYouMean(device, among: names)); "
                    + "`traitbridge status` lists them")
        }
        throw ExitCode(4)
    }

    static func read(broker: String, prefix: String, timeout: Duration = .seconds(5)) throws -> BridgeSnapshot {
        let url: BrokerURL
        do { url = try BrokerURL(broker) } catch { throw ValidationError(error.description) }
        return try read(
            MQTTClientConfiguration(
                broker: url, clientID: MQTTClientConfiguration.uniqueClientID(prefix: "traitbridge-cli"),
                wakeTopic: prefix + "/cli/marker/wake"),
            prefix: prefix, timeout: timeout)
    }

    static func read(_ configuration: MQTTClientConfiguration, prefix: String, timeout: Duration = .seconds(5)) throws
        -> BridgeSnapshot
    {
        let url = configuration.broker
        let marker = "\(prefix)/cli/marker/\(MQTTClientConfiguration.uniqueClientID(prefix: "status"))"
        let collected = Collected()
        let client = try MQTTClient(
            configuration: configuration,
            onMessage: { collected.add($0, marker: marker) },
            onEvent: { event in
                if case .connectFailed(let reason, _) = event {
                    collected.fail(reason)
                } else if case .refused(let reason) = event {
                    collected.fail(reason)
                }
            })
        for filter in [
            "\(prefix)/bridge/state", "\(prefix)/bridge/health", "\(prefix)/devices/+", "\(prefix)/devices/+/state",
            "\(prefix)/homes/+", "\(prefix)/groups/+", "\(prefix)/groups/+/state", "\(prefix)/scenes/+",
            "\(prefix)/automations/+", "\(prefix)/automations/+/history", marker,
        ] {
            client.subscribe(filter, qos: 1)
        }
        client.start()
        defer { client.stop() }
        let deadline = ContinuousClock.now + timeout
        while !client.isConnected {
            if let failure = collected.failure { throw ReadError.unreachable(url.description, failure) }
            guard ContinuousClock.now < deadline else {
                throw ReadError.unreachable(url.description, "no answer within \(timeout)")
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        // The marker is sent again every second until it comes back: one lost with a connection that
        // dropped (or refused while it reconnected) would otherwise leave the reader waiting out its timeout.
        // After a reconnect the subscriptions are made again and their retained messages come again first.
        var markerSent = ContinuousClock.now - .seconds(1)
        var markerRefused: MQTTError?  // the last time it could not be sent, if it never could since
        while !collected.isComplete {
            guard ContinuousClock.now < deadline else {
                if let markerRefused { throw ReadError.unreachable(url.description, markerRefused.description) }
                throw ReadError.incomplete(url.description)
            }
            if ContinuousClock.now - markerSent >= .seconds(1) {
                markerSent = ContinuousClock.now
                do {
                    try client.publish(marker, text: "done", qos: 1)
                    markerRefused = nil
                } catch {
                    markerRefused = error
                }
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
        return collected.snapshot(prefix: prefix)
    }

    /// Messages as they arrive on the client's thread.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [String: [UInt8]] = [:]
        private var done = false
        private var failureText: String?

        func add(_ message: MQTTMessage, marker: String) {
            lock.withLock {
                if message.topic == marker { done = true } else { messages[message.topic] = message.payload }
            }
        }

        func fail(_ reason: String) { lock.withLock { failureText = reason } }
        var failure: String? { lock.withLock { failureText } }
        var isComplete: Bool { lock.withLock { done } }

        func snapshot(prefix: String) -> BridgeSnapshot {
            lock.withLock { BridgeSnapshot(retained: messages, prefix: prefix) }
        }
    }
}
