import Logging

/// A log line produced by the state machine, written by the caller with swift-log.
public struct BridgeLogLine: Sendable, Hashable {
    public enum Level: Sendable, Hashable {
        case debug, info, notice, warning, error

        var loggerLevel: Logger.Level {
            switch self {
            case .debug: .debug
            case .info: .info
            case .notice: .notice
            case .warning: .warning
            case .error: .error
            }
        }
    }
    public var level: Level
    public var message: String
    /// `tb.`-prefixed metadata (`tb.mqtt.topic`, `tb.device.id`, `tb.source`).
    public var metadata: [String: String]

    public init(_ level: Level, _ message: String, _ metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }
}

extension BridgeLogLine {
    /// Writes the line to `logger` at its level, with its metadata.
    func log(to logger: Logger) {
        guard logger.logLevel <= level.loggerLevel else { return }  // 10 000 "added device" lines at warning
        var fields = Logger.Metadata()
        for (key, value) in metadata { fields[key] = "\(value)" }
        logger.log(level: level.loggerLevel, "\(message)", metadata: fields)
    }
}
