import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `GET /api/v1/changes` through a real `serve` and a real streaming client: the list first, each
/// change by id, a reconnect with Last-Event-ID that gets every missed change exactly once, the
/// batched and list shapes, filters, and a token required.
extension FulfillmentTests {
    /// One Server-Sent Event as the client read it.
    struct SSEvent: Sendable {
        var id: Int
        var event: String
        var data: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:] }
    }

    /// A client reading the stream in a task of its own until `close()`.
    final class SSEClient: Sendable {
        let events = Recorder<SSEvent>()
        let status = Recorder<Int>()
        private let task: Task<Void, Never>

        /// `client`: one with room for many streams at once (the home's keeps 8 connections).
        init(
            _ home: Home, _ query: String, lastEventID: Int? = nil, token: String = FulfillmentTests.staticToken,
            client: HTTPClient? = nil
        ) {
            let events = events
            let status = status
            let client = client ?? home.client
            let url = home.base + "/api/v1/changes" + query
            task = Task {
                var request = HTTPClientRequest(url: url)
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                if let lastEventID { request.headers.add(name: "Last-Event-ID", value: String(lastEventID)) }
                guard let response = try? await client.execute(request, timeout: .seconds(60)) else { return }
                status.append(Int(response.status.code))
                var text = ""
                do {
                    for try await buffer in response.body {
                        text += String(buffer: buffer)
                        while let end = text.range(of: "\n\n") {
                            var event = SSEvent(id: 0, event: "message", data: "")
                            for line in text[..<end.lowerBound].split(separator: "\n") {
                                if line.hasPrefix("id: ") { event.id = Int(line.dropFirst(4)) ?? 0 }
                                if line.hasPrefix("event: ") { event.event = String(line.dropFirst(7)) }
                                if line.hasPrefix("data: ") { event.data = String(line.dropFirst(6)) }
                            }
                            events.append(event)
                            text.removeSubrange(..<end.upperBound)
                        }
                    }
                } catch {
                    return  // cancelled: the client closed the stream
                }
            }
        }

        func close() { task.cancel() }

        /// Waits (≤ 10 s) until `count` events have come.
        func wait(for count: Int) -> [SSEvent] {
            _ = eventually(timeout: .seconds(10)) { self.events.all.count >= count }
            return events.all
        }
    }

    @Test("changes: the list, each change by id, a resume that gets every missed change once; batched and list shapes")
    func changeStreams() async throws {
        try await withHome { home in try await changeStreams(home) }
    }

    func changeStreams(_ home: Home) async throws {
        let z2m = try TestMQTTClient(home.broker)
        let anonymous = try await send(home, .GET, "/api/v1/changes")
        #expect(anonymous.status == 401)
        let badShape = try await send(home, .GET, "/api/v1/changes?shape=firehose", token: Self.staticToken)
        #expect(badShape.status == 400 && badShape.body.contains("firehose"))

        let stream = SSEClient(home, "?shape=stream")
        let first = stream.wait(for: 1)
        #expect(stream.status.all == [200])
        let list = try #require(first.first)
        #expect(list.event == "list" && (list.json["devices"] as? [Any])?.count == 3, "\(list.data.prefix(300))")
        let batched = SSEClient(home, "?shape=batched&window=700&trait=LevelControl")
        let lists = SSEClient(home, "?shape=list&connectivity=online")
        _ = batched.wait(for: 1)
        _ = lists.wait(for: 1)

        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":120}"#, retain: true)
        let updated = stream.wait(for: 2)
        let change = try #require(updated.dropFirst().first)
        #expect(change.event == "change" && change.id > list.id, "\(change)")
        #expect(
            change.json["kind"] as? String == "updated" && change.json["device"] as? String == "z2m-0x00158d0001000001")
        let lastSeen = change.id
        stream.close()

        // Missed while disconnected: the Relay comes back online, the light changes again.
        try z2m.publish("zigbee2mqtt/Relay/availability", "online", retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":120}"#, retain: true)
        _ = lists.wait(for: 3)
        let resumed = SSEClient(home, "?shape=stream", lastEventID: lastSeen)
        let replay = resumed.wait(for: 2)
        #expect(replay.allSatisfy { $0.event == "change" }, "no list on a resume: \(replay.map(\.event))")
        #expect(replay.map(\.id) == Array(Set(replay.map(\.id))).sorted(), "each once, in order")
        let devices = replay.compactMap { $0.json["device"] as? String }
        #expect(devices.contains("z2m-0x00158d0001000003") && devices.contains("z2m-0x00158d0001000001"), "\(devices)")
        #expect(replay.allSatisfy { $0.id > lastSeen })
        resumed.close()

        // Batched: the window's changes of the light in one message; the Relay is filtered out.
        let windows = batched.wait(for: 2)
        #expect(windows.dropFirst().allSatisfy { $0.event == "changes" }, "\(windows.map(\.event))")
        let entries = windows.dropFirst().flatMap { ($0.json["changes"] as? [[String: Any]]) ?? [] }
        #expect(entries.allSatisfy { $0["device"] as? String == "z2m-0x00158d0001000001" }, "\(entries)")
        #expect(windows.count <= 3, "at most one message per window: \(windows.count)")
        batched.close()

        // List: the whole filtered list after a change; the Relay is in it once online.
        let relists = lists.events.all
        let newest = try #require(relists.last)
        #expect(newest.event == "list")
        let names = ((newest.json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(
            names.contains("z2m-0x00158d0001000003"),
            "\(names) \(relists.map { "\($0.id) \($0.event) \($0.data.prefix(200))" })")
        lists.close()

        // Every event's data is what the document says it is.
        let check = SchemaCheck()
        let schemas = ["list": "DeviceList", "change": "Change", "changes": "ChangeBatch"]
        for event in first + updated + replay + windows + relists {
            check.add(try #require(schemas[event.event], "\(event.event)"), body: event.data, "event \(event.id)")
        }
        try check.run(in: home.folder)
    }
}
