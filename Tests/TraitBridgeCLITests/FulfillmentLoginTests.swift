import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The OAuth login page under a guessing stranger, through a real `serve`: the stranger connects
/// from 127.0.0.2 (Linux routes all of 127/8 to loopback), the owner from 127.0.0.1. The stranger
/// is held back with 429 and `Retry-After`; the owner gets in at once; the health topic and the
/// metrics count both.
extension FulfillmentTests {
    @Test("login: a stranger's wrong passwords hold back the stranger (429, Retry-After), never the owner")
    func loginThrottle() async throws {
        try await withHome { home in try await loginThrottle(home) }
    }

    /// Posts the login form from `source` (a loopback address) with Python's http.client, which can
    /// bind the client's address; the status, the Retry-After header and the body.
    func postLogin(_ home: Home, from source: String, password: String) throws -> (
        status: Int, retry: String, body: String
    ) {
        let port = try #require(home.base.split(separator: ":").last.map(String.init))
        let form =
            "client_id=google&redirect_uri=\(Self.redirect)&response_type=code&state=s&username=alice"
            + "&password=\(password)"
        let script = """
            import http.client, sys
            c = http.client.HTTPConnection("127.0.0.1", \(port), timeout=10, source_address=("\(source)", 0))
            c.request("POST", "/oauth/authorize", sys.argv[1], {"Content-Type": "application/x-www-form-urlencoded"})
            r = c.getresponse()
            print(r.status)
            print(r.getheader("Retry-After") or "-")
            print(r.read().decode())
            """
        let log = home.folder + "/login-\(UUID().uuidString).txt"
        let client = try ChildProcess(["/usr/bin/python3", "-c", script, form], logFile: log)
        #expect(client.reap(within: .seconds(20)))
        let lines = WatchCommandTests.read(log).split(separator: "\n", maxSplits: 2).map(String.init)
        try #require(lines.count >= 2, "\(lines)")
        return (Int(lines[0]) ?? 0, lines[1], lines.count > 2 ? lines[2] : "")
    }

    func loginThrottle(_ home: Home) async throws {
        let health = try TestMQTTClient(home.broker, subscribe: ["traitbridge/bridge/health"])
        for attempt in 0..<4 {
            let wrong = try postLogin(home, from: "127.0.0.2", password: "guess\(attempt)")
            #expect(wrong.status == 401 && wrong.body.contains("wrong user name or password"), "\(wrong)")
        }
        let held = try postLogin(home, from: "127.0.0.2", password: "correct+horse")
        #expect(held.status == 429, "the right password is not even checked while the stranger waits: \(held)")
        #expect(Int(held.retry).map { $0 >= 1 } == true, "Retry-After: \(held.retry)")
        #expect(held.body.contains("too many wrong passwords from here") && held.body.contains("<form"))
        let owner = try postLogin(home, from: "127.0.0.1", password: "correct+horse")
        #expect(owner.status == 302, "the owner is not held back by the stranger: \(owner)")
        let counted = health.waitFor("traitbridge/bridge/health") {
            $0.payloadText.contains(#""logins":{"failed":4,"waited":1}"#)
        }
        #expect(counted != nil, "the health topic counts them: \(health.messages.all.last?.payloadText ?? "")")
        let metrics = try await send(home, .GET, "/metrics").body
        #expect(metrics.contains("traitbridge_login_failures_total 4"), "\(metrics.prefix(600))")
        #expect(metrics.contains("traitbridge_login_waits_total 1"))
        let log = WatchCommandTests.read(home.folder + "/serve.log")
        #expect(log.contains("wrong user name or password on the login page from 127.0.0.2"), "\(log.suffix(800))")
        #expect(!log.contains("guess0"), "nothing typed reaches the log")
    }
}
