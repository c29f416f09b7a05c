import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TraitBridgeHTTP
import TraitBridgeMQTT
import TraitBridgeTesting

/// A partner that pushes: B's Home Graph reporter is pointed at A's local Home Graph, so B's
/// Report State reaches A without A polling (A polls every two minutes here), and B's Request Sync
/// makes A ask for a SYNC at once. B authenticates with a service-account JWT that A checks with
/// the public key its link names.
extension FulfillmentTests {
    @Test("cloud link push: B's Report State updates A at once; B's Request Sync brings its new device to A")
    func cloudLinkPush() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-push-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestTools.makeKeyPair("b", in: folder)
        let (portA, portB) = (MosquittoBroker.freeLoopbackPort(), MosquittoBroker.freeLoopbackPort())
        let privateKey = TestFiles.text(atPath: folder + "/b.pem").trimmingCharacters(in: .whitespacesAndNewlines)
        try """
        {"type": "service_account", "project_id": "b", "private_key_id": "k1",
         "private_key": "\(privateKey.replacingOccurrences(of: "\n", with: "\\n"))",
         "client_email": "b@b.iam.gserviceaccount.com", "token_uri": "http://127.0.0.1:\(portA)/token"}
        """.write(toFile: folder + "/b-key.json", atomically: true, encoding: .utf8)

        // A first: it links to B (not up yet) and listens for B's pushes.
        let brokerA = try MosquittoBroker()
        defer { brokerA.stop() }
        try "\(Self.staticToken)\n".write(toFile: folder + "/token", atomically: true, encoding: .utf8)
        try "a-static-token-for-nobody-0123456789 nobody\n".write(
            toFile: folder + "/a-tokens", atomically: true, encoding: .utf8)
        try """
        {"broker": "\(brokerA.url)", "dataDir": "\(folder)/a-data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "info", "http": {"listen": "127.0.0.1:\(portA)", "bearerTokensFile": "\(folder)/a-tokens"},
         "cloudLinks": [{"name": "b", "url": "http://127.0.0.1:\(portB)/smarthome", "tokenFile": "\(folder)/token",
                         "pollSeconds": 120, "pushPublicKeyFile": "\(folder)/b.pub.pem",
                         "pushIssuer": "b@b.iam.gserviceaccount.com"}]}
        """.write(toFile: folder + "/a.json", atomically: true, encoding: .utf8)
        let serveA = try BridgeProcess(
            ["serve", "--config", folder + "/a.json"], log: folder + "/a.log")
        defer { serveA.stop() }
        let watcher = try TestMQTTClient(brokerA, subscribe: ["traitbridge/devices/+", "traitbridge/devices/+/state"])
        #expect(eventually { MosquittoBroker.canConnect(port: portA) }, "A listens")

