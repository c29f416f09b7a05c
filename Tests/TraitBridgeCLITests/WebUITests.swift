import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The web UI over HTTP, on a real `serve` and a real client: sign-in (the owner's password of
/// `http.oauth`, throttled), the session cookie's attributes, the pages, the API with the cookie
/// and its CSRF token, names escaped, signing out. (The browser's view: WebUIBrowserTests.)
extension FulfillmentTests {
    @Test("web UI: password sign-in, HttpOnly SameSite cookie, CSRF on writes, escaped names, sign-out, throttle")
    func webUI() async throws {
        try await withHome { home in try await webUI(home) }
    }

    /// A request with headers of our choosing (cookie, origin, CSRF token).
    func call(
        _ home: Home, _ method: HTTPMethod, _ path: String, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: home.base + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await home.client.execute(request, timeout: .seconds(15))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        var fields: [String: String] = [:]
        for header in response.headers { fields[header.name.lowercased()] = header.value }
        return Answer(status: Int(response.status.code), headers: fields, body: String(buffer: bytes))
    }

    func webUI(_ home: Home) async throws {
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        let anonymous = try await call(home, .GET, "/ui/")
        #expect(anonymous.status == 303 && anonymous.headers["location"] == "/ui/login")
        let page = try await call(home, .GET, "/ui/login")
        #expect(page.status == 200 && page.body.contains(#"name="password""#))
        #expect(page.headers["content-security-policy"]?.contains("default-src 'none'") == true)

        let foreign = try await call(
            home, .POST, "/ui/login", body: "username=alice&password=correct+horse",
            headers: [form, ("Origin", "http://evil.example")])
        #expect(foreign.status == 403 && foreign.headers["set-cookie"] == nil, "a form posted from another site")
        let wrong = try await call(home, .POST, "/ui/login", body: "username=alice&password=nope", headers: [form])
        #expect(wrong.status == 401 && wrong.body.contains("wrong user name or password"))
        #expect(wrong.headers["set-cookie"] == nil)
        let right = try await call(
            home, .POST, "/ui/login", body: "username=alice&password=correct+horse",
            headers: [form, ("Origin", home.base)])
        #expect(right.status == 303 && right.headers["location"] == "/ui/", "\(right.status) \(right.body)")
        let setCookie = right.headers["set-cookie"] ?? ""
        for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] {
            #expect(setCookie.contains(attribute), "\(setCookie)")
        }
        let value = try #require(setCookie.split(separator: ";").first.map(String.init))
        let cookie = ("Cookie", value)

        let devices = try await call(home, .GET, "/ui/", headers: [cookie])
        #expect(devices.status == 200 && devices.body.contains("Hall light"), "\(devices.body.prefix(500))")
        #expect(devices.body.contains(#"id="card-z2m-0x00158d0001000003""#), "the Relay's card")
        #expect(devices.body.contains("said offline"), "the offline Relay says why")
        let csrf = try #require(
            devices.body.firstMatch(of: /name="csrf-token" content="(tbx_[0-9a-f]+)"/).map { String($0.1) })
        let device = try await call(home, .GET, "/ui/devices/Hall%20light", headers: [cookie])
        #expect(device.status == 200 && device.body.contains("matter.LevelControl") && device.body.contains("max"))
        let homePage = try await call(home, .GET, "/ui/home", headers: [cookie])
        #expect(homePage.status == 200 && homePage.body.contains(#"<div id="home-sections"><section><h2>Zones"#))
        let sections = try await call(home, .GET, "/ui/home/sections", headers: [cookie])
        #expect(sections.status == 200 && sections.body.hasPrefix("<section><h2>Zones</h2>"), "what the page redraws")
        let noSession = try await call(home, .GET, "/ui/home/sections")
        #expect(noSession.status == 303, "not without a session")

        // The API with the session: reads as they are, writes only with the page's CSRF token.
        let list = try await call(home, .GET, "/api/v1/devices", headers: [cookie])
        #expect(list.status == 200 && (list.json["devices"] as? [Any])?.count == 3)
        let json = ("Content-Type", "application/json")
        let command = #"{"trait":"matter.OnOff","command":"on"}"#
        let forged = try await call(
            home, .POST, "/api/v1/devices/Hall%20light/commands", body: command, headers: [cookie, json])
        #expect(forged.status == 403 && forged.json["title"] as? String == "missing CSRF token", "\(forged.body)")
        let z2m = try Zigbee2MQTTEcho(home.broker, device: "Hall light", once: true)
        defer { z2m.stop() }
        let sent = try await call(
            home, .POST, "/api/v1/devices/Hall%20light/commands", body: command,
            headers: [cookie, json, ("X-CSRF-Token", csrf)])
        #expect(sent.status == 200 && sent.json["status"] as? String == "confirmed", "\(sent.body)")
        #expect(z2m.received.count == 1, "only the command with the token reached the device")

        // A name is text, never markup.
        let hostile = #"<img src=x onerror=alert(1)>"#
        let renamed = try await send(
            home, .POST, "/api/v1/requests/rename",
            body: #"{"device":"z2m-0x00158d0001000003","name":"\#(hostile)"}"#, token: Self.adminToken)
        #expect(renamed.status == 200, "\(renamed.body)")
        let escaped = try await call(home, .GET, "/ui/", headers: [cookie])
        #expect(!escaped.body.contains(hostile) && escaped.body.contains("&lt;img src=x"), "escaped")
        let card = try await call(home, .GET, "/ui/cards/z2m-0x00158d0001000003", headers: [cookie])
        #expect(card.status == 200 && card.body.hasPrefix("<article") && !card.body.contains(hostile))

        // Signing out ends the session for good.
        let out = try await call(home, .POST, "/ui/logout", headers: [cookie, ("Origin", home.base)])
        #expect(out.status == 303 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let after = try await call(home, .GET, "/ui/", headers: [cookie])
        #expect(after.status == 303, "the old cookie no longer signs in")
        let afterAPI = try await call(home, .GET, "/api/v1/devices", headers: [cookie])
        #expect(afterAPI.status == 401)

        // Guessing is slowed down for this address, never locked for everyone.
        var statuses: [Int] = []
        for _ in 0..<6 {
            let guess = try await call(home, .POST, "/ui/login", body: "username=alice&password=guess", headers: [form])
            statuses.append(guess.status)
            if guess.status == 429 { #expect(guess.headers["retry-after"] != nil) }
        }
        #expect(statuses.contains(429), "held back after a few failures: \(statuses)")
        let observer = try TestMQTTClient(home.broker, subscribe: ["traitbridge/bridge/health"])
        let failed = statuses.filter { $0 == 401 }.count + 1  // and the first wrong password
        #expect(
            observer.waitFor("traitbridge/bridge/health") {
                $0.payloadText.contains(#""logins":{"failed":\#(failed),"#)
            }
                != nil, "the failures are counted on the health topic")
    }
}
