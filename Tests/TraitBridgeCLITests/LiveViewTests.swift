import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeTesting

/// A camera's live view on real parts: a go2rtc-compatible WebRTC endpoint on aiortc (the simulated
/// camera, `scripts/camera-peer.py`) and an aiortc viewer (`scripts/camera-viewer.py`), both inside a
/// network namespace the test makes, with no ICE servers; mosquitto and `traitbridge serve` on
/// loopback, reaching the camera over the sandbox's veth pair; the CLI relays the viewer's offer.
@Suite(
    "Live view end to end", .serialized,
    .enabled(if: CameraPeers.unavailableReason == nil, "\(CameraPeers.unavailableReason ?? "")"))
struct LiveViewTests {
    /// The sandbox, the camera listening in it, a broker, serve with the camera known and recording.
    final class Home {
        let sandbox: NetworkSandbox
        let camera: ChildProcess
        let broker: MosquittoBroker
        let serve: BridgeProcess
        let frigate: TestMQTTClient
        let folder: URL

        /// `httpPort`: serve's web UI on the sandbox's host address (a browser in the sandbox reaches it
        /// over the pair), its owner `alice` with the password `correct horse`.
        init(httpPort: Int? = nil) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-live-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            sandbox = try NetworkSandbox(repository: CommandRunner.repository)
            camera = try CameraPeers.camera(in: sandbox, log: folder.appendingPathComponent("camera.log").path)
            broker = try MosquittoBroker()
            let config = folder.appendingPathComponent("config.json").path
            var http = ""
            if let httpPort {
                let path = folder.path
                try "tb-camera-test-token-0123456789abcdef owner admin\n".write(
                    toFile: path + "/tokens", atomically: true, encoding: .utf8)
                try "secret\n".write(toFile: path + "/client-secret", atomically: true, encoding: .utf8)
                try "correct horse\n".write(toFile: path + "/password", atomically: true, encoding: .utf8)
                http = #", "http": {"listen": "\#(sandbox.hostAddress):\#(httpPort)", "#
                    + #""bearerTokensFile": "\#(path)/tokens", "oauth": {"clientId": "google", "#
                    + #""clientSecretFile": "\#(path)/client-secret", "redirectUris": ["http://127.0.0.1:9/r"], "#
                    + #""user": "alice", "passwordFile": "\#(path)/password"}}"#
            }
            try Data(#"{"frigate": {"go2rtc": "http://\#(sandbox.peerAddress):1984"}\#(http)}"#.utf8)
                .write(to: URL(fileURLWithPath: config))
            serve = try BridgeProcess(
                [
                    "serve", "--broker", broker.url, "--config", config, "--data-dir",
                    folder.appendingPathComponent("data").path, "--mappings", CommandRunner.repository + "/mappings",
                    "--log-level", "info",
                ], log: folder.appendingPathComponent("serve.log").path)
            frigate = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/frigate-front_door/state"])
            #expect(
                eventually {
                    (try? self.frigate.publish(
                        "frigate/stats", #"{"cameras":{"front_door":{"camera_fps":5.0}}}"#)) != nil
                        && self.frigate.topics(prefix: "traitbridge/devices/frigate-front_door").count > 0
                })
            try frigate.publish("frigate/front_door/recordings/state", "ON", retain: true)
            #expect(
                frigate.waitFor("traitbridge/devices/frigate-front_door/state") {
                    $0.payloadText.contains(#""transportStatus":0"#)
                } != nil, "the camera records")
        }

        func stop() {
            serve.stop()
            camera.stop()
            sandbox.remove()
            try? FileManager.default.removeItem(at: folder)
        }

        /// A viewer in the sandbox; its offer file once it wrote it.
        func viewer(seconds: Int, stopFile: String? = nil, talkback: Bool = false) throws
            -> (process: ChildProcess, offer: String, answer: String, log: String)
        {
            try CameraPeers.viewer(
                in: sandbox, folder: folder, seconds: seconds, stopFile: stopFile, talkback: talkback)
        }

        func cameraSessions() throws -> Int? { try CameraPeers.sessions(in: sandbox) }
    }

