import Logging
import Synchronization
import Testing

@testable import TraitBridgeEngine

/// Collects what a `Logger` was given.
private final class CapturingHandler: LogHandler, @unchecked Sendable {
    let lines = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        lines.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
    }
}

@Suite("Log lines of the state machine")
struct BridgeLogLineTests {
    @Test("a line reaches the logger at its level, with its metadata")
    func logged() {
        let handler = CapturingHandler()
        let logger = Logger(label: "test") { _ in handler }
        BridgeLogLine(.warning, "not sent", ["tb.mqtt.topic": "a/b", "tb.device.id": "z2m-1"]).log(to: logger)
        BridgeLogLine(.debug, "quiet").log(to: logger)
        let lines = handler.lines.withLock { $0 }
        #expect(lines.map(\.0) == [.warning, .debug])
        #expect(lines.map(\.1) == ["not sent", "quiet"])
        #expect(lines.first?.2 == ["tb.mqtt.topic": "a/b", "tb.device.id": "z2m-1"])
    }

    @Test("a line below the logger's level is dropped before its metadata is built; the rest pass")
    func belowLevel() {
        let handler = CapturingHandler()
        handler.logLevel = .warning
        let logger = Logger(label: "test") { _ in handler }
        for level: BridgeLogLine.Level in [.debug, .info, .notice, .warning, .error] {
            BridgeLogLine(level, "\(level)", ["tb.device.id": "z2m-1"]).log(to: logger)
        }
        let lines = handler.lines.withLock { $0 }
        #expect(lines.map(\.0) == [.warning, .error])
        #expect(lines.map(\.1) == ["warning", "error"])
    }
}
