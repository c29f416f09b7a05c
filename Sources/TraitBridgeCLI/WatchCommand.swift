import ArgumentParser
import Foundation
import TraitBridgeJSON
import TraitBridgeMQTT

/// `traitbridge watch [DEVICE…]`: a live stream of added, removed and changed devices.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Stream changes as they happen: devices added or removed, connectivity and values that changed.",
        discussion: """
            Starts from what the bridge has published, then prints one line per change until Ctrl-C (or --count / --duration). --json prints JSON Lines: {"event", "id", "name", "changes"}.

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
        try Self.stream(connection: connection, devices: devices, json: json, count: count, duration: duration, shouldStop: { Interruption.isRequested })
    }

    /// Prints changes until `count` changes, `duration` seconds or `shouldStop()` (the demo's
    /// Ctrl-C). Exit 3 when the broker cannot be reached.
    static func stream(connection: ConnectionOptions, devices: [String], json: Bool, count: Int?, duration: Int?, shouldStop: () -> Bool) throws {
        let configuration = try connection.clientConfiguration()
        let prefix = connection.prefix
        let feed = Feed()
        let client = try MQTTClient(configuration: configuration, onMessage: { feed.add($0) })
        let marker = "\(prefix)/cli/marker/\(MQTTClientConfiguration.uniqueClientID(prefix: "watch"))"
        client.subscribe("\(prefix)/devices/+/state", qos: 1)
        client.subscribe(marker, qos: 1)
        client.start()
        defer { client.stop() }
        let connectDeadline = ContinuousClock.now + .seconds(connection.timeout)
        while !client.isConnected {
            guard ContinuousClock.now < connectDeadline else {
                printError("error: cannot reach the broker at \(configuration.broker); check --broker (and that it runs)")
                throw ExitCode(3)
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        _ = try? client.publish(marker, text: "done", qos: 1)
        let end = duration.map { ContinuousClock.now + .seconds($0) }
        let style = TerminalStyle.standardOutput
        var known: [String: JSON] = [:]
        var isLive = false
        var printed = 0
        let statePrefix = prefix + "/devices/"
        while end.map({ ContinuousClock.now < $0 }) ?? true, !shouldStop() {
            let messages = feed.take()
            if messages.isEmpty { Thread.sleep(forTimeInterval: 0.02) }
            for message in messages {
                if message.topic == marker {
                    isLive = true
                    if !json { FileHandleWriter.write("watching \(known.count) device\(known.count == 1 ? "" : "s") on \(prefix); changes follow\n", to: 1) }
                    continue
                }
                guard message.topic.hasPrefix(statePrefix), message.topic.hasSuffix("/state") else { continue }
                let id = String(message.topic.dropFirst(statePrefix.count).dropLast(6))
                let new = message.payload.isEmpty ? nil : try? JSONDocument.parse(message.payload).root
                let old = known[id]
                known[id] = new
                guard isLive, let change = StateChange.between(id: id, old: old, new: new) else { continue }
                guard devices.isEmpty || devices.contains(change.id) || devices.contains(change.name) else { continue }
                // Written straight to stdout, unbuffered, so a pipe sees each change at once.
                FileHandleWriter.write((json ? change.json.serialized() : "\(style.dim(Self.clock()))  \(change.line)") + "\n", to: 1)
                printed += 1
                if let count, printed >= count { return }
            }
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
