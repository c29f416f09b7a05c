import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `serve` as Google's partner cloud: a real `serve` with its HTTP listener on loopback, a real
/// mosquitto with a pretend zigbee2mqtt, and AsyncHTTPClient playing Google.
@Suite("smart-home fulfillment over HTTP", .serialized)
struct FulfillmentTests {
    static let staticToken = "test-static-token-0123456789abcdef"
    static let redirect = "http://127.0.0.1:9/r/test-project"

    /// A running home: broker, `serve` with an `http` section, the demo's three devices (Hall light
    /// online, Relay offline), and the base URL of the listener.
    struct Home {
        var broker: MosquittoBroker
        var serve: ChildProcess
        var folder: String
        var base: String
        var client: HTTPClient
    }

    func home(accessTokenSeconds: Int = 2) throws -> Home {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-http-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "# scripts\n\(Self.staticToken) script-user\n".write(
            toFile: folder + "/tokens", atomically: true, encoding: .utf8)
        try "client-secret-for-tests\n".write(toFile: folder + "/client-secret", atomically: true, encoding: .utf8)
        try "correct horse\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)
        let port = MosquittoBroker.freeLoopbackPort()
        try """
        {"broker": "\(broker.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "warning", "commandTimeoutSeconds": 2,
         "http": {"listen": "127.0.0.1:\(port)", "bearerTokensFile": "\(folder)/tokens",
                  "oauth": {"clientId": "google", "clientSecretFile": "\(folder)/client-secret",
                            "redirectUris": ["\(Self.redirect)"], "user": "alice", "passwordFile": "\(folder)/password",
                            "accessTokenSeconds": \(accessTokenSeconds)}}}
        """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        let serve = try ChildProcess(
            [CommandRunner.executable.path, "serve", "--config", folder + "/config.json"],
            logFile: folder + "/serve.log")
        let z2m = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+/state"])
        let devices = try String(
            contentsOfFile: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json", encoding: .utf8)
        try z2m.publish("zigbee2mqtt/bridge/devices", devices, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":100}"#, retain: true)
        try z2m.publish("zigbee2mqtt/Relay/availability", "offline", retain: true)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000003/state") {
                $0.payloadText.contains(#""connectivityState":"offline""#)
            } != nil)
        #expect(eventually { MosquittoBroker.canConnect(port: port) }, "the HTTP listener is up")
        let client = HTTPClient(configuration: .init(redirectConfiguration: .disallow))
        return Home(broker: broker, serve: serve, folder: folder, base: "http://127.0.0.1:\(port)", client: client)
    }

    /// Runs `body` on a fresh home and takes it down afterwards, whatever happened.
    func withHome(accessTokenSeconds: Int = 2, _ body: (Home) async throws -> Void) async throws {
        let home = try home(accessTokenSeconds: accessTokenSeconds)
        var failure: (any Error)?
        do { try await body(home) } catch { failure = error }
        home.serve.stop()
        try await home.client.shutdown()
        try? FileManager.default.removeItem(atPath: home.folder)
        if let failure { throw failure }
    }

    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    }

    func send(
        _ home: Home, _ method: HTTPMethod, _ path: String, body: String? = nil, token: String? = nil,
        form: Bool = false
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: home.base + path)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(
                name: "Content-Type", value: form ? "application/x-www-form-urlencoded" : "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await home.client.execute(request, timeout: .seconds(15))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: headers, body: String(buffer: bytes))
    }

