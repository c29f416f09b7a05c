/// Why an MQTT operation failed. libmosquitto's `MOSQ_ERR_*` codes are turned into this in one
/// place (``MQTTError/from(code:)``), with libmosquitto's own text.
public enum MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidURL(String, reason: String)
    /// A libmosquitto call failed: its `MOSQ_ERR_*` code and `mosquitto_strerror` text.
    case library(code: Int32, message: String)
    /// The broker refused the connection (CONNACK reason).
    case connectionRefused(reason: String)
    case notConnected
    case invalidTopic(String)
    case tlsConfiguration(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid broker URL '\(url)': \(reason)"
        case .library(let code, let message): "libmosquitto error \(code): \(message)"
        case .connectionRefused(let reason): "the broker refused the connection: \(reason)"
        case .notConnected: "not connected to the broker; the message was not sent"
        case .invalidTopic(let topic): "invalid topic '\(topic)': topics are non-empty UTF-8 without + or # when publishing"
        case .tlsConfiguration(let message): "TLS configuration: \(message)"
        }
    }
}
