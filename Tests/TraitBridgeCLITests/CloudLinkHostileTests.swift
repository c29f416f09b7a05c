import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// Partners that misbehave (Fixtures/hostile-partner.py, its own process): each failure is
/// refused with its own reason, bounded, and none of them stops the bridge or the good link.
@Suite("cloud links to hostile partners", .serialized)
struct CloudLinkHostileTests {
    static let modes = ["huge", "slow", "garbage", "shape", "denied", "error", "many", "sour"]

    @Test("huge, slow, garbage, wrong shape, 401, errorCode, 10 000 devices, a QUERY gone sour")
    func hostile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hostile-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let port = MosquittoBroker.freeLoopbackPort()
        var script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        script.appendPathComponent("Fixtures/hostile-partner.py")
        let partner = try ChildProcess(
            ["/usr/bin/python3", script.path, "\(port)", "10000"], logFile: folder + "/partner.log")
        defer { partner.stop() }
        #expect(eventually { MosquittoBroker.canConnect(port: port) }, "the partner listens")

        let broker = try MosquittoBroker()
        defer { broker.stop() }
        try "partner-token-0123456789abcdef\n".write(toFile: folder + "/token", atomically: true, encoding: .utf8)
        let links = Self.modes.map { mode in
            #"{"name": "\#(mode)", "url": "http://127.0.0.1:\#(port)/\#(mode)", "tokenFile": "\#(folder)/token", "#
                + #""pollSeconds": \#(mode == "sour" ? 1 : 60), "timeoutSeconds": 2}"#
        }
        try """
        {"broker": "\(broker.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "info", "cloudLinks": [\(links.joined(separator: ", "))]}
        """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        let serve = try BridgeProcess(
            ["serve", "--config", folder + "/config.json"],
            log: folder + "/serve.log")
        defer { serve.stop() }
        let watcher = try TestMQTTClient(
            broker,
            subscribe: [
                "traitbridge/bridge/state", "traitbridge/devices/c2c-many-light-9999/state",
                "traitbridge/devices/c2c-sour-light-0/state",
            ])

        // The good link's 10 000 devices arrive in spite of the others.
        #expect(
            watcher.waitFor("traitbridge/devices/c2c-many-light-9999/state", timeout: .seconds(60)) {
                $0.payloadText.contains(#""connectivityState":"online""#)
            } != nil, "the 10 000th device of the good link is bridged and online")
        // A QUERY answer that is not JSON makes that link's device unknown, saying why.
        let sour = watcher.waitFor("traitbridge/devices/c2c-sour-light-0/state", timeout: .seconds(20)) {
            $0.payloadText.contains("link sour: answer refused")
        }
        #expect(sour?.payloadText.contains(#""connectivityState":"unknown""#) == true, "\(sour?.payloadText ?? "none")")

        let expected = [
            "cloud link huge: SYNC answer over 16777216 bytes",
            "cloud link slow: SYNC got no answer within 2 s",
            "cloud link garbage: SYNC answer refused",
            "cloud link shape: SYNC answer refused",
            "cloud link denied: token rejected (HTTP 401)",
            "cloud link error: SYNC answered errorCode authFailure",
        ]
        var log = ""
        let all = eventually(timeout: .seconds(30)) {
            log = TestFiles.text(atPath: folder + "/serve.log")
            return expected.allSatisfy { log.contains($0) }
        }
        #expect(
            all,
            "missing: \(expected.filter { !log.contains($0) })\n\(log.split(separator: "\n").filter { $0.contains("slow") }.prefix(5))"
        )
        #expect(log.contains("payload.devices"), "the wrong shape is named by its JSON path")
        #expect(!log.contains("partner-token-0123456789abcdef"), "the token is never logged")
        #expect(serve.isRunning, "nothing a partner answers stops the bridge")
        #expect(watcher.waitFor("traitbridge/bridge/state")?.payloadText == "online")
    }
}
