/// Where a request's answer goes: the MQTT 5 Response Topic with its Correlation Data, or, for an
/// MQTT 3.1.1 request (`…/request/<op>/<correlation>`), `…/response/<op>/<correlation>`.
public struct ReplyAddress: Sendable, Hashable {
    public var topic: String
    public var correlationData: [UInt8]?

    public init(topic: String, correlationData: [UInt8]? = nil) {
        self.topic = topic
        self.correlationData = correlationData
    }
}

/// Where an answer goes: published to an MQTT reply address, or handed to a caller in this
/// process that waits for it (an HTTP request, by the number ``Bridge`` gave it).
public enum ResponseSink: Sendable, Hashable {
    case mqtt(ReplyAddress)
    case waiter(Int)
}
