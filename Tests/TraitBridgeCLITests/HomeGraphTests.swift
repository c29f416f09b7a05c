import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// A local Home Graph in its own process (Fixtures/home-graph-receiver.py): its token endpoint
/// checks the bridge's JWT with the public half of a key made for the test, and the two Home
/// Graph methods record what they receive, one JSON line per event.
final class HomeGraphReceiver: Sendable {
    struct Received {
        var path: String
        var body: [String: Any]
        var valid: Bool?
        var time: Date
    }

    /// The service account's private key, PKCS#8 PEM, made by openssl for this test.
    let privateKeyPEM: String
    let port: Int
    let folder: String
    let process: ChildProcess

    init(folder: String) throws {
        self.folder = folder
        // openssl makes the throw-away key: swift-crypto's RSA key generation leaks a bignum
        // (LeakSanitizer), and the bridge only ever reads keys.
        try TestTools.makeKeyPair("private", in: folder)
        privateKeyPEM = TestFiles.text(atPath: folder + "/private.pem")
        port = MosquittoBroker.freeLoopbackPort()
        var script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        script.appendPathComponent("Fixtures/home-graph-receiver.py")
        process = try ChildProcess(
            [
                "/usr/bin/python3", script.path, "\(port)", folder + "/private.pub.pem", Self.email,
                folder + "/events.jsonl",
            ],
            logFile: folder + "/receiver.log")
        #expect(eventually { MosquittoBroker.canConnect(port: port) }, "the receiver listens")
    }

    static let email = "bridge@test-project.iam.gserviceaccount.com"

    /// The service-account key file a bridge needs to call this receiver.
    func keyFile() -> String {
        let escaped = privateKeyPEM.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "\n", with: "\\n")
        return """
            {"type": "service_account", "project_id": "test-project", "private_key_id": "k1",
             "private_key": "\(escaped)", "client_email": "\(Self.email)",
             "token_uri": "http://127.0.0.1:\(port)/token"}
            """
    }

    func all() -> [Received] {
        let text = TestFiles.text(atPath: folder + "/events.jsonl")
        return text.split(separator: "\n").compactMap { line in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let path = event["path"] as? String, let time = event["time"] as? Double
            else { return nil }
            return Received(
                path: path, body: event["body"] as? [String: Any] ?? [:], valid: event["valid"] as? Bool,
                time: Date(timeIntervalSince1970: time))
        }
    }

    var checkedAssertions: [Bool] { all().compactMap(\.valid) }

    /// The state a report gave `device`, in the first report after `since` that names it.
    func reportedState(of device: String, after since: Date) -> ([String: Any], Date)? {
        for item in all() where item.time >= since && item.path.hasSuffix("devices:reportStateAndNotification") {
            let states =
                ((item.body["payload"] as? [String: Any])?["devices"] as? [String: Any])?["states"] as? [String: Any]
            if let state = states?[device] as? [String: Any] { return (state, item.time) }
        }
        return nil
    }

    func stop() { process.stop() }
}

@Suite("Report State and Request Sync to a local Home Graph", .serialized)
struct HomeGraphTests {
    @Test(
        "offline, a value change and a rename reach Home Graph (state reports, Request Sync), signed by the service account"
    )
    func reports() throws {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let receiver = try HomeGraphReceiver(folder: folder)
        defer { receiver.stop() }
        try receiver.keyFile().write(toFile: folder + "/key.json", atomically: true, encoding: .utf8)
        try "\(FulfillmentTests.staticToken) home-user\n".write(
            toFile: folder + "/tokens", atomically: true, encoding: .utf8)
        try """
        {"broker": "\(broker.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "warning",
         "http": {"listen": "127.0.0.1:\(MosquittoBroker.freeLoopbackPort())", "bearerTokensFile": "\(folder)/tokens",
                  "homeGraph": {"serviceAccountKeyFile": "\(folder)/key.json", "url": "http://127.0.0.1:\(receiver.port)"}}}
        """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        let serve = try BridgeProcess(
            ["serve", "--config", folder + "/config.json"],
            log: folder + "/serve.log")
        defer { serve.stop() }
        let z2m = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+/state"])
        let devices = try String(
            contentsOfFile: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json", encoding: .utf8)
        try z2m.publish("zigbee2mqtt/bridge/devices", devices, retain: true)
        try z2m.publish("zigbee2mqtt/Relay/availability", "online", retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":100}"#)
        let relay = "z2m-0x00158d0001000003"
        let light = "z2m-0x00158d0001000001"
        #expect(
            eventually {
                receiver.reportedState(of: relay, after: Date(timeIntervalSince1970: 0))?.0["online"] as? Bool == true
            },
            "the first report: \(receiver.all().map(\.path))")

        // Offline goes at once; the value change within its batch. (The latency is printed, not
        // asserted: speed is measured by benchmarks.)
        let wentOffline = Date()
        try z2m.publish("zigbee2mqtt/Relay/availability", "offline", retain: true)
        #expect(eventually { receiver.reportedState(of: relay, after: wentOffline)?.0["online"] as? Bool == false })
        let changed = Date()
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":200}"#)
        #expect(eventually { receiver.reportedState(of: light, after: changed)?.0["on"] as? Bool == true })
        let offlineAt = receiver.reportedState(of: relay, after: wentOffline)?.1
        let changeAt = receiver.reportedState(of: light, after: changed)?.1
        print(
            "Report State latency: offline \(offlineAt.map { $0.timeIntervalSince(wentOffline) } ?? -1) s, "
                + "value \(changeAt.map { $0.timeIntervalSince(changed) } ?? -1) s")
        let report = try #require(
            receiver.all().last { $0.path.hasSuffix("devices:reportStateAndNotification") })
        #expect(report.body["agentUserId"] as? String == "home-user")

        let renamed = Date()
        let rename = try CommandRunner.run(["rename", light, "Porch light", "--broker", broker.url])
        #expect(rename.exitCode == 0, "\(rename.standardError)")
        #expect(
            eventually {
                receiver.all().contains { $0.time >= renamed && $0.path.hasSuffix("devices:requestSync") }
            }, "a rename asks Google to SYNC again")
        let sync = receiver.all().first { $0.time >= renamed && $0.path.hasSuffix("devices:requestSync") }
        #expect(sync?.body["agentUserId"] as? String == "home-user")
        #expect(
            !receiver.checkedAssertions.isEmpty && receiver.checkedAssertions.allSatisfy { $0 }, "every JWT verified")
        let log = TestFiles.text(atPath: folder + "/serve.log")
        #expect(!log.contains("hg-access") && !log.contains("PRIVATE KEY"), "no token or key in the log")
    }
}
