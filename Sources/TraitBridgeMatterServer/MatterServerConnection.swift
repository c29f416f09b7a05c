import Dispatch
import FoundationEssentials
public import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization
public import TraitBridgeEngine
import WSClient

/// The WebSocket to one Matter Server (python-matter-server), kept open for the bridge: every text
/// message the server sends goes to the Matter plug-in as it is (on `matter/<instance>/message`),
/// every command the plug-in publishes goes to the server as it is. The protocol itself (server
/// info, `start_listening`, events, answers) is the plug-in's; this is only the pipe, with
/// reconnection (1 s doubling to 30 s, forever) and the connection's state on `…/server`.
public final class MatterServerConnection: Service, Sendable {
    public let instance: String
    public let url: String
    let bridge: Bridge
    let logger: Logger
    /// The largest message taken from the server (a `start_listening` answer holds every node).
    let maxMessageBytes: Int
    /// The current connection's queue of commands; nil while disconnected.
    private let outbox = Mutex<AsyncStream<String>.Continuation?>(nil)

    public init(instance: String, url: String, bridge: Bridge, maxMessageBytes: Int, logger: Logger) {
        self.instance = instance
        self.url = url
        self.bridge = bridge
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
    }

    var channel: String { "matter/" + instance }

    public func run() async throws {
        bridge.attachChannel(channel) { [weak self] outgoing in self?.send(outgoing.payload) }
        defer { bridge.detachChannel(channel) }
        await cancelWhenGracefulShutdown { await self.keepConnected() }
    }

    /// Called inside the bridge's lock: only enqueues. A command while disconnected is answered
    /// at once, as the server would answer a node it cannot reach.
    private func send(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        let queued = outbox.withLock { continuation -> Bool in
            guard let continuation else { return false }
            if case .enqueued = continuation.yield(text) { return true }
            return false
        }
        guard !queued else { return }
        logger.warning("Matter Server \(url) is not connected: command not sent")
        // Answered as the server answers a refused command, so the command ends now, not at its
        // timeout; from another thread, since this runs inside the bridge's lock.
        guard let id = Self.messageID(in: payload) else { return }
        let answer =
            #"{"message_id":"\#(Self.escaped(id))","error_code":-1,"#
            + #""details":"not connected to the Matter Server \#(Self.escaped(url))"}"#
        let (bridge, channel) = (bridge, channel)
        DispatchQueue.global().async {
            bridge.channelReceived(channel, topic: channel + "/message", payload: Array(answer.utf8))
        }
    }

    /// The `message_id` of a command the plug-in made (`{"message_id":"cmd-7",…}`).
    static func messageID(in payload: [UInt8]) -> String? {
        let key = Array(#""message_id":""#.utf8)
        let head = Array(payload.prefix(200))
        guard head.count > key.count,
            let start = (0...(head.count - key.count)).first(where: { head[$0..<$0 + key.count].elementsEqual(key) })
        else { return nil }
        let idStart = start + key.count
        guard let end = head[idStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: head[idStart..<end], as: UTF8.self)
    }

    private func keepConnected() async {
        var delay: Duration = .seconds(1)
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let problem: String
            do {
                try await connectOnce()
                problem = "the server closed the connection"
            } catch {
                problem = "\(error)"
            }
            outbox.withLock {
                $0?.finish()
                $0 = nil
            }
            guard !Task.isCancelled else { break }
            report(connected: false, error: problem)
            logger.warning(
                "Matter Server \(url): \(problem); connecting again in \(delay)", metadata: ["tb.source": "matter"])
            // A connection that lasted resets the backoff.
            if ContinuousClock.now - started > .seconds(60) { delay = .seconds(1) }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
        report(connected: false, error: "the bridge is stopping")
    }

    private func connectOnce() async throws {
        let (commands, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(10_000))
        let configuration = WebSocketClientConfiguration(maxFrameSize: maxMessageBytes)
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
            [self] inbound, outbound, _ in
            outbox.withLock { $0 = continuation }
            report(connected: true, error: nil)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await command in commands { try await outbound.write(.text(command)) }
                }
                for try await message in inbound.messages(maxSize: maxMessageBytes) {
                    switch message {
                    case .text(let text):
                        bridge.channelReceived(channel, topic: channel + "/message", payload: Array(text.utf8))
                    case .binary(let buffer):
                        logger.notice("Matter Server sent \(buffer.readableBytes) binary bytes: ignored")
                    }
                }
                continuation.finish()
                group.cancelAll()
            }
        }
    }

    private func report(connected: Bool, error: String?) {
        var text = #"{"connected":\#(connected),"url":"\#(Self.escaped(url))""#
        if let error { text += #","error":"\#(Self.escaped(error))""# }
        text += "}"
        bridge.channelReceived(channel, topic: channel + "/server", payload: Array(text.utf8))
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
