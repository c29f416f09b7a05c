import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeModel

/// `traitbridge watch [DEVICE…]`: a live stream of added, removed and changed devices.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Stream changes as they happen: devices added or removed, connectivity and values that changed.",
        discussion: """
            Starts from what the bridge has published, then prints one line per change until Ctrl-C (or --count \
            / --duration): devices, device events (a partner cloud's notifications: a doorbell press, an object \
            seen), and cloud links failing or recovering. Values are in people's words (22.2 °C, locked). --json \
            prints JSON Lines: {"event": "watching", "prefix", "devices"} once the stream is live, then {"event", \
            "id", "name", "changes" (as sent), "display" (in people's words)}, {"event": "notification", "id", \
            "name", "trait", "link", "notification"}, {"event": "link", "link", "state", "since", "error"}.

            Examples:
              traitbridge watch
              traitbridge watch "Hall light" --json
            """
    )

    @Argument(help: "Device ids or names (default: every device).")
    var devices: [String] = []
    @OptionGroup var connection: ConnectionOptions
    @Flag(help: "Print JSON Lines.")
    var json = false
    @Option(help: "Stop after this many changes.")
    var count: Int?
    @Option(help: "Stop after this many seconds.")
    var duration: Int?

    func run() throws {
        Interruption.install()
        try Self.stream(
            connection: connection, devices: devices, json: json, count: count, duration: duration,
            shouldStop: { Interruption.isRequested })
    }

    /// Prints changes until `count` changes, `duration` seconds or `shouldStop()` (the demo's
    /// Ctrl-C). Exit 3 when the broker cannot be reached.
    static func stream(
        connection: ConnectionOptions, devices: [String], json: Bool, count: Int?, duration: Int?,
        shouldStop: () -> Bool
    ) throws {
        let configuration = try connection.clientConfiguration()
        let prefix = connection.prefix
        let feed = Feed()
        let client = try MQTTClient(configuration: configuration, onMessage: { feed.add($0) })
        let marker = "\(prefix)/cli/marker/\(MQTTClientConfiguration.uniqueClientID(prefix: "watch"))"
        client.subscribe("\(prefix)/devices/+/state", qos: 1)
        client.subscribe("\(prefix)/devices/+/event", qos: 1)
        client.subscribe("\(prefix)/devices/+", qos: 1)  // descriptions: the metadata values are shown with
        client.subscribe("\(prefix)/bridge/health", qos: 1)
        client.subscribe(marker, qos: 1)
        client.start()
        defer { client.stop() }
        let connectDeadline = ContinuousClock.now + .seconds(connection.timeout)
        while !client.isConnected {
            guard ContinuousClock.now < connectDeadline else {
                printError(
                    "error: cannot reach the broker at \(configuration.broker); check --broker (and that it runs)")
                throw ExitCode(3)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        _ = try? client.publish(marker, text: "done", qos: 1)
        let end = duration.map { ContinuousClock.now + .seconds($0) }
        let style = TerminalStyle.standardOutput
        var known: [String: JSON] = [:]
        var descriptions: [String: JSON] = [:]
        let wanted = Set(devices.map(NameRules.comparisonKey))
        func isWatched(_ id: String, _ name: String) -> Bool {
            wanted.isEmpty || devices.contains(id) || wanted.contains(NameRules.comparisonKey(name))
        }
        var links = LinkWatch()
        var isLive = false
        var printed = 0
        let statePrefix = prefix + "/devices/"
        while end.map({ ContinuousClock.now < $0 }) ?? true, !shouldStop() {
            let messages = feed.take()
            if messages.isEmpty { Thread.sleep(forTimeInterval: 0.02) }
            for message in messages {
                if message.topic == marker {
                    isLive = true
                    let watched = known.filter { isWatched($0.key, $0.value["name"]?.string ?? $0.key) }.count
                    let start: JSONValue = [
                        "event": "watching", "prefix": .string(prefix), "devices": .int(Int64(watched)),
                    ]
                    FileHandleWriter.write(
                        json
                            ? start.serialized() + "\n"
                            : "watching \(watched) device\(watched == 1 ? "" : "s") on \(prefix); changes follow\n",
                        to: 1)
                    continue
                }
                var lines: [(text: String, json: JSONValue)] = []
                if message.topic == prefix + "/bridge/health" {
                    lines = links.changes(message.payload, reportChanges: isLive)
                } else if isLive, message.topic.hasPrefix(statePrefix), message.topic.hasSuffix("/event") {
                    let id = String(message.topic.dropFirst(statePrefix.count).dropLast(6))
                    let name = known[id]?["name"]?.string ?? id
                    guard isWatched(id, name) else { continue }
                    if let event = Self.event(message.payload, id: id, name: name) { lines = [event] }
                }
                for line in lines {
                    FileHandleWriter.write(
                        (json ? line.json.serialized() : "\(style.dim(Self.clock()))  \(line.text)") + "\n", to: 1)
                    printed += 1
                    if let count, printed >= count { return }
                }
                if message.topic.hasPrefix(statePrefix), !message.topic.dropFirst(statePrefix.count).contains("/") {
                    let id = String(message.topic.dropFirst(statePrefix.count))
                    descriptions[id] = message.payload.isEmpty ? nil : try? JSONDocument.parse(message.payload).root
                    continue
                }
                guard message.topic.hasPrefix(statePrefix), message.topic.hasSuffix("/state") else { continue }
                let id = String(message.topic.dropFirst(statePrefix.count).dropLast(6))
                let new = message.payload.isEmpty ? nil : try? JSONDocument.parse(message.payload).root
                let old = known[id]
                known[id] = new
                guard isLive,
                    let change = StateChange.between(id: id, old: old, new: new, description: descriptions[id])
                else { continue }
                guard isWatched(change.id, change.name) else { continue }
                // Written straight to stdout, unbuffered, so a pipe sees each change at once.
                FileHandleWriter.write(
                    (json ? change.json.serialized() : "\(style.dim(Self.clock()))  \(change.line)") + "\n", to: 1)
                printed += 1
                if let count, printed >= count { return }
            }
        }
    }

    /// A device event line: `event   Front door (c2c-door)  google.ObjectDetection from link p: {…}`.
    static func event(_ payload: [UInt8], id: String, name: String) -> (text: String, json: JSONValue)? {
        guard let root = try? JSONDocument.parse(payload).root, let trait = root["trait"]?.string else { return nil }
        let notification = root["notification"]?.value ?? .null
        // A cloud link's notification names its link; a source's (a camera's motion) its source.
        let from = root["link"]?.string.map { ("link", $0) } ?? ("source", root["source"]?.string ?? "?")
        let text = "event    \(name) (\(id))  \(trait) from \(from.0) \(from.1): \(notification.serialized())"
        var json: JSONObject = [
            "event": "notification", "id": .string(id), "name": .string(name), "trait": .string(trait),
        ]
        json[from.0] = .string(from.1)
        json["notification"] = notification
        return (text, .object(json))
    }

    /// Cloud links' health as last seen on `<prefix>/bridge/health`: a line when one starts
    /// failing, fails differently, or works again.
    struct LinkWatch {
        var seen: [String: (state: String, error: String)] = [:]

        mutating func changes(_ payload: [UInt8], reportChanges: Bool) -> [(text: String, json: JSONValue)] {
            guard let links = try? JSONDocument.parse(payload).root["links"], links.kind == .object else { return [] }
            var lines: [(text: String, json: JSONValue)] = []
            for (name, health) in links.members {
                let state = health["state"]?.string ?? "?"
                let error = health["error"]?.string ?? ""
                defer { seen[name] = (state, error) }
                guard reportChanges, seen[name].map({ $0.state != state || $0.error != error }) ?? true else {
                    continue
                }
                var json: JSONObject = ["event": "link", "link": .string(name), "state": .string(state)]
                json.setIfPresent("since", health["since"]?.string.map { .string($0) })
                json.setIfPresent("error", error.isEmpty ? nil : .string(error))
                let text =
                    state == "failing"
                    ? "link     cloud link \(name) FAILING since \(health["since"]?.string ?? "?"): \(error)"
                    : "link     cloud link \(name) \(state)"
                lines.append((text, .object(json)))
            }
            return lines
        }
    }

    static func clock() -> String {
        String(Timestamp.iso8601(Date()).dropFirst(11).prefix(8))
    }

    /// Messages from the client's thread, taken in order by the printing loop.
    private final class Feed: @unchecked Sendable {
        private let lock = NSLock()
        private var messages: [MQTTMessage] = []

        func add(_ message: MQTTMessage) { lock.withLock { messages.append(message) } }

        func take() -> [MQTTMessage] {
            lock.withLock {
                defer { messages.removeAll(keepingCapacity: true) }
                return messages
            }
        }
    }
}
