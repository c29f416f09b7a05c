import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// Retained messages of every subscription arrive even when the first one's fill the socket: mosquitto
/// 2.0 keeps a later subscription's retained messages until another message for the client comes
/// (`MQTTClientConfiguration.wakeTopic`), against a real mosquitto.
@Suite("MQTT client retained messages against a real mosquitto", .serialized)
struct MQTTClientRetainedTests {
    @Test("a second subscription's retained messages arrive behind 16 MB of the first's, with nothing else published")
    func retainedBehindAFullSocket() throws {
        let broker = try MosquittoBroker()
        let url = try BrokerURL(broker.url)
        let large = 2000
        let small = 20
        // What the broker holds: 2 000 retained messages of 8 KB under a/ (more than loopback's socket
        // buffers), 20 under b/, at QoS 0 as zigbee2mqtt publishes them (a QoS 1 message's PUBACK would
        // wake the broker); the watcher sees the last one live, so the broker stored them all.
        let watcher = try TestMQTTClient(broker, subscribe: ["tb-retained/b/#"])
        let publisher = try TestMQTTClient(broker)
        let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 8192)
        for index in 0..<large {
            try publisher.client.publish("tb-retained/a/\(index)", payload: payload, qos: 0, retain: true)
        }
        for index in 0..<small {
            try publisher.client.publish("tb-retained/b/\(index)", text: "\(index)", qos: 0, retain: true)
        }
        #expect(watcher.waitFor("tb-retained/b/\(small - 1)", timeout: .seconds(30)) != nil)

        let arrived = Recorder<MQTTMessage>()
        let reader = try MQTTClient(
            configuration: MQTTClientConfiguration(broker: url, clientID: "tb-retained-reader"),
            onMessage: { arrived.append($0) })
        // Sent together at connect, in this order: the broker handles b/# while a/#'s messages still fill the socket.
        reader.subscribe("tb-retained/a/#", qos: 1)
        reader.subscribe("tb-retained/b/#", qos: 1)
        reader.start()
        defer { reader.stop() }
        let all = eventually(timeout: .seconds(30)) { arrived.all.count >= large + small }
        let topics = Set(arrived.all.map(\.topic))
        let expected = Set((0..<large).map { "tb-retained/a/\($0)" } + (0..<small).map { "tb-retained/b/\($0)" })
        let smallOnes = topics.filter { $0.hasPrefix("tb-retained/b/") }.count
        #expect(all, "\(topics.count - smallOnes) of \(large) a/ and \(smallOnes) of \(small) b/ messages arrived")
        #expect(
            topics == expected, "\(expected.subtracting(topics).count) missing, \(topics.subtracting(expected)) extra")
        #expect(arrived.all.allSatisfy { $0.isRetained })
        #expect(!topics.contains(reader.configuration.wakeTopic))  // the client's own wake-up is never handed on
    }
}
