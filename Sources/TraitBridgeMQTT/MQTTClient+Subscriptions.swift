internal import CMosquitto

/// What goes on the wire when `MQTTClient` subscribes: the SUBSCRIBE itself (with No Local under MQTT 5)
/// and the wake-up publication mosquitto 2.0 needs after it.
extension MQTTClient {
    /// An empty message on ``MQTTClientConfiguration/wakeTopic``, after subscriptions: mosquitto 2.0
    /// (up to 2.0.22) queues the retained messages of a SUBSCRIBE that arrives while the client's
    /// socket is still full and sends them only when another message for the client arrives — a
    /// restart that published nothing back to itself waited for its devices' retained messages
    /// until one of them spoke. This is that message. Not when the broker is away (sent again on
    /// the next connection).
    func publishWake() {
        _ = try? publish(configuration.wakeTopic, payload: [], qos: 0, retain: false)
    }

    /// `noLocal` (MQTT 5's No Local option): the broker does not send this client its own
    /// publications on the filter. Under MQTT 3.1.1 it has no such option, and they come back.
    func sendSubscribe(_ filter: String, qos: Int32, noLocal: Bool) {
        if noLocal && configuration.protocolVersion == .v5 {
            mosquitto_subscribe_v5(handle, nil, filter, qos, Int32(MQTT_SUB_OPT_NO_LOCAL.rawValue), nil)
        } else {
            mosquitto_subscribe(handle, nil, filter, qos)
        }
    }
}
