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
    /// A static token with the viewer role: it may read through the API, not command.
    static let viewerToken = "test-viewer-token-0123456789abcdef"
    /// A static token with the admin role: it may edit the home through the API.
    static let adminToken = "test-admin-token-0123456789abcdefg"
    static let redirect = "http://127.0.0.1:9/r/test-project"

    /// A running home: broker, `serve` with an `http` section, the demo's three devices (Hall light
    /// online, Relay offline), and the base URL of the listener.
    struct Home {
        var broker: MosquittoBroker
        var serve: BridgeProcess
        var folder: String
        var base: String
        var client: HTTPClient
    }

    func home(accessTokenSeconds: Int = 2, extra: String = "", httpExtra: String = "", port: Int? = nil) throws -> Home
    {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-http-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tokens = [
            "\(Self.staticToken) script-user", "\(Self.viewerToken) wall-panel viewer",
            "\(Self.adminToken) owner admin",
        ].joined(separator: "\n")
        try "# scripts\n\(tokens)\n".write(
            toFile: folder + "/tokens", atomically: true, encoding: .utf8)
        try "client-secret-for-tests\n".write(toFile: folder + "/client-secret", atomically: true, encoding: .utf8)
        try "correct horse\n".write(toFile: folder + "/password", atomically: true, encoding: .utf8)
        let port = port ?? MosquittoBroker.freeLoopbackPort()
        try """
        {"broker": "\(broker.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "warning", "commandTimeoutSeconds": 2, \(extra)
         "http": {"listen": "127.0.0.1:\(port)", \(httpExtra) "bearerTokensFile": "\(folder)/tokens",
                  "oauth": {"clientId": "google", "clientSecretFile": "\(folder)/client-secret",
                            "redirectUris": ["\(Self.redirect)"], "user": "alice", "passwordFile": "\(folder)/password",
                            "accessTokenSeconds": \(accessTokenSeconds)}}}
        """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        let serve = try BridgeProcess(
            ["serve", "--config", folder + "/config.json"],
            log: folder + "/serve.log")
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
    func withHome(
        accessTokenSeconds: Int = 2, extra: String = "", httpExtra: String = "", port: Int? = nil,
        _ body: (Home) async throws -> Void
    ) async throws {
        let home = try home(accessTokenSeconds: accessTokenSeconds, extra: extra, httpExtra: httpExtra, port: port)
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

        let z2m = try Zigbee2MQTTEcho(home.broker, device: "Hall light", once: true)
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
        #expect(z2m.received.first?.payloadText == #"{"state":"ON"}"#)
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
        let log = TestFiles.text(atPath: home.folder + "/serve.log")
        #expect(!log.contains(Self.staticToken), "no token in the log")
    }

    @Test("account linking: login page, code for tokens, an expired token 401, refresh, DISCONNECT and the CLI revoke")
    func linking() async throws {
        try await withHome(accessTokenSeconds: 2) { home in try await linking(home) }
    }

    /// The login page and its post: the code Google would get back.
    func linkAccount(_ home: Home) async throws -> (access: String, refresh: String) {
        let query = "client_id=google&redirect_uri=\(Self.redirect)&state=s%201&response_type=code"
        let login = try await send(
            home, .POST, "/oauth/authorize", body: query + "&username=alice&password=correct+horse", form: true)
        #expect(login.status == 302, "\(login.body)")
        let location = try #require(login.headers["location"])
        #expect(location.hasPrefix(Self.redirect + "?code=tbc_") && location.hasSuffix("&state=s%201"), "\(location)")
        let code = try #require(location.split(separator: "code=").last?.split(separator: "&").first)
        let exchange = try await send(
            home, .POST, "/oauth/token",
            body: "grant_type=authorization_code&code=\(code)&redirect_uri=\(Self.redirect)"
                + "&client_id=google&client_secret=client-secret-for-tests", form: true)
        #expect(exchange.status == 200, "\(exchange.body)")
        #expect(exchange.json["token_type"] as? String == "Bearer")
        #expect(exchange.json["expires_in"] as? Int == 2)
        let reused = try await send(
            home, .POST, "/oauth/token",
            body: "grant_type=authorization_code&code=\(code)&client_id=google&client_secret=client-secret-for-tests",
            form: true)
        #expect(reused.status == 400 && reused.json["error"] as? String == "invalid_grant", "a code works once")
        return (
            try #require(exchange.json["access_token"] as? String),
            try #require(exchange.json["refresh_token"] as? String)
        )
    }

    func linking(_ home: Home) async throws {
        let page = try await send(
            home, .GET, "/oauth/authorize?client_id=google&redirect_uri=\(Self.redirect)&state=s%201&response_type=code"
        )
        #expect(
            page.status == 200 && page.body.contains(#"<form method="post""#) && page.body.contains(#"value="s 1""#))
        let evil = try await send(
            home, .GET, "/oauth/authorize?client_id=google&redirect_uri=https://evil.example/&response_type=code")
        #expect(evil.status == 400 && evil.headers["location"] == nil, "never an open redirect")
        let wrong = try await send(
            home, .POST, "/oauth/authorize",
            body: "client_id=google&redirect_uri=\(Self.redirect)&response_type=code&username=alice&password=guess",
            form: true)
        #expect(wrong.status == 401 && wrong.body.contains("wrong user name or password"))
        let badClient = try await send(
            home, .POST, "/oauth/token",
            body: "grant_type=refresh_token&refresh_token=x&client_id=google&client_secret=no",
            form: true)
        #expect(badClient.status == 401 && badClient.json["error"] as? String == "invalid_client")

        let first = try await linkAccount(home)
        let issued = ContinuousClock.now
        let sync = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: first.access)
        #expect(sync.status == 200)
        #expect((sync.json["payload"] as? [String: Any])?["agentUserId"] as? String == "alice")
        try await Task.sleep(until: issued + .milliseconds(2500))
        let expired = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: first.access)
        #expect(expired.status == 401)
        #expect(expired.headers["www-authenticate"]?.contains(#"error_description="expired""#) == true)

        // Refresh, the client authenticating with HTTP Basic this time.
        var refresh = HTTPClientRequest(url: home.base + "/oauth/token")
        refresh.method = .POST
        refresh.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        refresh.headers.add(
            name: "Authorization", value: "Basic " + Data("google:client-secret-for-tests".utf8).base64EncodedString())
        refresh.body = .bytes(ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(first.refresh)"))
        let refreshed = try await home.client.execute(refresh, timeout: .seconds(15))
        let refreshedBody = String(buffer: try await refreshed.body.collect(upTo: 1 << 16))
        #expect(refreshed.status.code == 200, "\(refreshedBody)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(refreshedBody.utf8)) as? [String: Any])
        let access = try #require(object["access_token"] as? String)
        #expect(object["refresh_token"] == nil)
        let query = try await send(
            home, .POST, "/smarthome", body: intent("QUERY", #"{"devices":[{"id":"z2m-0x00158d0001000001"}]}"#),
            token: access)
        #expect(query.status == 200, "\(query.body)")

        let listed = try CommandRunner.run(["cloud", "tokens", "list", "--data-dir", home.folder + "/data"])
        #expect(listed.exitCode == 0, "\(listed.standardError)")
        // The expired access token was dropped when the new one was kept.
        let lines = listed.standardOutput.split(separator: "\n")
        #expect(lines.count == 4 && lines.last == "2 tokens", "\(listed.standardOutput)")
        #expect(lines.dropFirst().first?.hasPrefix("refresh  alice    google  ") == true)
        #expect(lines.dropFirst(2).first?.hasPrefix("access   alice    google  ") == true)
        #expect(!listed.standardOutput.contains(access) && !listed.standardOutput.contains(first.refresh))

        let disconnect = try await send(home, .POST, "/smarthome", body: intent("DISCONNECT"), token: access)
        #expect(disconnect.status == 200 && disconnect.body == "{}")
        let afterDisconnect = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: access)
        #expect(afterDisconnect.status == 401)
        let refreshAfter = try await send(
            home, .POST, "/oauth/token",
            body: "grant_type=refresh_token&refresh_token=\(first.refresh)&client_id=google"
                + "&client_secret=client-secret-for-tests", form: true)
        #expect(refreshAfter.status == 400 && refreshAfter.json["error"] as? String == "invalid_grant")

        let second = try await linkAccount(home)
        #expect(try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: second.access).status == 200)
        let revoked = try CommandRunner.run([
            "cloud", "tokens", "revoke", "--account", "alice", "--data-dir", home.folder + "/data",
        ])
        #expect(
            revoked.standardOutput == "revoked 2 tokens of alice\n", "\(revoked.standardOutput)\(revoked.standardError)"
        )
        #expect(try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: second.access).status == 401)

        let log = TestFiles.text(atPath: home.folder + "/serve.log")
        for secret in [first.access, first.refresh, access, second.access, "client-secret-for-tests", "correct horse"] {
            #expect(!log.contains(secret), "no secret in the log")
        }
    }

    @Test("cloud tokens revoke: its help, exactly; --account or --all, one of them (exit 2 otherwise)")
    func revokeHelp() throws {
        let help = try CommandRunner.run(["cloud", "tokens", "revoke", "--help"], environment: ["COLUMNS": "80"])
        #expect(help.standardOutput == Self.revokeHelp)
        let neither = try CommandRunner.run(["cloud", "tokens", "revoke", "--data-dir", "/nonexistent"])
        #expect(neither.exitCode == 2 && neither.standardError.contains("give --account NAME or --all"))
        let both = try CommandRunner.run(["cloud", "tokens", "revoke", "--all", "--account", "a"])
        #expect(both.exitCode == 2)
    }

    static let revokeHelp = """
        OVERVIEW: Revoke the tokens of one linked account, or of all.

        Access and refresh tokens both go: Google gets 401 at its next request and the
        user must link again. Works while serve runs.

        Examples:
          traitbridge cloud tokens revoke --account alice
          traitbridge cloud tokens revoke --all --data-dir /var/lib/traitbridge

        USAGE: traitbridge cloud tokens revoke [--account <account>] [--all] [--data-dir <data-dir>]

        OPTIONS:
          --account <account>     The account (agentUserId) whose tokens go.
          --all                   Revoke every token.
          --data-dir <data-dir>   Folder of the registry database (default: as serve's).
          --version               Show the version.
          -h, --help              Show help information.


        """
}
