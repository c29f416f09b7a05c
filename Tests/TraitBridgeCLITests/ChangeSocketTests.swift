import Foundation
import HTTPTypes
import Logging
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting
import WSClient

/// `GET /api/v1/changes/socket` through a real `serve` and a real WebSocket client: the upgrade
/// needs a token, a plain GET is 426, the frames are the SSE stream's messages, and a reconnect with
/// `lastEventId` gets every missed change exactly once.
extension FulfillmentTests {
    /// A WebSocket client collecting the stream's frames in a task of its own until `close()`.
    final class SocketClient: Sendable {
        let frames = Recorder<SSEvent>()
        /// How the connection ended, when it did with an error (a refused upgrade, a cancel).
        let errors = Recorder<String>()
        private let task: Task<Void, Never>

        init(_ home: Home, _ query: String, token: String? = FulfillmentTests.staticToken) {
            let frames = frames
            let errors = errors
            let url = home.base.replacingOccurrences(of: "http://", with: "ws://") + "/api/v1/changes/socket" + query
            task = Task {
                var headers = HTTPFields()
                if let token { headers[.authorization] = "Bearer \(token)" }
                let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
                do {
                    _ = try await WebSocketClient.connect(
                        url: url, configuration: configuration, logger: Logger(label: "test")
                    ) { inbound, _, _ in
                        for try await message in inbound.messages(maxSize: 1 << 20) {
                            guard case .text(let text) = message,
                                let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                            else { continue }
                            let data = try JSONSerialization.data(withJSONObject: object["data"] ?? [:])
                            frames.append(
                                SSEvent(
                                    id: object["id"] as? Int ?? -1, event: object["event"] as? String ?? "",
                                    data: String(decoding: data, as: UTF8.self)))
                        }
                    }
                } catch {
                    errors.append("\(error)")
                }
            }
        }

        func close() { task.cancel() }

        /// Waits (≤ 10 s) until `count` frames have come.
        func wait(for count: Int) -> [SSEvent] {
            _ = eventually(timeout: .seconds(10)) { self.frames.all.count >= count }
            return frames.all
        }
    }

    @Test("changes over a WebSocket: token needed, plain GET 426, list then changes, a resume gets each missed once")
    func changeSocket() async throws {
        try await withHome { home in try await changeSocket(home) }
    }

    func changeSocket(_ home: Home) async throws {
        let plain = try await send(home, .GET, "/api/v1/changes/socket", token: Self.staticToken)
        #expect(plain.status == 426 && plain.headers["content-type"] == "application/problem+json")
        let anonymous = SocketClient(home, "", token: nil)
        #expect(eventually(timeout: .seconds(10)) { !anonymous.errors.all.isEmpty }, "the upgrade is refused")
        #expect(anonymous.frames.all.isEmpty)
        let badShape = SocketClient(home, "?shape=firehose")
        #expect(eventually(timeout: .seconds(10)) { !badShape.errors.all.isEmpty }, "a bad query is refused")

        let z2m = try TestMQTTClient(home.broker)
        let socket = SocketClient(home, "?shape=stream")
        let list = try #require(socket.wait(for: 1).first)
        #expect(list.event == "list" && (list.json["devices"] as? [Any])?.count == 3, "\(list.data.prefix(300))")
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":90}"#, retain: true)
        let change = try #require(socket.wait(for: 2).dropFirst().first)
        #expect(change.event == "change" && change.json["device"] as? String == "z2m-0x00158d0001000001")
        #expect(change.json["kind"] as? String == "updated" && change.id > list.id)
        socket.close()

        // Missed while away: the Relay comes online, the light changes again; both once, in order.
        try z2m.publish("zigbee2mqtt/Relay/availability", "online", retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":90}"#, retain: true)
        let observer = try TestMQTTClient(home.broker, subscribe: ["traitbridge/devices/+/state"])
        let off = observer.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") {
            $0.payloadText.contains(#""onOff":false"#)
        }
        #expect(off != nil, "the light's second change is published before the client comes back")
        let resumed = SocketClient(home, "?shape=stream&lastEventId=\(change.id)")
        let replay = resumed.wait(for: 2)
        #expect(replay.allSatisfy { $0.event == "change" && $0.id > change.id }, "\(replay.map(\.event))")
        #expect(replay.map(\.id) == Array(Set(replay.map(\.id))).sorted(), "each once, in order")
        let devices = Set(replay.compactMap { $0.json["device"] as? String })
        #expect(devices == ["z2m-0x00158d0001000003", "z2m-0x00158d0001000001"], "\(devices)")
        resumed.close()
        let check = SchemaCheck()
        for frame in [list, change] + replay {
            check.add(frame.event == "list" ? "DeviceList" : "Change", body: frame.data, "frame \(frame.id)")
        }
        try check.run(in: home.folder)
    }
}
