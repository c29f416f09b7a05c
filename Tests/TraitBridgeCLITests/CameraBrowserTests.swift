import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeLocalBroker
import TraitBridgeTesting

/// The camera in the web UI on real parts: the aiortc camera and headless Chromium both inside the
/// test's network sandbox (Chromium's WebRTC gathers candidates there only, no mDNS names, no ICE
/// servers), `serve`'s listener on the sandbox's host address; the page makes the offer, the bridge
/// relays it (signalling only), the video plays in the page.
@Suite(
    "Camera live view in the browser", .serialized,
    .enabled(
        if: CameraPeers.unavailableReason == nil
            && FileManager.default.isExecutableFile(atPath: WebUIBrowserTests.python)
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
        "\(CameraPeers.unavailableReason ?? "Chromium or selenium is not installed (scripts/install-browser.sh)")"))
struct CameraBrowserTests {
    @Test("Watch live on the camera's page and its card (kept across redraws), then stop; its notifications listed")
    func watchLive() throws {
        let port = MosquittoBroker.freeLoopbackPort()
        let home = try LiveViewTests.Home(httpPort: port)
        defer { home.stop() }
        let base = "http://\(home.sandbox.hostAddress):\(port)"
        try FileManager.default.createDirectory(
            atPath: WebUIBrowserTests.screenshots, withIntermediateDirectories: true)
        let output = home.folder.appendingPathComponent("browser.json").path
        let browser = try ChildProcess(
            home.sandbox.command([
                WebUIBrowserTests.python, CommandRunner.repository + "/Tests/TraitBridgeCLITests/Fixtures/ui-camera.py",
                base, "alice", "correct horse", "frigate-front_door", WebUIBrowserTests.screenshots,
            ]), logFile: output)
        // Motion every second while the browser runs: the camera's card is redrawn under its live view.
        var finished = false
        for second in 0..<120 where !finished {
            try? home.frigate.publish("frigate/front_door/motion", second % 2 == 0 ? "ON" : "OFF")
            finished = browser.reap(within: .seconds(1))
        }
        if !finished { browser.kill() }
        let printed = LogFile.read(output)
        let found = LiveViewTests.json(printed) ?? [:]
        #expect(found["error"] == nil, "the driver stopped: \(printed.suffix(3000))")
        let times = found["currentTime"] as? [Double] ?? []
        #expect(times.count == 2 && times[1] > times[0], "the video's time advances: \(times)")
        let quality = found["quality"] as? [String: Int] ?? [:]
        #expect((quality["total"] ?? 0) > 10, "frames decoded: \(quality)")
        let size = found["size"] as? [Int] ?? []
        #expect(size.count == 2 && size[0] > 0 && size[1] > 0, "a picture: \(size)")
        #expect((found["status"] as? String)?.hasPrefix("Live view live-") == true, "\(found["status"] ?? "")")
        #expect(found["stopped"] as? Bool == true)
        // The card: it plays too, and a redraw of the card (its occupancy moved) keeps the picture.
        let cardTimes = found["cardTime"] as? [Double] ?? []
        #expect(cardTimes.count == 2 && cardTimes[1] > cardTimes[0], "the card's video advances: \(cardTimes)")
        let redrawn = found["cardRedrawn"] as? [String] ?? []
        #expect(redrawn.count == 2 && redrawn[0] != redrawn[1], "the card was redrawn while playing: \(redrawn)")
        #expect(found["cardPlaying"] as? Bool == true && found["cardStopped"] as? Bool == true)
        // Its notifications listed, the newest first, each with its time in words and as RFC 3339.
        let notes = found["notifications"] as? [String] ?? []
        #expect(notes.count >= 2, "\(notes)")
        #expect(notes.allSatisfy { $0.hasSuffix("motion started") || $0.hasSuffix("motion ended") }, "\(notes)")
        let noted = (found["notificationTimes"] as? [String] ?? []).compactMap { Timestamp.parse($0) }
        #expect(noted.count == notes.count && noted == noted.sorted(by: >), "newest first: \(noted)")
        #expect((found["consoleErrors"] as? [Any])?.isEmpty == true, "\(found["consoleErrors"] ?? "")")
        for shot in ["camera-live", "camera-card", "camera-notifications"] {
            #expect(FileManager.default.fileExists(atPath: WebUIBrowserTests.screenshots + "/\(shot).png"))
        }
    }
}
