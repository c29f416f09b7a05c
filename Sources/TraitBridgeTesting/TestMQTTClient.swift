import Foundation
public import TraitBridgeMQTT

/// An MQTT client for integration tests: records what arrives and waits for it, with bounds.
public final class TestMQTTClient: Sendable {
    public let client: MQTTClient
    public let messages = Recorder<MQTTMessage>()

    /// Connects to `broker` and subscribes to `filters`; waits (≤ 10 s) for the connection.
    public convenience init(_ broker: MosquittoBroker, subscribe filters: [String] = [], clientID: String? = nil) throws {
        try self.init(try BrokerURL(broker.url), subscribe: filters, clientID: clientID, caFile: broker.options.isTLS ? broker.caFile : nil)
    }

    /// Connects to a broker URL (with credentials, for brokers that require them).
    public init(_ url: BrokerURL, subscribe filters: [String] = [], clientID: String? = nil, caFile: String? = nil) throws {
        let messages = messages
        client = try MQTTClient(
            configuration: MQTTClientConfiguration(
                broker: url, clientID: clientID, tls: caFile.map { .init(caFile: $0) },
                backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300))),
            onMessage: { messages.append($0) })
        for filter in filters { client.subscribe(filter, qos: 1) }
        client.start()
        guard eventually({ client.isConnected }) else { throw MQTTError.notConnected }
        Thread.sleep(forTimeInterval: 0.05)  // let the SUBACKs arrive
    }

    deinit { client.stop() }

    public func publish(_ topic: String, _ text: String, retain: Bool = false) throws {
        try client.publish(topic, payload: Array(text.utf8), qos: 1, retain: retain)
    }

    public func publish(_ topic: String, bytes: [UInt8], retain: Bool = false) throws {
        try client.publish(topic, payload: bytes, qos: 1, retain: retain)
    }

    /// The newest message on `topic`, waiting up to `timeout` for one that satisfies `condition`.
    public func waitFor(_ topic: String, timeout: Duration = .seconds(10), where condition: (MQTTMessage) -> Bool = { _ in true }) -> MQTTMessage? {
        var found: MQTTMessage?
        _ = eventually(timeout: timeout) {
            found = messages.all.last { $0.topic == topic && condition($0) }
            return found != nil
        }
        return found
    }

    /// Topics seen so far that match a prefix and suffix.
    public func topics(prefix: String, suffix: String = "") -> Set<String> {
        Set(messages.all.map(\.topic).filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) })
    }
}
