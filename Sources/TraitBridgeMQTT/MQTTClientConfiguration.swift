/// Everything needed to connect: broker, identity, session, last will, TLS, protocol version.
public struct MQTTClientConfiguration: Sendable {
    public enum ProtocolVersion: String, Sendable, CaseIterable {
        case v311 = "3.1.1"
        case v5 = "5"
    }

    /// A message the broker publishes for us when we vanish (MQTT "last will").
    public struct Will: Sendable, Hashable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int
        public var isRetained: Bool

        public init(topic: String, payload: String, qos: Int = 1, isRetained: Bool = true) {
            self.topic = topic
            self.payload = Array(payload.utf8)
            self.qos = qos
            self.isRetained = isRetained
        }
    }

    /// TLS files for `mqtts://`; `isInsecure` skips host name verification (logged loudly).
    public struct TLS: Sendable, Hashable {
        public var caFile: String?
        public var certificateFile: String?
        public var keyFile: String?
        public var isInsecure: Bool

        public init(
            caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil, isInsecure: Bool = false
        ) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.isInsecure = isInsecure
        }
    }

    public var broker: BrokerURL
    /// Unique by default (`traitbridge-<random>`): two clients with one id kick each other off.
    public var clientID: String
    public var keepAlive: Duration
    /// `false` keeps subscriptions and queued QoS 1 messages across reconnects.
    public var isCleanSession: Bool
    public var protocolVersion: ProtocolVersion
    public var will: Will?
    public var tls: TLS?
    public var backoff: ReconnectBackoff
    /// A topic this client subscribes to and publishes an empty message on after its subscriptions
    /// (every connection's, and any made later); what arrives there is never handed on. mosquitto 2.0
    /// keeps the retained messages of a subscription that arrives while it is still writing to the
    /// client until a new message for that client comes: without one, they may never come.
    public var wakeTopic: String

    public init(
        broker: BrokerURL,
        clientID: String? = nil,
        keepAlive: Duration = .seconds(30),
        isCleanSession: Bool = true,
        protocolVersion: ProtocolVersion = .v311,
        will: Will? = nil,
        tls: TLS? = nil,
        backoff: ReconnectBackoff = ReconnectBackoff(),
        wakeTopic: String = "traitbridge/bridge/wake"
    ) {
        self.broker = broker
        self.clientID = clientID ?? Self.uniqueClientID()
        self.keepAlive = keepAlive
        self.isCleanSession = isCleanSession
        self.protocolVersion = protocolVersion
        self.will = will
        self.tls = tls
        self.backoff = backoff
        self.wakeTopic = wakeTopic
    }

    /// `traitbridge-` and 8 random hex digits.
    public static func uniqueClientID(prefix: String = "traitbridge") -> String {
        let random = UInt32.random(in: 0...UInt32.max)
        let hex = String(random, radix: 16)
        return "\(prefix)-" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}

/// One received message. The payload is a copy owned by Swift.
public struct MQTTMessage: Sendable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int
    public var isRetained: Bool
    /// MQTT 5 request/response: where the sender wants its answer (the Response Topic property)
    /// and what to echo with it (Correlation Data). `nil` under MQTT 3.1.1 or when not sent.
    public var responseTopic: String?
    public var correlationData: [UInt8]?

    public init(
        topic: String, payload: [UInt8], qos: Int = 0, isRetained: Bool = false, responseTopic: String? = nil,
        correlationData: [UInt8]? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.isRetained = isRetained
        self.responseTopic = responseTopic
        self.correlationData = correlationData
    }

    /// The payload as text (invalid UTF-8 is repaired with U+FFFD).
    public var payloadText: String { String(decoding: payload, as: UTF8.self) }
}

/// What happened to the connection; reported on the client's network thread.
public enum MQTTConnectionEvent: Sendable, CustomStringConvertible {
    /// The broker accepted the connection; subscriptions were (re)sent.
    case connected(broker: String)
    /// The broker refused the connection (bad credentials, not authorised…).
    case refused(reason: String)
    /// The connection ended; `isExpected` when we asked for it.
    case disconnected(reason: String, isExpected: Bool)
    /// A connection attempt failed before the broker answered (refused port, DNS, TLS).
    case connectFailed(reason: String, retryIn: Duration)
    /// Another client seems to use our client id.
    case kickOffSuspected(clientID: String, detail: String)

    /// `48 ms`, `2.5 s`.
    static func readable(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return milliseconds < 1000 ? "\(Int(milliseconds.rounded())) ms" : "\((milliseconds / 100).rounded() / 10) s"
    }

    public var description: String {
        switch self {
        case .connected(let broker): "connected to \(broker)"
        case .refused(let reason): "broker refused the connection: \(reason)"
        case .disconnected(let reason, let isExpected): isExpected ? "disconnected" : "connection lost: \(reason)"
        case .connectFailed(let reason, let retry): "cannot connect: \(reason); retrying in \(Self.readable(retry))"
        case .kickOffSuspected(let clientID, let detail):
            "another client seems to use client id '\(clientID)' (\(detail)); give each client a unique id"
        }
    }
}