        let homeGraph = #"""
            "homeGraph": {"serviceAccountKeyFile": "\#(folder)/b-key.json", "url": "http://127.0.0.1:\#(portA)",
                          "batchMilliseconds": 200, "requestSyncDelaySeconds": 1},
            """#
        try await withHome(httpExtra: homeGraph, port: portB) { bridgeB in
            let light = "traitbridge/devices/c2c-z2m-0x00158d0001000001/state"
            #expect(watcher.waitFor(light, timeout: .seconds(20)) != nil, "A has B's Hall light")
            // A value change on B reaches A by push (A's next poll is two minutes away).
            let z2m = try TestMQTTClient(bridgeB.broker)
            try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":200}"#, retain: true)
            let pushed = watcher.waitFor(light, timeout: .seconds(10)) { $0.payloadText.contains(#""onOff":true"#) }
            #expect(pushed != nil, "A heard of B's change: \(watcher.waitFor(light)?.payloadText ?? "")")

            // A new device on B: B asks Home Graph (A) for a SYNC, and A's link fetches it.
            let list = CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json"
            let homeList = CommandRunner.repository + "/examples/demo-home-zigbee2mqtt-devices.json"
            var devices = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: list))) as? [[String: Any]]
            )
            let lock = try #require(
                (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: homeList)))
                    as? [[String: Any]])?.first { $0["friendly_name"] as? String == "Front door lock" })
            devices.append(lock)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: devices), as: UTF8.self)
            try z2m.publish("zigbee2mqtt/bridge/devices", text, retain: true)
            #expect(
                watcher.waitFor("traitbridge/devices/c2c-z2m-0x00158d0001000004", timeout: .seconds(15)) != nil,
                "Request Sync from B brought the lock to A")

            // Now nothing asks A to SYNC or QUERY (its poll is two minutes away): only B's Report
            // State can carry this change.
            try await Task.sleep(for: .seconds(2))
            let mark = watcher.messages.all.count
            try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":50}"#, retain: true)
            let reported = eventually(timeout: .seconds(10)) {
                watcher.messages.all.dropFirst(mark).contains {
                    $0.topic == light && $0.payloadText.contains(#""onOff":false"#)
                }
            }
            #expect(reported, "Report State from B updated A")

            // A's local Home Graph lets in only what B's key signed.
            let client = bridgeB.client
            var anonymous = HTTPClientRequest(url: "http://127.0.0.1:\(portA)/v1/devices:reportStateAndNotification")
            anonymous.method = .POST
            anonymous.body = .bytes(ByteBuffer(string: #"{"payload":{"devices":{"states":{}}}}"#))
            #expect(try await client.execute(anonymous, timeout: .seconds(10)).status == .unauthorized)
            var forged = HTTPClientRequest(url: "http://127.0.0.1:\(portA)/token")
            forged.method = .POST
            forged.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            forged.body = .bytes(
                ByteBuffer(
                    string:
                        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjQwMDAwMDAwMDB9.AAAA"
                ))
            let refused = try await client.execute(forged, timeout: .seconds(10))
            #expect(refused.status == .badRequest)
            let body = String(buffer: try await refused.body.collect(upTo: 1 << 16))
            #expect(body.contains("invalid_grant"), "\(body)")

            // B's key, but a JWT made for Google's token endpoint (aud): refused here.
            let google = TestFiles.text(atPath: folder + "/b-key.json").replacingOccurrences(
                of: "http://127.0.0.1:\(portA)/token", with: "https://oauth2.googleapis.com/token")
            try google.write(toFile: folder + "/b-google.json", atomically: true, encoding: .utf8)
            let elsewhere = try await exchange(ServiceAccount(path: folder + "/b-google.json"), at: portA, client)
            #expect(elsewhere == nil, "a JWT for another audience gets no token")

            // A notification from B (an object seen at the door): a device event on A, in `watch`.
            let output = folder + "/watch.out"
            let watch = try BridgeProcess(
                ["watch", "--broker", brokerA.url, "--count", "1", "--duration", "15"],
                log: output)
            defer { watch.stop() }
            #expect(eventually { WatchCommandTests.read(output).contains("changes follow") })
            let token = try #require(
                try await exchange(ServiceAccount(path: folder + "/b-key.json"), at: portA, client))
            var notify = HTTPClientRequest(url: "http://127.0.0.1:\(portA)/v1/devices:reportStateAndNotification")
            notify.method = .POST
            notify.headers.add(name: "Authorization", value: "Bearer \(token)")
            notify.body = .bytes(
                ByteBuffer(
                    string:
                        #"{"agentUserId":"alice","eventId":"e1","payload":{"devices":{"notifications":{"z2m-0x00158d0001000004":{"ObjectDetection":{"priority":0,"detectionTimestamp":1700000000000,"objects":{"unfamiliar":1}}}}}}}"#
                ))
            #expect(try await client.execute(notify, timeout: .seconds(10)).status == .ok)
            #expect(watch.waitForExit(within: .seconds(15)) == 0, "watch stops after one line")
            let line = WatchCommandTests.read(output)
            #expect(
                line.contains(
                    #"event    Front door lock (c2c-z2m-0x00158d0001000004)  google.ObjectDetection from link b: "#
                        + #"{"priority":0,"detectionTimestamp":1700000000000,"objects":{"unfamiliar":1}}"#), "\(line)")
        }
        let log = TestFiles.text(atPath: folder + "/a.log")
        #expect(!log.contains("BEGIN PRIVATE KEY") && !log.contains(Self.staticToken), "no secret in A's log")
    }

    /// The access token A's `/token` gives for `account`'s JWT, or `nil` when refused.
    func exchange(_ account: ServiceAccount, at port: Int, _ client: HTTPClient) async throws -> String? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/token")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        let assertion = try account.assertion(now: Date())
        request.body = .bytes(
            ByteBuffer(
                string: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 16)
        guard response.status == .ok else { return nil }
        let json = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
        return json?["access_token"] as? String
    }
}