    static func json(_ text: String) -> [String: Any]? {
        let line = text.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    @Test("real frames through the CLI; extend, talkback, stop ends the media; what is refused says why")
    func liveView() throws {
        let home = try Home()
        defer { home.stop() }
        let stopFile = home.folder.appendingPathComponent("stop").path
        let viewer = try home.viewer(seconds: 20, stopFile: stopFile, talkback: true)
        defer { viewer.process.stop() }
        let live = try CommandRunner.run([
            "camera", "live", "Front door", "--offer", viewer.offer, "--answer", viewer.answer, "--json", "--broker",
            home.broker.url,
        ])
        #expect(live.exitCode == 0, "\(live.standardOutput) \(live.standardError)")
        let session = try #require(Self.json(live.standardOutput), "\(live.standardOutput)")
        let id = try #require(session["mediaSessionId"] as? String)
        #expect(session["liveSessionDurationSeconds"] as? Int == 300)
        #expect((session["answerSdp"] as? String)?.hasPrefix("v=0") == true)
        #expect(FileManager.default.fileExists(atPath: viewer.answer))
        // Frames flow between the viewer and the camera, inside the sandbox; the bridge saw signalling only.
        #expect(eventually(timeout: .seconds(15)) { (try? home.cameraSessions()) == 1 }, "the camera has the session")
        Thread.sleep(forTimeInterval: 2)

        let extend = try CommandRunner.run([
            "camera", "extend", "Front door", id, "--json", "--broker", home.broker.url,
        ])
        #expect(
            extend.exitCode == 0 && extend.standardOutput.contains(#""liveSessionDurationSeconds":300"#), "\(extend)")
        let talk = try CommandRunner.run(["camera", "talkback", "Front door", id, "on", "--broker", home.broker.url])
        #expect(talk.exitCode == 0 && talk.standardOutput.contains("talkback on"), "\(talk)")
        let shown = try CommandRunner.run(["show", "Front door", "--broker", home.broker.url])
        #expect(shown.standardOutput.contains("live views:\n    \(id)  until "), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("talkback on"), "\(shown.standardOutput)")
        let stop = try CommandRunner.run(["camera", "stop", "Front door", id, "--broker", home.broker.url])
        #expect(stop.exitCode == 0, "\(stop)")
        let none = try CommandRunner.run(["show", "Front door", "--broker", home.broker.url])
        #expect(none.standardOutput.contains("live views: none open"), "\(none.standardOutput)")
        #expect(eventually(timeout: .seconds(10)) { (try? home.cameraSessions()) == 0 }, "stop ended the camera's side")
        _ = FileManager.default.createFile(atPath: stopFile, contents: Data())
        #expect(viewer.process.reap(within: .seconds(15)))
        let watched = try #require(Self.json(LogFile.read(viewer.log)), "\(LogFile.read(viewer.log))")
        let frames = try #require(watched["frames"] as? Int)
        #expect(frames >= 10, "decoded frames: \(watched)")

        for ended in [id, "live-0-0"] {
            let again = try CommandRunner.run(["camera", "extend", "Front door", ended, "--broker", home.broker.url])
            #expect(again.exitCode == 1)
            #expect(again.standardError.contains("invalidValue: no live view session"), "\(again.standardError)")
        }
        let notSDP = home.folder.appendingPathComponent("not.sdp").path
        try Data("<html>hello</html>".utf8).write(to: URL(fileURLWithPath: notSDP))
        let hostile = try CommandRunner.run([
            "camera", "live", "Front door", "--offer", notSDP, "--broker", home.broker.url,
        ])
        #expect(hostile.exitCode == 1 && hostile.standardError.contains("offerSdp is not SDP"), "\(hostile)")

        try home.frigate.publish("frigate/front_door/recordings/state", "OFF", retain: true)
        #expect(
            home.frigate.waitFor("traitbridge/devices/frigate-front_door/state") {
                $0.payloadText.contains(#""transportStatus":1"#)
            } != nil)
        let second = try home.viewer(seconds: 1)
        defer { second.process.stop() }
        let refused = try CommandRunner.run([
            "camera", "live", "Front door", "--offer", second.offer, "--broker", home.broker.url,
        ])
        #expect(refused.exitCode == 1)
        #expect(refused.standardError.contains("failedPrecondition"), "\(refused.standardError)")
        let status = try CommandRunner.run(["status", "--broker", home.broker.url, "Front door"])
        #expect(status.standardOutput.contains("online"), "recording off, the camera stays online: \(status)")
    }

    @Test("without --offer: the viewer runs (here in the sandbox), its frames are reported, the session stopped")
    func builtInViewer() throws {
        let home = try Home()
        defer { home.stop() }
        let viewer = home.sandbox.command([
            CameraPeers.python, CommandRunner.repository + "/scripts/camera-viewer.py",
        ]).joined(separator: " ")
        let live = try CommandRunner.run([
            "camera", "live", "Front door", "--seconds", "3", "--viewer", viewer, "--json", "--broker",
            home.broker.url,
        ])
        #expect(live.exitCode == 0, "\(live.standardOutput) \(live.standardError)")
        let report = try #require(Self.json(live.standardOutput), "\(live.standardOutput)")
        #expect((report["frames"] as? Int ?? 0) >= 10, "\(report)")
        #expect((report["mediaSessionId"] as? String)?.hasPrefix("live-") == true, "\(report)")
        #expect(eventually(timeout: .seconds(10)) { (try? home.cameraSessions()) == 0 }, "the session was stopped")
        let words = try CommandRunner.run([
            "camera", "live", "Front door", "--seconds", "2", "--viewer", viewer, "--broker", home.broker.url,
        ])
        #expect(words.exitCode == 0 && words.standardOutput.contains("frames decoded in 2 s"), "\(words)")
        let both = try CommandRunner.run([
            "camera", "live", "Front door", "--offer", "x.sdp", "--viewer", viewer, "--broker", home.broker.url,
        ])
        #expect(both.exitCode == 2 && both.standardError.contains("give one or the other"), "\(both)")
    }
}