    func intent(_ name: String, _ payload: String? = nil, id: String = "r1") -> String {
        #"{"requestId":"\#(id)","inputs":[{"intent":"action.devices.\#(name)""#
            + (payload.map { #","payload":\#($0)"# } ?? "") + "}]}"
    }

    /// c2c-validate on an answer; skipped (visibly) without ../shared.
    func validate(_ kind: String, _ body: String, sync: String? = nil, in folder: String) throws {
        guard let shared = TestPaths(filePath: #filePath).shared else {
            print("skipped: c2c-validate \(kind) needs ../shared")
            return
        }
        let path = folder + "/\(kind).json"
        try body.write(toFile: path, atomically: true, encoding: .utf8)
        var arguments = [shared + "/tools/c2c-validate", kind, path]
        if let sync {
            try sync.write(toFile: folder + "/sync-for-query.json", atomically: true, encoding: .utf8)
            arguments += ["--sync", folder + "/sync-for-query.json"]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "c2c-validate \(kind): \(output)")
    }

    @Test(
        "SYNC, QUERY and EXECUTE with a static token: valid for Google, confirmed state, deviceOffline, deviceNotFound")
    func intents() async throws {
        try await withHome { home in try await intents(home) }
    }

    func intents(_ home: Home) async throws {
        let sync = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: Self.staticToken)
        #expect(sync.status == 200, "\(sync.body)")
        #expect(sync.headers["content-type"] == "application/json")
        let payload = try #require(sync.json["payload"] as? [String: Any])
        #expect(sync.json["requestId"] as? String == "r1")
        #expect(payload["agentUserId"] as? String == "script-user")
        let devices = try #require(payload["devices"] as? [[String: Any]])
        let ids = devices.compactMap { $0["id"] as? String }
        #expect(ids.contains("z2m-0x00158d0001000001") && ids.contains("z2m-0x00158d0001000003"), "\(ids)")
        #expect(devices.allSatisfy { $0["willReportState"] as? Bool == true })
        try validate("sync", sync.body, in: home.folder)

        let query = try await send(
            home, .POST, "/smarthome",
            body: intent(
                "QUERY", #"{"devices":[{"id":"z2m-0x00158d0001000001"},{"id":"z2m-0x00158d0001000003"}]}"#),
            token: Self.staticToken)
        #expect(query.status == 200)
        let states = try #require((query.json["payload"] as? [String: Any])?["devices"] as? [String: [String: Any]])
        #expect(states["z2m-0x00158d0001000001"]?["online"] as? Bool == true)
        #expect(states["z2m-0x00158d0001000001"]?["on"] as? Bool == false)
        #expect(states["z2m-0x00158d0001000003"]?["errorCode"] as? String == "deviceOffline")
        try validate("query", query.body, sync: sync.body, in: home.folder)
        let ghost = try await send(
            home, .POST, "/smarthome", body: intent("QUERY", #"{"devices":[{"id":"ghost"}]}"#), token: Self.staticToken)
        let ghostStates = (ghost.json["payload"] as? [String: Any])?["devices"] as? [String: [String: Any]]
        #expect(ghostStates?["ghost"]?["errorCode"] as? String == "deviceNotFound", "\(ghost.body)")
        try validate("query", ghost.body, in: home.folder)

        // A pretend zigbee2mqtt that echoes the light's /set back as its state.
        let z2m = try TestMQTTClient(home.broker, subscribe: ["zigbee2mqtt/Hall light/set"])
        let echo = Thread {
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                if let message = z2m.messages.all.last {
                    try? z2m.publish("zigbee2mqtt/Hall light", message.payloadText)
                    return
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        echo.start()
        let commands = #"""
            {"commands":[{"devices":[{"id":"z2m-0x00158d0001000001"},{"id":"z2m-0x00158d0001000003"}],
              "execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}}]}]}
            """#
        let execute = try await send(
            home, .POST, "/smarthome", body: intent("EXECUTE", commands, id: "e1"), token: Self.staticToken)
        #expect(execute.status == 200, "\(execute.body)")
        let results = try #require((execute.json["payload"] as? [String: Any])?["commands"] as? [[String: Any]])
        let success = try #require(results.first { ($0["ids"] as? [String]) == ["z2m-0x00158d0001000001"] })
        #expect(success["status"] as? String == "SUCCESS", "\(execute.body)")
        #expect((success["states"] as? [String: Any])?["on"] as? Bool == true, "the confirmed state")
        let offline = try #require(results.first { ($0["ids"] as? [String]) == ["z2m-0x00158d0001000003"] })
        #expect(offline["status"] as? String == "OFFLINE")
        #expect(offline["errorCode"] as? String == "deviceOffline")
        #expect(z2m.messages.all.first?.payloadText == #"{"state":"ON"}"#)
        try validate("execute", execute.body, in: home.folder)
    }

    @Test(
        "hostile requests: no token, a wrong token, not JSON, no intent, an unknown intent, too large — each in Google's shape"
    )
    func hostile() async throws {
        try await withHome { home in try await hostile(home) }
    }

    func hostile(_ home: Home) async throws {
        let missing = try await send(home, .POST, "/smarthome", body: intent("SYNC"))
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"] == #"Bearer realm="traitbridge""#)
        let wrong = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: "not-a-token-we-ever-made")
        #expect(wrong.status == 401)
        #expect(wrong.headers["www-authenticate"]?.contains(#"error="invalid_token""#) == true)
        let notJSON = try await send(home, .POST, "/smarthome", body: "{\"requestId\": ", token: Self.staticToken)
        #expect(notJSON.status == 400)
        #expect((notJSON.json["payload"] as? [String: Any])?["errorCode"] as? String == "protocolError")
        #expect(
            ((notJSON.json["payload"] as? [String: Any])?["debugString"] as? String)?.contains("1:15") == true,
            "\(notJSON.body)")
        let noIntent = try await send(
            home, .POST, "/smarthome", body: #"{"requestId":"x","inputs":[{}]}"#, token: Self.staticToken)
        #expect(noIntent.status == 400)
        #expect(noIntent.json["requestId"] as? String == "x")
        #expect(noIntent.body.contains("inputs[0].intent"), "\(noIntent.body)")
        let unknown = try await send(home, .POST, "/smarthome", body: intent("REBOOT"), token: Self.staticToken)
        #expect((unknown.json["payload"] as? [String: Any])?["errorCode"] as? String == "notSupported")
        let badQuery = try await send(
            home, .POST, "/smarthome", body: intent("QUERY", #"{"devices":7}"#), token: Self.staticToken)
        #expect(badQuery.status == 200)
        #expect((badQuery.json["payload"] as? [String: Any])?["errorCode"] as? String == "protocolError")
        let big = String(repeating: " ", count: (1 << 20) + 1) + intent("SYNC")
        let tooLarge = try await send(home, .POST, "/smarthome", body: big, token: Self.staticToken)
        #expect(tooLarge.status == 413)
        // The bridge is still there.
        let sync = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: Self.staticToken)
        #expect(sync.status == 200)
        let log = (try? String(contentsOfFile: home.folder + "/serve.log", encoding: .utf8)) ?? ""
        #expect(!log.contains(Self.staticToken), "no token in the log")
    }
}
