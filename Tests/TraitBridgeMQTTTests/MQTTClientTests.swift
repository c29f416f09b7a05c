import Foundation
import Testing
@testable import TraitBridgeMQTT
import TraitBridgeTesting

@Suite("MQTT client against a real mosquitto", .serialized)
struct MQTTClientTests {
    func makeClient(
        _ broker: MosquittoBroker,
        clientID: String? = nil,
        version: MQTTClientConfiguration.ProtocolVersion = .v311,
        messages: Recorder<MQTTMessage>,
        events: Recorder<String> = Recorder()
    ) throws -> MQTTClient {
        let configuration = MQTTClientConfiguration(
            broker: try BrokerURL(broker.url), clientID: clientID, protocolVersion: version,
            backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400)))
        return try MQTTClient(configuration: configuration, onMessage: { messages.append($0) }, onEvent: { events.append("\($0)") })
    }

    @Test("publish and subscribe round trip, retained flag and payload bytes intact")
    func roundTrip() throws {
        let broker = try MosquittoBroker()
        let messages = Recorder<MQTTMessage>()
        let client = try makeClient(broker, messages: messages)
        client.subscribe("tb-test/#")
        client.start()
        defer { client.stop() }
        #expect(eventually { client.isConnected })
        let payload: [UInt8] = [0x7B, 0x00, 0xFF, 0x7D]
        try client.publish("tb-test/a", payload: payload, qos: 1, retain: true)
        #expect(eventually { messages.all.contains { $0.topic == "tb-test/a" } })
        #expect(messages.all.first?.payload == payload)
        #expect(throws: MQTTError.invalidTopic("bad/#")) { try client.publish("bad/#", text: "x") }
    }

    @Test("payloads either side of the 1 MB line (taken from libmosquitto, not copied) arrive whole, at each QoS")
    func largePayloads() throws {
        let broker = try MosquittoBroker()
        let messages = Recorder<MQTTMessage>()
        let client = try makeClient(broker, messages: messages)
        client.subscribe("tb-test/large/#", qos: 2)
        client.start()
        defer { client.stop() }
        #expect(eventually { client.isConnected })
        let sizes = [(1 << 20) - 1, 1 << 20, 3_000_001, 10, 2_500_000]
        for (index, size) in sizes.enumerated() {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            try client.publish("tb-test/large/\(index)", payload: payload, qos: index % 3, retain: index == 2)
        }
        #expect(eventually(timeout: .seconds(20)) { messages.all.count >= sizes.count })
        // By topic: MQTT keeps order within one QoS level only, and these use all three.
        let received = Dictionary(messages.all.map { ($0.topic, $0.payload) }) { first, _ in first }
        #expect(received.count == sizes.count)
        for (index, size) in sizes.enumerated() {
            let expected = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            let payload = received["tb-test/large/\(index)"] ?? []
            let intact = payload == expected  // compared here: a failed #expect would print every byte
            let difference =
                payload.indices.first { $0 >= expected.count || payload[$0] != expected[$0] }.map(String.init) ?? "none"
            #expect(intact, "message \(index): \(payload.count) bytes of \(size), first difference at \(difference)")
        }
        #expect(MQTTClient.takesLargePayloads, "Debian 12's libmosquitto is 2.0: large payloads are taken")
    }

    @Test("MQTT 5: Response Topic and Correlation Data go out and come in; a 3.1.1 client neither sends nor sees them")
    func requestProperties() throws {
        let broker = try MosquittoBroker()
        let v5Messages = Recorder<MQTTMessage>()
        let v311Messages = Recorder<MQTTMessage>()
        let v5 = try makeClient(broker, version: .v5, messages: v5Messages)
        let v311 = try makeClient(broker, messages: v311Messages)
        for client in [v5, v311] {
            client.subscribe("tb-test/request/#", qos: 1)
            client.start()
        }
        defer { v5.stop(); v311.stop() }
        #expect(eventually { v5.isConnected && v311.isConnected })
        Thread.sleep(forTimeInterval: 0.1)
        let correlation: [UInt8] = [0x00, 0xFF, 0x41]
        try v5.publish("tb-test/request/a", payload: Array("x".utf8), qos: 1, responseTopic: "tb-test/answers", correlationData: correlation)
        try v311.publish("tb-test/request/b", payload: Array("y".utf8), qos: 1, responseTopic: "tb-test/ignored", correlationData: correlation)
        #expect(eventually { v5Messages.all.count == 2 && v311Messages.all.count == 2 })
        let fromV5 = try #require(v5Messages.all.first { $0.topic == "tb-test/request/a" })
        #expect(fromV5.responseTopic == "tb-test/answers")
        #expect(fromV5.correlationData == correlation, "binary correlation data intact")
        #expect(v5Messages.all.first { $0.topic == "tb-test/request/b" }?.responseTopic == nil, "3.1.1 cannot send properties")
        #expect(v311Messages.all.allSatisfy { $0.responseTopic == nil && $0.correlationData == nil }, "a 3.1.1 subscriber never sees them")
    }

    @Test("a broker that dies and comes back on the same port: reconnect and resubscribe")
    func reconnect() throws {
        let broker = try MosquittoBroker()
        let messages = Recorder<MQTTMessage>()
        let events = Recorder<String>()
        let client = try makeClient(broker, messages: messages, events: events)
        client.subscribe("tb-test/+/state")
        client.start()
        defer { client.stop() }
        #expect(eventually { client.isConnected })
        broker.kill9()
        #expect(eventually { !client.isConnected })
        #expect(throws: MQTTError.notConnected) { try client.publish("tb-test/x/state", text: "lost") }
        try broker.restart()
        #expect(eventually { client.isConnected })
        try client.publish("tb-test/x/state", text: "back")
        #expect(eventually { messages.all.contains { $0.payloadText == "back" } }, "subscriptions survive the reconnect")
        #expect(events.all.contains { $0.hasPrefix("connection lost") })
        #expect(events.all.filter { $0.hasPrefix("connected to mqtt://127.0.0.1:") }.count >= 2)
    }

    @Test("no broker yet: attempts are reported with their retry delay, and it connects once the broker appears")
    func connectLater() throws {
        let broker = try MosquittoBroker()
        broker.stop()
        let events = Recorder<String>()
        let client = try makeClient(broker, messages: Recorder(), events: events)
        client.start()
        defer { client.stop() }
        #expect(eventually { events.all.count >= 2 })
        #expect(events.all.first?.hasPrefix("cannot connect: ") == true, "\(events.all)")
        #expect(events.all.first?.contains("retrying in") == true)
        #expect(events.all.first?.hasSuffix(" ms") == true || events.all.first?.hasSuffix(" s") == true, "a readable delay")
        try broker.restart()
        #expect(eventually { client.isConnected })
    }

    @Test("two clients with one id (MQTT 5): the one taken over reports it")
    func kickOff() throws {
        let broker = try MosquittoBroker()
        let events = Recorder<String>()
        let first = try makeClient(broker, clientID: "tb-duplicate", version: .v5, messages: Recorder(), events: events)
        first.start()
        defer { first.stop() }
        #expect(eventually { first.isConnected })
        let second = try makeClient(broker, clientID: "tb-duplicate", version: .v5, messages: Recorder())
        second.start()
        defer { second.stop() }
        #expect(eventually { events.all.contains { $0.hasPrefix("another client seems to use client id 'tb-duplicate'") } }, "\(events.all)")
    }

    @Test("stop disconnects cleanly and is idempotent")
    func stop() throws {
        let broker = try MosquittoBroker()
        let events = Recorder<String>()
        let client = try makeClient(broker, messages: Recorder(), events: events)
        client.start()
        #expect(eventually { client.isConnected })
        client.stop()
        client.stop()
        #expect(!client.isConnected)
        #expect(events.all.last == "disconnected")
    }
}

