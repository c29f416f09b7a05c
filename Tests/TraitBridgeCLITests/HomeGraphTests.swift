import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting
import _CryptoExtras

/// A local Home Graph: the token endpoint checks the bridge's JWT with the public half of a key
/// made for the test, and the two Home Graph methods record what they receive.
final class HomeGraphReceiver: Sendable {
    struct Received {
        var path: String
        var body: [String: Any]
        var time: ContinuousClock.Instant
    }

    let key: _RSA.Signing.PrivateKey
    let port: Int
    private let received = Recorder<Raw>()
    struct Raw: Sendable {
        var path: String
        var body: Data
        var time: ContinuousClock.Instant
    }
    /// Assertions the token endpoint checked: true when the signature and claims held.
    private let assertions = Recorder<Bool>()
    private let group: ServiceGroup
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        port = MosquittoBroker.freeLoopbackPort()
        let router = Router()
        let publicKey = key.publicKey
        let email = "bridge@test-project.iam.gserviceaccount.com"
        let tokenURI = "http://127.0.0.1:\(port)/token"
        router.post("token") { [assertions] request, _ -> Response in
            let form = String(buffer: try await request.body.collect(upTo: 1 << 16))
            let assertion = form.split(separator: "&").first { $0.hasPrefix("assertion=") }?.dropFirst(10) ?? ""
            let parts = assertion.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            var valid = false
            if parts.count == 3, let signature = Self.base64URL(parts[2]), let claimsData = Self.base64URL(parts[1]),
                let claims = try? JSONSerialization.jsonObject(with: claimsData) as? [String: Any]
            {
                let signed = publicKey.isValidSignature(
                    _RSA.Signing.RSASignature(rawRepresentation: signature),
                    for: Data((parts[0] + "." + parts[1]).utf8),
                    padding: .insecurePKCS1v1_5)
                valid =
                    signed && claims["iss"] as? String == email && claims["aud"] as? String == tokenURI
                    && claims["scope"] as? String == "https://www.googleapis.com/auth/homegraph"
            }
            assertions.append(valid)
            let body =
                valid
                ? #"{"access_token":"hg-access","expires_in":3600,"token_type":"Bearer"}"#
                : #"{"error":"invalid_grant"}"#
            return Response(status: valid ? .ok : .badRequest, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.post("v1/**") { [received] request, _ -> Response in
            guard request.headers[.authorization] == "Bearer hg-access" else { return Response(status: .unauthorized) }
            let body = Data(Array(buffer: try await request.body.collect(upTo: 1 << 20)))
            received.append(Raw(path: request.uri.path, body: body, time: .now))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: #"{"requestId":"x"}"#)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "receiver")))
        Task { [group, done] in
            try? await group.run()
            done.signal()
        }
        #expect(eventually { MosquittoBroker.canConnect(port: port) }, "the receiver listens")
    }

    /// The service-account key file a bridge needs to call this receiver.
    func keyFile() -> String {
        let escaped = key.pkcs8PEMRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        return """
            {"type": "service_account", "project_id": "test-project", "private_key_id": "k1",
             "private_key": "\(escaped)", "client_email": "bridge@test-project.iam.gserviceaccount.com",
             "token_uri": "http://127.0.0.1:\(port)/token"}
            """
    }

    var checkedAssertions: [Bool] { assertions.all }

    func all() -> [Received] {
        received.all.map { item in
            Received(
                path: item.path, body: (try? JSONSerialization.jsonObject(with: item.body) as? [String: Any]) ?? [:],
                time: item.time)
        }
    }

    /// The state a report gave `device`, in the first report after `since` that names it.
    func reportedState(of device: String, after since: ContinuousClock.Instant) -> (
        [String: Any], ContinuousClock.Instant
    )? {
        for item in all() where item.time >= since && item.path.hasSuffix("devices:reportStateAndNotification") {
            let states =
                ((item.body["payload"] as? [String: Any])?["devices"] as? [String: Any])?["states"] as? [String: Any]
            if let state = states?[device] as? [String: Any] { return (state, item.time) }
        }
        return nil
    }

    func stop() {
        Task { [group] in await group.triggerGracefulShutdown() }
        _ = done.wait(timeout: .now() + 5)
    }

    static func base64URL(_ text: String) -> Data? {
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base.count % 4 != 0 { base += "=" }
        return Data(base64Encoded: base)
    }
}

@Suite("Report State and Request Sync to a local Home Graph", .serialized)
struct HomeGraphTests {
    @Test(
        "offline, a value change and a rename reach Home Graph (state reports, Request Sync), signed by the service account"
    )
    func reports() throws {
        let receiver = try HomeGraphReceiver()
        defer { receiver.stop() }
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-hg-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try receiver.keyFile().write(toFile: folder + "/key.json", atomically: true, encoding: .utf8)
        try "\(FulfillmentTests.staticToken) home-user\n".write(
            toFile: folder + "/tokens", atomically: true, encoding: .utf8)
        try """
        {"broker": "\(broker.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "warning",
         "http": {"listen": "127.0.0.1:\(MosquittoBroker.freeLoopbackPort())", "bearerTokensFile": "\(folder)/tokens",
                  "homeGraph": {"serviceAccountKeyFile": "\(folder)/key.json", "url": "http://127.0.0.1:\(receiver.port)"}}}
        """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        let serve = try ChildProcess(
            [CommandRunner.executable.path, "serve", "--config", folder + "/config.json"],
            logFile: folder + "/serve.log")
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
            eventually { receiver.reportedState(of: relay, after: .now - .seconds(60))?.0["online"] as? Bool == true },
            "the first report: \(receiver.all().map(\.path))")

        // Offline goes at once; the value change within its batch. (The latency is printed, not
        // asserted: speed is measured by benchmarks.)
        let wentOffline = ContinuousClock.now
        try z2m.publish("zigbee2mqtt/Relay/availability", "offline", retain: true)
        #expect(eventually { receiver.reportedState(of: relay, after: wentOffline)?.0["online"] as? Bool == false })
        let changed = ContinuousClock.now
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":200}"#)
        #expect(eventually { receiver.reportedState(of: light, after: changed)?.0["on"] as? Bool == true })
        let offlineAt = receiver.reportedState(of: relay, after: wentOffline)?.1
        let changeAt = receiver.reportedState(of: light, after: changed)?.1
        print(
            "Report State latency: offline \(offlineAt.map { $0 - wentOffline } ?? .zero), value \(changeAt.map { $0 - changed } ?? .zero)"
        )
        let report = try #require(
            receiver.all().last { $0.path.hasSuffix("devices:reportStateAndNotification") })
        #expect(report.body["agentUserId"] as? String == "home-user")

        let renamed = ContinuousClock.now
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
        let log = (try? String(contentsOfFile: folder + "/serve.log", encoding: .utf8)) ?? ""
        #expect(!log.contains("hg-access") && !log.contains("PRIVATE KEY"), "no token or key in the log")
    }
}
