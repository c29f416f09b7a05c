internal import CMosquitto
import Foundation

/// What `MQTTClient` reads from libmosquitto's own structures: a message's MQTT 5 properties, and
/// its return codes as errors (the one place where they become Swift errors).
extension MQTTClient {
    /// Response Topic and Correlation Data of an MQTT 5 message (copied; libmosquitto's are freed).
    static func readRequestProperties(_ properties: OpaquePointer, into message: inout MQTTMessage) {
        var text: UnsafeMutablePointer<CChar>? = nil
        if mosquitto_property_read_string(properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text, false) != nil,
            let text
        {
            message.responseTopic = String(cString: text)
            free(text)
        }
        var bytes: UnsafeMutableRawPointer? = nil
        var length: UInt16 = 0
        if mosquitto_property_read_binary(
            properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &bytes, &length, false) != nil
        {
            message.correlationData = bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
            free(bytes)
        }
    }

    // MARK: Errors

    /// The one place where libmosquitto return codes become Swift errors.
    static func check(_ rc: Int32) throws(MQTTError) {
        guard rc != MOSQ_ERR_SUCCESS.rawValue else { return }
        throw .library(code: rc, message: message(for: rc))
    }

    static func message(for rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        return String(cString: mosquitto_strerror(rc))
    }
}
