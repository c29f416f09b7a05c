import AsyncHTTPClient
import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The change streams under load through a real `serve`: 1 000 zigbee2mqtt devices change while 50
/// clients listen (25 over Server-Sent Events, 25 over WebSocket); each client gets each change
/// exactly once, and one that drops half-way and resumes from its last event id misses none.
/// (Figures — latency, RSS, CPU — are measured by scripts/bench-ui.py, never asserted here.)
extension FulfillmentTests {
    @Test("changes under load: 1 000 devices change while 50 clients listen; each gets each change once")
    func changeLoad() async throws {
        try await withHome { home in try await changeLoad(home) }
    }

    func changeLoad(_ home: Home) async throws {
        let count = 1_000
        let z2m = try await addLoadLights(count, to: home)
        let filter = "?shape=stream&source=zigbee2mqtt"
        var pool = HTTPClient.Configuration()
        pool.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
        let http = HTTPClient(configuration: pool)
        let streams = (0..<25).map { _ in SSEClient(home, filter, client: http) }
        let sockets = (0..<25).map { _ in SocketClient(home, filter) }
        let listed = { (streams.map { $0.events.all.count } + sockets.map { $0.frames.all.count }).min() ?? 0 }
        #expect(eventually(timeout: .seconds(60)) { listed() >= 1 }, "every client has its list")
        for index in 0..<count {
            try z2m.publish("zigbee2mqtt/Load light \(index)/availability", "offline", retain: true)
            // The first SSE client drops half-way; it resumes below.
            if index == count / 2 { streams[0].close() }
        }
        // Every client sees each light's change to offline, and no event twice (it may also see
        // the last of the lights' first states, depending on when it subscribed).
        func offline(_ events: [SSEvent]) -> Set<String> {
            Set(
                events.filter { ($0.json["state"] as? [String: Any])?["connectivityState"] as? String == "offline" }
                    .compactMap { $0.json["device"] as? String }.filter { $0.hasPrefix("z2m-0x00158d00020") })
        }
        let clients = streams.dropFirst().map(\.events) + sockets.map(\.frames)
        #expect(
            eventually(timeout: .seconds(120)) { clients.allSatisfy { offline($0.all).count == count } },
            "each of 49 clients got the 1 000 changes: \(clients.map { offline($0.all).count }.sorted().prefix(5))")
        for client in clients {
            let ids = client.all.map(\.id)
            #expect(ids == Array(Set(ids)).sorted(), "each event once, in order")
        }
        let before = streams[0].events.all
        let lastSeen = try #require(before.last?.id)
        let resumed = SSEClient(home, filter, lastEventID: lastSeen, client: http)
        // What a client that never left got after that id, the resumed one gets: the same changes, once.
        func key(_ event: SSEvent) -> String { "\(event.id) \(event.json["device"] as? String ?? "?")" }
        let reference = sockets[0].frames.all.filter { $0.id > lastSeen }.map(key)
        #expect(
            eventually(timeout: .seconds(60)) { resumed.events.all.count >= reference.count },
            "the rest comes on resume: \(resumed.events.all.count) of \(reference.count)")
        let replayed = resumed.events.all
        #expect(replayed.allSatisfy { $0.event == "change" }, "no list on a resume")
        let same = replayed.map(key) == reference
        #expect(same, "the same changes as a client that stayed: \(replayed.count) vs \(reference.count)")
        #expect(offline(before).union(offline(replayed)).count == count, "every change, before the drop or after")
        for client in streams { client.close() }
        for client in sockets { client.close() }
        resumed.close()
        try await http.shutdown()
    }

    /// Adds `count` zigbee2mqtt lights ("Load light N", online) to `home` and waits until `serve`
    /// has published them all; the client returned publishes as their zigbee2mqtt.
    func addLoadLights(_ count: Int, to home: Home) async throws -> TestMQTTClient {
        let template = try #require(
            try JSONSerialization.jsonObject(
                with: Data(
                    WatchCommandTests.read(CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json").utf8))
                as? [[String: Any]])
        let light = try #require(template.first { $0["friendly_name"] as? String == "Hall light" })
        var devices = template
        for index in 0..<count {
            var device = light
            device["friendly_name"] = "Load light \(index)"
            device["ieee_address"] = String(format: "0x00158d00020%05x", index)
            devices.append(device)
        }
        let z2m = try TestMQTTClient(home.broker)
        for index in 0..<count {
            try z2m.publish("zigbee2mqtt/Load light \(index)/availability", "online", retain: true)
        }
        let list = try JSONSerialization.data(withJSONObject: devices)
        try z2m.publish("zigbee2mqtt/bridge/devices", String(decoding: list, as: UTF8.self), retain: true)
        let observer = try TestMQTTClient(home.broker, subscribe: ["traitbridge/devices/+/state"])
        #expect(
            eventually(timeout: .seconds(120)) { Set(observer.messages.all.map(\.topic)).count >= count + 3 },
            "serve publishes the \(count + 3) devices")
        return z2m
    }
}
