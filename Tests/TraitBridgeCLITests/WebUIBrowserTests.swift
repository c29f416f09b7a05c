import Foundation
import Testing
import TraitBridgeTesting

/// The web UI on the demo, in real headless Chromium (Debian's chromium and chromium-driver,
/// driven by selenium from `Fixtures/ui-browser.py`; `scripts/install-browser.sh` installs them):
/// a wrong password refused, the one-time login, the devices by room, a light toggled and
/// confirmed, another device changed by another client seen without a reload, the keyboard, one
/// device trait by trait, the home and a scene run, a phone-sized screen, nothing from another
/// origin, a write without the CSRF token refused, signing out. Screenshots of the main pages go
/// to `.build/artefacts/ui/` (kept by CI, not committed).
@Suite("web UI in a real browser", .serialized)
struct WebUIBrowserTests {
    static let python = CommandRunner.repository + "/.build-browser/venv/bin/python"
    static let screenshots = CommandRunner.repository + "/.build/artefacts/ui"

    @Test(
        "the README's tour, then the web UI in headless Chromium on the demo: sign in, cards, controls, keyboard",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: python)
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            "Chromium or selenium is not installed (scripts/install-browser.sh; make test installs them)"))
    func browser() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-demo-ui-\(UUID().uuidString).log")
            .path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let demo = try BridgeProcess(
            [
                "demo", "--scenario",
                CommandRunner.repository + "/examples/demo-home.json", "--mappings",
                CommandRunner.repository + "/mappings",
            ], log: log)
        defer { demo.stop() }
        var text = ""
        #expect(
            eventually(timeout: .seconds(120)) {
                text = WatchCommandTests.read(log)
                return text.contains("== traitbridge watch") || text.contains("error:")
            }, "the demo reaches its watch stage: \(text)")
        let login = try #require(
            text.firstMatch(of: /(http:\/\/127\.0\.0\.1:\d+)\/ui\/login\?code=tbl_[0-9a-f]+/),
            "the demo prints it: \(text)")
        let token = try #require(text.firstMatch(of: /Bearer (tb-demo-[0-9a-f-]+)/).map { String($0.1) })
        let withMatter = text.contains("== Matter Server ")
        // The README's tour first, as a reader runs it (its state changes are what the browser then sees).
        try ReadmeTour.check(demoOutput: text, withMatter: withMatter)
        try FileManager.default.createDirectory(atPath: Self.screenshots, withIntermediateDirectories: true)

        let output = log + ".browser.json"
        let browser = try ChildProcess(
            [
                Self.python, CommandRunner.repository + "/Tests/TraitBridgeCLITests/Fixtures/ui-browser.py",
                String(login.1), String(login.0), token, Self.screenshots,
            ], logFile: output)
        let finished = browser.reap(within: .seconds(180))
        if !finished { browser.kill() }
        defer { try? FileManager.default.removeItem(atPath: output) }
        let printed = WatchCommandTests.read(output)
        let line = printed.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let found = try #require(
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "the driver printed: \(printed)"
        )
        #expect(found["error"] == nil, "the driver stopped: \(found["error"] ?? "") \(found["failurePage"] ?? "")")

        #expect(found["wrongPassword"] as? String == "wrong user name or password")
        #expect(found["wrongPasswordCookie"] as? Bool == false, "no session for a wrong password")
        #expect(found["anonymousLandsOn"] as? String == "/ui/login")
        let cookie = found["cookie"] as? [String: Any] ?? [:]
        #expect(cookie["httpOnly"] as? Bool == true && cookie["sameSite"] as? String == "Strict", "\(cookie)")
        #expect(found["previewStatus"] as? Int == 200, "a link preview's GET only sees the page that asks")
        #expect(found["codeReused"] as? Int == 401, "a one-time login works once")
        #expect(found["linkAfterUse"] as? Int == 401, "a used link says so")
        let cards = found["cards"] as? Int ?? -1
        #expect(cards == found["apiDevices"] as? Int, "every device the API lists has its card")
        if withMatter { #expect(cards == 17, "the demo's 17 devices") } else { #expect(cards >= 14) }
        let rooms = found["rooms"] as? [String: [String]] ?? [:]
        #expect(rooms["Office"] == ["Desk lamp"] && rooms["Kitchen"]?.contains("Kitchen plug") == true, "\(rooms)")
        #expect(rooms.values.reduce(0) { $0 + $1.count } == cards, "each card stands in its room: \(rooms)")

        #expect(found["toggleStatus"] as? String == "Confirmed", "\(found["toggleStatus"] ?? "")")
        let lampBefore = found["deskLampBefore"] as? String ?? ""
        let lampAfter = found["deskLampAfter"] as? String ?? ""
        #expect(Self.isOn(lampBefore) != Self.isOn(lampAfter), "\(lampBefore) → \(lampAfter)")
        #expect(found["apiCommand"] as? String == "confirmed")
        let plugBefore = found["kitchenPlugBefore"] as? String ?? ""
        let plugAfter = found["kitchenPlugAfter"] as? String ?? ""
        #expect(
            Self.isOn(plugBefore) != Self.isOn(plugAfter), "live, from another client: \(plugBefore) → \(plugAfter)")
        #expect(found["notReloaded"] as? Bool == true, "without a reload")
        #expect(
            (found["challengeAsked"] as? String)?.wholeMatch(
                of: /The device's cloud asks you to confirm: Turn (on|off) Garden plug\./) != nil,
            "the partner's ackNeeded is asked in the page: \(found["challengeAsked"] ?? "")")
        #expect(found["challengeFocus"] as? String == "Confirm", "the Confirm button has the focus")
        #expect((found["challengeCancelled"] as? String)?.hasPrefix("Cancelled") == true)
        #expect(
            found["gardenPlugUnchanged"] as? Bool == true, "nothing was sent on Cancel: \(found["gardenPlug"] ?? "")")
        #expect((found["keyboardReached"] as? String)?.hasPrefix("Turn ") == true, "Tab reaches a card's button")
        if withMatter || found["keyboardChallenge"] != nil {
            #expect(found["keyboardChallenge"] as? String == "Confirm", "the first card's plug asks, by keyboard too")
        }
        #expect(found["keyboardStatus"] as? String == "Confirmed", "and Enter switches it")

        #expect(
            (found["traits"] as? [String])?.contains("On/off matter.OnOff") == true, "\(found["traits"] ?? "")")
        let deviceText = found["deviceText"] as? String ?? ""
        // The Hall light: its local path offline (why, since when), its cloud twin's online; commands.
        for word in [
            "Color temperature light (light) offline", "Color temperature light (cloud-light) online", "Power",
            "Brightness", "Colour temperature", "localPeer", "Turn o", "Move to level", "Toggle",
            "availability topic zigbee2mqtt/Hall light/availability said offline (since 20",
        ] {
            #expect(deviceText.contains(word), "the device page shows \(word): \(deviceText.prefix(600))")
        }
        #expect(!deviceText.contains("currentLevel"), "the raw names wait behind a click: \(deviceText.prefix(600))")
        let raw = found["rawText"] as? String ?? ""
        for word in ["Source", "zigbee2mqtt[default]", "onOff", "format bool", "Set"] {
            #expect(raw.contains(word), "the raw view shows \(word): \(raw.prefix(600))")
        }
        try Self.checkCardValues(found)
        try Self.checkHistory(found)
        #expect(
            found["homeSections"] as? [String]
                == ["Zones", "Groups", "Scenes", "Automations", "Cloud links", "Reachability"])
        // The Hall light's local path dropped: it, and its group as one device of its lights' parts.
        let reachability = found["reachabilityRows"] as? [String] ?? []
        #expect(
            reachability.contains("Hall light") && reachability.contains("Downstairs lights (group, 4 devices)"),
            "\(reachability)")
        #expect((found["sceneStatus"] as? String)?.hasPrefix("ok") == true, "\(found["sceneStatus"] ?? "")")
        let sceneAfter = found["sceneAfter"] as? String ?? ""
        #expect(
            sceneAfter.contains("last run") && sceneAfter != found["sceneBefore"] as? String
                && found["homeNotReloaded"] as? Bool == true,
            "the scene's last run is redrawn in place: \(found["sceneBefore"] ?? "") → \(sceneAfter)")
        #expect(found["phoneOverflow"] as? Int == 0, "nothing wider than a phone's screen")
        #expect((found["foreign"] as? [Any])?.isEmpty == true, "nothing from another origin: \(found["foreign"] ?? "")")
        #expect(found["forgedStatus"] as? Int == 403, "a write without the CSRF token")
        #expect((found["consoleErrors"] as? [Any])?.isEmpty == true, "\(found["consoleErrors"] ?? "")")
        #expect(found["afterLogout"] as? String == "/ui/login" && found["cookieAfterLogout"] as? Bool == false)
        for page in [
            "login-refused", "devices", "devices-values", "challenge", "device", "device-history", "device-sensor-day",
            "home", "devices-phone",
        ] {
            #expect(FileManager.default.fileExists(atPath: "\(Self.screenshots)/\(page).png"), "screenshot \(page)")
        }
        #expect(demo.signal(SIGINT, waitUpTo: .seconds(30)) && demo.exitStatus == 0, "the demo stops on Ctrl-C")
    }

    /// Whether a card's text says the device is on (its switch offers to turn it off).
    static func isOn(_ card: String) -> Bool { card.contains("Turn off") }
}
