import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeTesting

/// Google's CameraStream over WebRTC on real parts, both ways. Out: bridge B (Frigate camera on
/// aiortc in a network sandbox) answers GetCameraStream on `/smarthome` with a signalling URL and a
/// stream token; an aiortc viewer's offer posted there gets the camera's answer and real frames.
/// In: bridge A, linked to B as Google links to a partner, imports the camera and runs `camera live`
/// on it — A asks B for the stream over the link and signals at the URL B gave.
@Suite(
    "Google CameraStream both ways", .serialized,
    .enabled(if: CameraPeers.unavailableReason == nil, "\(CameraPeers.unavailableReason ?? "")"))
struct CameraStreamTests {
    let http = FulfillmentTests()
    static let getStream = #"""
        {"commands":[{"devices":[{"id":"frigate-front_door"}],"execution":[{"command":
        "action.devices.commands.GetCameraStream","params":{"StreamToChromecast":false,
        "SupportedStreamProtocols":["hls","webrtc"]}}]}]}
        """#

    @Test("out: GetCameraStream, the offer at its signalling URL, frames; in: a partner's camera over a link")
    func cameraStream() async throws {
        let sandbox = try NetworkSandbox(repository: CommandRunner.repository)
        defer { sandbox.remove() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let camera = try CameraPeers.camera(in: sandbox, log: folder.appendingPathComponent("camera.log").path)
        defer { camera.stop() }
        let frigate = #""frigate": {"go2rtc": "http://\#(sandbox.peerAddress):1984"},"#
        try await http.withHome(extra: frigate) { b in
            let mqtt = try TestMQTTClient(b.broker, subscribe: ["traitbridge/devices/frigate-front_door/state"])
            #expect(
                eventually {
                    (try? mqtt.publish("frigate/stats", #"{"cameras":{"front_door":{"camera_fps":5.0}}}"#)) != nil
                        && mqtt.topics(prefix: "traitbridge/devices/frigate-front_door").count > 0
                })
            try mqtt.publish("frigate/front_door/recordings/state", "ON", retain: true)
            #expect(
                mqtt.waitFor("traitbridge/devices/frigate-front_door/state") {
                    $0.payloadText.contains(#""transportStatus":0"#)
                } != nil, "the camera records")
            try await exported(b, sandbox: sandbox, folder: folder)
            try await imported(b, sandbox: sandbox, folder: folder)

            try mqtt.publish("frigate/front_door/recordings/state", "OFF", retain: true)
            #expect(
                mqtt.waitFor("traitbridge/devices/frigate-front_door/state") {
                    $0.payloadText.contains(#""transportStatus":1"#)
                } != nil)
            let off = try await http.send(
                b, .POST, "/smarthome", body: http.intent("EXECUTE", Self.getStream, id: "off"),
                token: FulfillmentTests.staticToken)
            #expect(off.body.contains(#""errorCode":"streamUnavailable""#), "recording off: \(off.body)")
        }
    }

    /// Google's side: SYNC shows a CAMERA with CameraStream; GetCameraStream gives a URL and a token;
    /// the viewer's offer posted there is answered by the camera; `end` ends it; the token is spent.
    func exported(_ b: FulfillmentTests.Home, sandbox: NetworkSandbox, folder: URL) async throws {
        let sync = try await http.send(
            b, .POST, "/smarthome", body: http.intent("SYNC"), token: FulfillmentTests.staticToken)
        #expect(sync.body.contains(#""type":"action.devices.types.CAMERA""#), "\(sync.body)")
        #expect(sync.body.contains(#""cameraStreamSupportedProtocols":["webrtc"]"#), "\(sync.body)")
        let execute = try await http.send(
            b, .POST, "/smarthome", body: http.intent("EXECUTE", Self.getStream), token: FulfillmentTests.staticToken)
        try http.validate("execute", execute.body, in: b.folder)
        let commands = execute.json["payload"].flatMap { ($0 as? [String: Any])?["commands"] as? [[String: Any]] }
        let states = try #require(commands?.first?["states"] as? [String: Any], "\(execute.body)")
        #expect(states["cameraStreamProtocol"] as? String == "webrtc")
        #expect(states["cameraStreamIceServers"] as? String == "[]", "no ICE servers unless configured")
        let url = try #require(states["cameraStreamSignalingUrl"] as? String)
        let token = try #require(states["cameraStreamAuthToken"] as? String)
        #expect(url == b.base + "/camera-stream")

        // Refusals first (the viewer waits for its answer a bounded time).
        let someOffer = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
        let wrong = try await signal(b, ["action": "offer", "sdp": someOffer], token: "not-a-grant")
        #expect(wrong.status == 401 && wrong.body.contains("unknown or expired"), "\(wrong.body)")
        let notSDP = try await signal(b, ["action": "offer", "sdp": "<html/>"], token: token)
        #expect(notSDP.status == 400 && notSDP.body.contains("is not SDP"), "\(notSDP.body)")
        let stopFile = folder.appendingPathComponent("stop-out").path
        let viewer = try CameraPeers.viewer(in: sandbox, folder: folder, seconds: 20, stopFile: stopFile)
        defer { viewer.process.stop() }
        let offer = try String(contentsOfFile: viewer.offer, encoding: .utf8)
        let answered = try await signal(
            b, ["action": "offer", "deviceId": "frigate-front_door", "sdp": offer], token: token)
        #expect(answered.status == 200, "\(answered.body)")
        #expect(answered.json["action"] as? String == "answer")
        let sdp = try #require(answered.json["sdp"] as? String, "\(answered.body)")
        try Data(sdp.utf8).write(to: URL(fileURLWithPath: viewer.answer))
        #expect(eventually(timeout: .seconds(15)) { (try? CameraPeers.sessions(in: sandbox)) == 1 }, "a session")
        try await Task.sleep(for: .seconds(2))
        let ended = try await signal(b, ["action": "end", "deviceId": "frigate-front_door"], token: token)
        #expect(ended.status == 200, "\(ended.body)")
        #expect(eventually(timeout: .seconds(10)) { (try? CameraPeers.sessions(in: sandbox)) == 0 }, "end ended it")
        _ = FileManager.default.createFile(atPath: stopFile, contents: Data())
        #expect(viewer.process.reap(within: .seconds(15)))
        #expect((CameraPeers.frames(viewer.log) ?? 0) >= 10, "\(LogFile.read(viewer.log))")
        let again = try await signal(b, ["action": "offer", "sdp": offer], token: token)
        #expect(again.status == 401, "the token ended with its sessions: \(again.body)")
    }

    /// A's side: the partner's camera imported; `camera live` on A is signalled through B's URL.
    func imported(_ b: FulfillmentTests.Home, sandbox: NetworkSandbox, folder: URL) async throws {
        let (brokerA, serveA, _) = try http.startA(linkedTo: b)
        defer {
            serveA.stop()
            brokerA.stop()
        }
        let watcher = try TestMQTTClient(brokerA, subscribe: ["traitbridge/devices/c2c-frigate-front_door"])
        let description = watcher.waitFor("traitbridge/devices/c2c-frigate-front_door")
        #expect(description?.payloadText.contains("google.CameraStream") == true, "\(description?.payloadText ?? "")")
        let stopFile = folder.appendingPathComponent("stop-in").path
        let viewer = try CameraPeers.viewer(in: sandbox, folder: folder, seconds: 20, stopFile: stopFile)
        defer { viewer.process.stop() }
        let live = try CommandRunner.run([
            "camera", "live", "c2c-frigate-front_door", "--offer", viewer.offer, "--answer", viewer.answer, "--json",
            "--broker", brokerA.url,
        ])
        #expect(live.exitCode == 0, "\(live.standardOutput) \(live.standardError)")
        let id = try #require(LiveViewTests.json(live.standardOutput)?["mediaSessionId"] as? String)
        #expect(eventually(timeout: .seconds(15)) { (try? CameraPeers.sessions(in: sandbox)) == 1 }, "B's camera")
        try await Task.sleep(for: .seconds(2))
        let stop = try CommandRunner.run(["camera", "stop", "c2c-frigate-front_door", id, "--broker", brokerA.url])
        #expect(stop.exitCode == 0, "\(stop)")
        #expect(eventually(timeout: .seconds(10)) { (try? CameraPeers.sessions(in: sandbox)) == 0 }, "A ended it at B")
        _ = FileManager.default.createFile(atPath: stopFile, contents: Data())
        #expect(viewer.process.reap(within: .seconds(15)))
        #expect((CameraPeers.frames(viewer.log) ?? 0) >= 10, "\(LogFile.read(viewer.log))")
    }

    func signal(_ b: FulfillmentTests.Home, _ body: [String: String], token: String) async throws
        -> FulfillmentTests.Answer
    {
        let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        return try await http.send(b, .POST, "/camera-stream", body: text, token: token)
    }
}
