/// Something the bridge wants sent; the state machine returns these and the caller publishes them.
public struct Outgoing: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var isRetained: Bool
    public var qos: Int
    /// An answer to an MQTT 5 request echoes its Correlation Data.
    public var correlationData: [UInt8]?
    /// Not for the broker: the edge connection of a plug-in (``SourcePlugin/channel``) sends it.
    public var channel: String?

    public init(
        topic: String, payload: [UInt8], isRetained: Bool, qos: Int = 0, correlationData: [UInt8]? = nil,
        channel: String? = nil
    ) {
        self.topic = topic
        self.payload = payload
        self.isRetained = isRetained
        self.qos = qos
        self.correlationData = correlationData
        self.channel = channel
    }
}
