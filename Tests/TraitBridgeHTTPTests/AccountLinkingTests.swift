import Foundation
import Testing
import TraitBridgeStore

@testable import TraitBridgeHTTP

/// Account linking as logic: a real registry in a temporary folder, time passed in.
@Suite("account linking")
struct AccountLinkingTests {
    static let redirect = "https://oauth-redirect.googleusercontent.com/r/project"

    func linking(_ folder: String, tokens: StaticTokens = StaticTokens()) throws -> AccountLinking {
        var oauth = OAuthSettings(
            clientID: "google", clientSecret: "s3cret", redirectURIs: [Self.redirect], user: "alice", password: "pw")
        oauth.accessTokenLifetime = .seconds(60)
        return AccountLinking(oauth: oauth, staticTokens: tokens, store: try DeviceStore(directory: folder))
    }

    func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-linking-\(UUID().uuidString)").path
    }

    func form(_ text: String) -> FormFields { FormFields(Array(text.utf8)) }

    /// Logs in and exchanges the code; the token answer's fields by name.
    func link(_ linking: AccountLinking, now: Date) throws -> [String: String] {
        let location = try linking.login(
            form(
                "client_id=google&redirect_uri=\(Self.redirect)&response_type=code&state=x&username=alice&password=pw"),
            client: "127.0.0.1", now: now
        ).get()
        let code = String(try #require(location.split(separator: "code=").last?.split(separator: "&").first))
        let answer = linking.token(
            form("grant_type=authorization_code&code=\(code)&client_id=google&client_secret=s3cret"), basic: nil,
            now: now)
        #expect(answer.status == 200)
        var fields: [String: String] = [:]
        for (name, value) in answer.fields { if case .text(let text) = value { fields[name] = text } }
        return fields
    }

    @Test("a stranger's wrong passwords hold back only the stranger: the owner elsewhere gets in at once")
    func strangerCannotLockOut() throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let linking = try linking(folder)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let query = "client_id=google&redirect_uri=\(Self.redirect)&response_type=code&state=x&username=alice"
        // Three free failures, then a wait that doubles: 1 s after the fourth, 2 s after the fifth.
        for attempt in 0..<5 {
            let wrong = linking.login(
                form(query + "&password=guess\(attempt)"), client: "203.0.113.9", now: start + Double(attempt * 10))
            guard case .failure(let error) = wrong else { throw Failure("a wrong password got in") }
            #expect(error.retryAfter == nil && error.message == "wrong user name or password", "\(error.message)")
        }
        let held = linking.login(form(query + "&password=pw"), client: "203.0.113.9", now: start + 41)
        guard case .failure(let error) = held else { throw Failure("the stranger's address was not held back") }
        #expect(error.retryAfter == 1, "2 s after the fifth failure at 40 s: 1 s left")
        #expect(error.message == "too many wrong passwords from here; try again in 1 seconds")
        #expect(error.isLoginFailure, "the form is shown again")
        // The owner, from another address, is not held back at all.
        #expect((try? linking.login(form(query + "&password=pw"), client: "192.0.2.1", now: start + 41).get()) != nil)
        // Once the wait has passed, the right password gets in from the stranger's address too.
        #expect((try? linking.login(form(query + "&password=pw"), client: "203.0.113.9", now: start + 43).get()) != nil)
        let counts = linking.loginCounts
        #expect(counts.failed == 5 && counts.waited == 1, "\(counts)")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("an access token works until it expires; a refresh token is not an access token, nor the reverse")
    func lifetimes() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let linking = try linking(path)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let tokens = try link(linking, now: now)
        let access = try #require(tokens["access_token"])
        let refresh = try #require(tokens["refresh_token"])
        #expect(access.hasPrefix("tba_") && access.count == 68 && refresh.hasPrefix("tbr_"))
        #expect(linking.authenticate("Bearer \(access)", now: now + 59) == .success("alice"))
        #expect(
            linking.authenticate("bearer \(access)", now: now + 1) == .success("alice"),
            "the scheme is case-insensitive")
        #expect(linking.authenticate("Bearer \(access)", now: now + 60) == .failure(.expired))
        #expect(linking.authenticate("Bearer \(refresh)", now: now) == .failure(.unknown))
        #expect(linking.authenticate("Basic \(access)", now: now) == .failure(.malformed))
        #expect(linking.authenticate(nil, now: now) == .failure(.missing))
        let misuse = linking.token(
            form("grant_type=refresh_token&refresh_token=\(access)&client_id=google&client_secret=s3cret"), basic: nil,
            now: now)
        #expect(misuse.status == 400, "an access token buys nothing at the token endpoint")
        let renewed = linking.token(
            form("grant_type=refresh_token&refresh_token=\(refresh)"), basic: ("google", "s3cret"), now: now + 3600)
        #expect(renewed.status == 200)
        // Only hashes are on disk.
        let stored = try DeviceStore(directory: path).tokens()
        #expect(stored.count == 2, "the expired access token was dropped when the new one was kept")
        #expect(stored.allSatisfy { $0.hash.count == 64 && $0.hash != access && $0.hash != refresh })
    }

    @Test("a code works once, for ten minutes, for the client and redirect it was made for")
    func codes() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let linking = try linking(path)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let request = "client_id=google&redirect_uri=\(Self.redirect)&response_type=code&username=alice&password=pw"
        func code() throws -> String {
            let location = try linking.login(form(request), client: "127.0.0.1", now: now).get()
            return String(try #require(location.split(separator: "code=").last?.split(separator: "&").first))
        }
        let late = linking.token(
            form("grant_type=authorization_code&code=\(try code())&client_id=google&client_secret=s3cret"), basic: nil,
            now: now + 601)
        #expect(late.status == 400 && late.fields.first?.1 == .text("invalid_grant"))
        let otherRedirect = linking.token(
            form(
                "grant_type=authorization_code&code=\(try code())&redirect_uri=https://evil.example/"
                    + "&client_id=google&client_secret=s3cret"), basic: nil, now: now)
        #expect(otherRedirect.status == 400)
        let wrongSecret = linking.token(
            form("grant_type=authorization_code&code=\(try code())&client_id=google&client_secret=guess"), basic: nil,
            now: now)
        #expect(wrongSecret.status == 401 && wrongSecret.fields.first?.1 == .text("invalid_client"))
        #expect(throws: LinkingPageError.self) {
            try linking.login(
                form(request.replacingOccurrences(of: "password=pw", with: "password=PW")), client: "127.0.0.1",
                now: now
            )
            .get()
        }
        #expect(throws: LinkingPageError.self) {
            try linking.login(
                form(request.replacingOccurrences(of: "client_id=google", with: "client_id=other")),
                client: "127.0.0.1", now: now
            )
            .get()
        }
    }

    @Test("DISCONNECT revokes every token of the account, and only of that account")
    func disconnect() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let linking = try linking(path)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let tokens = try link(linking, now: now)
        let store = try DeviceStore(directory: path)
        try store.saveToken(
            LinkingToken(
                hash: Secrets.hash("other"), kind: .access, agentUserID: "bob", clientID: "google", createdAt: now,
                expiresAt: nil), now: now)
        #expect(linking.linkedAccounts(now: now) == ["alice"], "bob holds an access token only: not linked")
        #expect(try linking.disconnect(agentUserID: "alice") == 2)
        #expect(linking.linkedAccounts(now: now).isEmpty, "Report State stops for a disconnected account")
        #expect(linking.authenticate("Bearer \(tokens["access_token"] ?? "")", now: now) == .failure(.unknown))
        #expect(linking.authenticate("Bearer other", now: now) == .success("bob"))
    }

    @Test("static tokens: comments, a default account, and a short token refused with file:line")
    func staticTokens() throws {
        let tokens = try StaticTokens(
            text: "# for scripts\n\n0123456789abcdef0123\n  fedcba9876543210fedc  carol \n", path: "tokens",
            defaultAgentUserID: "home")
        #expect(tokens.count == 2)
        let linking = AccountLinking(oauth: nil, staticTokens: tokens, store: nil)
        #expect(linking.authenticate("Bearer 0123456789abcdef0123", now: Date()) == .success("home"))
        #expect(linking.authenticate("Bearer fedcba9876543210fedc", now: Date()) == .success("carol"))
        #expect(throws: FulfillmentSetupError.self) {
            try StaticTokens(text: "ok-token-0123456789\nshort\n", path: "tokens", defaultAgentUserID: "home")
        }
        do {
            _ = try StaticTokens(text: "ok-token-0123456789\nshort\n", path: "tokens", defaultAgentUserID: "home")
        } catch {
            #expect(error.description.hasPrefix("tokens:2: a token must have at least 16 characters"))
        }
        // A third field is the token's role: control when not given; an unknown one names the line.
        let roles = try StaticTokens(
            text: "viewer-token-0123456789 panel viewer\nadmin-token-0123456789 me admin\nplain-token-0123456789\n",
            path: "tokens", defaultAgentUserID: "home")
        let withRoles = AccountLinking(oauth: nil, staticTokens: roles, store: nil)
        #expect(withRoles.role("Bearer viewer-token-0123456789", now: Date()) == .success(.viewer))
        #expect(withRoles.role("Bearer admin-token-0123456789", now: Date()) == .success(.admin))
        #expect(withRoles.role("Bearer plain-token-0123456789", now: Date()) == .success(.control))
        #expect(withRoles.role("Bearer unknown-token-0123456789", now: Date()) == .failure(.unknown))
        do {
            _ = try StaticTokens(text: "ok-token-0123456789 me owner\n", path: "tokens", defaultAgentUserID: "home")
            Issue.record("an unknown role was taken")
        } catch {
            #expect(error.description.hasPrefix("tokens:1: unknown role 'owner'"), "\(error.description)")
        }
    }
}

@Suite("form fields")
struct FormFieldsTests {
    @Test("percent escapes, + as space, a broken escape kept, empty values, a bound on the count")
    func decoding() {
        let fields = FormFields(Array("a=1&b=x%20y+z&c=%zz%4&d&e=%E2%9C%93&a=2".utf8))
        #expect(fields["a"] == "1")
        #expect(fields["b"] == "x y z")
        #expect(fields["c"] == "%zz%4")
        #expect(fields["d"] == "")
        #expect(fields["e"] == "✓")
        let many = FormFields(Array((0..<1000).map { "k\($0)=v" }.joined(separator: "&").utf8))
        #expect(many.pairs.count == FormFields.maxFields)
        #expect(FormFields.encode("s 1/é") == "s%201%2F%C3%A9")
    }
}