@Suite("Broker URLs, backoff and kick-off detection")
struct MQTTValueTests {
    @Test("broker URLs parse, default their port, and never print the password")
    func urls() throws {
        let plain = try BrokerURL("mqtt://127.0.0.1")
        #expect(plain.port == 1883 && !plain.isTLS && plain.isLocalNetwork)
        let secure = try BrokerURL("mqtts://bridge:s%40cret@broker.example:8884")
        #expect(secure.isTLS && secure.port == 8884 && secure.username == "bridge" && secure.password == "s@cret")
        #expect(secure.description == "mqtts://bridge:***@broker.example:8884")
        #expect(!secure.isLocalNetwork)
        #expect(try BrokerURL("mqtt://[::1]:1884").host == "::1")
        #expect(try BrokerURL("mqtt://192.168.1.5").isLocalNetwork)
        for bad in ["127.0.0.1:1883", "http://x", "mqtt://", "mqtt://host:0", "mqtt://host:99999", "mqtt://host:abc"] {
            #expect(throws: MQTTError.self, "\(bad)") { try BrokerURL(bad) }
        }
    }

    @Test("backoff doubles with jitter up to the cap, and resets")
    func backoff() {
        var backoff = ReconnectBackoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(2))
        var ceilings: [Duration] = []
        for _ in 0..<8 {
            let ceiling = backoff.currentCeiling
            let delay = backoff.nextDelay()
            #expect(delay <= ceiling && delay >= ceiling / 2, "\(delay) vs \(ceiling)")
            ceilings.append(ceiling)
        }
        #expect(ceilings == [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600), .seconds(2), .seconds(2), .seconds(2)])
        backoff.reset()
        #expect(backoff.currentCeiling == .milliseconds(100))
    }

    @Test("three short connections in a row suggest a kick-off loop; a long one clears the count")
    func kickOffDetector() {
        var detector = KickOffDetector()
        var results: [Bool] = []
        for _ in 0..<3 { results.append(detector.connectionEnded(after: .seconds(1), sessionTakenOver: false)) }
        #expect(results == [false, false, true])
        let afterLong = detector.connectionEnded(after: .seconds(60), sessionTakenOver: false)
        #expect(!afterLong)
        #expect(detector.shortConnectionsInARow == 0)
        let takenOver = detector.connectionEnded(after: .seconds(60), sessionTakenOver: true)
        #expect(takenOver)
    }
}

