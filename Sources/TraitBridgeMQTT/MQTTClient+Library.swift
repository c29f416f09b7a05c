internal import CMosquitto
import Foundation

/// MQTT 5 properties (a publication with them, and a message's read back) and return codes as
/// errors (the one place where they become Swift errors): `MQTTClient`'s use of libmosquitto's structures.
extension MQTTClient {
    // MARK: Received messages

    /// Whether a large payload is taken from libmosquitto instead of copied in its callback.
    /// libmosquitto 2.0 (lib/handle_publish.c) copies a publication's payload out of the packet it
    /// read, calls back, then frees that copy with `free()` (`message__cleanup`) and the packet
    /// after it: a copy made in the callback is a third one (a 45 MB list is 135 MB at that
    /// moment). Taken, the library frees `NULL`; the payload is copied once the read has
    /// returned and the packet is gone, then freed. Other versions: copied, as any message.
    static let takesLargePayloads: Bool = {
        var major: Int32 = 0
        var minor: Int32 = 0
        var revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return major == 2 && minor == 0
    }()

    /// From this size on a payload is taken (a zigbee2mqtt device list); anything smaller is copied.
    static let largePayload = 1 << 20

    /// A message, in its callback (network thread): queued to be handed on after the round's reads.
    func didReceive(_ message: UnsafeMutablePointer<mosquitto_message>, properties: OpaquePointer?) {
        let topic = String(cString: message.pointee.topic)
        guard topic != configuration.wakeTopic else { return }  // ours (``publishWake``), or another client's
        let count = Int(message.pointee.payloadlen)
        var received = MQTTMessage(
            topic: topic, payload: [], qos: Int(message.pointee.qos), isRetained: message.pointee.retain)
        if let properties { Self.readRequestProperties(properties, into: &received) }  // nil for device traffic
        guard count > 0, let payload = message.pointee.payload else {
            self.received.append(.message(received))
            return
        }
        if count >= Self.largePayload { receivedLargePayload = true }
        if count >= Self.largePayload && Self.takesLargePayloads {
            message.pointee.payload = nil
            message.pointee.payloadlen = 0
            self.received.append(.taken(received, UnsafeMutableRawBufferPointer(start: payload, count: count)))
        } else {
            received.payload = Array(UnsafeRawBufferPointer(start: payload, count: count))
            self.received.append(.message(received))
        }
    }

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

    func publishWithProperties(
        _ topic: String, payload: [UInt8], qos: Int, retain: Bool, responseTopic: String?, correlationData: [UInt8]?,
        mid: inout Int32
    ) throws(MQTTError) -> Int32 {
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if let responseTopic {
            try Self.check(
                mosquitto_property_add_string(&properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), responseTopic))
        }
        if let correlationData {
            guard correlationData.count <= Int(UInt16.max) else {
                throw .library(
                    code: Int32(MOSQ_ERR_INVAL.rawValue), message: "correlation data longer than 65535 bytes")
            }
            let rc = correlationData.withUnsafeBytes { bytes in
                mosquitto_property_add_binary(
                    &properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), bytes.baseAddress,
                    UInt16(clamping: bytes.count))
            }
            try Self.check(rc)
        }
        return payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(
                handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(clamping: qos), retain, properties)
        }
    }
}

extension MQTTClient {
    /// A payload taken from libmosquitto (``Received/taken``), copied into an array and freed.
    static func copyAndFree(_ payload: UnsafeMutableRawBufferPointer) -> [UInt8] {
        defer { free(payload.baseAddress) }
        return Array(payload)
    }
}

extension MQTTMessage {
    /// This message with `payload` as its payload, handed on without a second reference to it.
    consuming func carrying(_ payload: consuming [UInt8]) -> MQTTMessage {
        self.payload = payload
        return self
    }
}