@Suite("MQTT client: TLS and authentication against a real mosquitto", .serialized)
struct MQTTSecurityTests {
    func configuration(_ url: String, tls: MQTTClientConfiguration.TLS? = nil) throws -> MQTTClientConfiguration {
        MQTTClientConfiguration(broker: try BrokerURL(url), tls: tls,
                                backoff: ReconnectBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(300)))
    }

    @Test("mqtts:// with the broker's CA: connects and round-trips a message")
    func tls() throws {
        let broker = try MosquittoBroker(.init(isTLS: true))
        let messages = Recorder<MQTTMessage>()
        let client = try MQTTClient(configuration: try configuration(broker.url, tls: .init(caFile: broker.caFile)), onMessage: { messages.append($0) })
        client.subscribe("tb-tls/#")
        client.start()
        defer { client.stop() }
        #expect(eventually { client.isConnected })
        try client.publish("tb-tls/a", text: "over TLS")
        #expect(eventually { messages.all.contains { $0.payloadText == "over TLS" } })
    }

    @Test("mqtts:// with a CA that did not sign the broker: no connection, the TLS failure is reported with a retry delay")
    func tlsWrongCA() throws {
        let broker = try MosquittoBroker(.init(isTLS: true))
        let other = try MosquittoBroker(.init(isTLS: true))  // its CA is a different one
        let events = Recorder<String>()
        let client = try MQTTClient(configuration: try configuration(broker.url, tls: .init(caFile: other.caFile)), onMessage: { _ in }, onEvent: { events.append("\($0)") })
        client.start()
        defer { client.stop() }
        // The handshake may fail inside the loop after mosquitto_connect returned (non-blocking
        // socket); that path used to retry silently. It is reported now; the bound stays generous.
        #expect(eventually(timeout: .seconds(30)) { !events.all.isEmpty })
        #expect(events.all.first?.hasPrefix("cannot connect: A TLS error occurred.; retrying in ") == true, "\(events.all)")
        #expect(!client.isConnected)
    }

    @Test("a missing CA file is a configuration error that names it")
    func tlsMissingFile() throws {
        #expect(throws: MQTTError.self) {
            _ = try MQTTClient(configuration: try configuration("mqtts://127.0.0.1:8883", tls: .init(caFile: "/nonexistent/ca.crt")), onMessage: { _ in })
        }
    }

    @Test("user and password from the URL: accepted when right, refused with the broker's reason when wrong")
    func authentication() throws {
        let broker = try MosquittoBroker(.init(users: ["bridge": "s3cret"]))
        let good = try MQTTClient(configuration: try configuration("mqtt://bridge:s3cret@127.0.0.1:\(broker.port)"), onMessage: { _ in })
        good.start()
        defer { good.stop() }
        #expect(eventually { good.isConnected })
        let events = Recorder<String>()
        let bad = try MQTTClient(configuration: try configuration("mqtt://bridge:wrong@127.0.0.1:\(broker.port)"), onMessage: { _ in }, onEvent: { events.append("\($0)") })
        bad.start()
        defer { bad.stop() }
        #expect(eventually { events.all.contains { $0.hasPrefix("broker refused the connection: ") } }, "\(events.all)")
        #expect(!bad.isConnected)
    }
}
