import Foundation
import TraitBridgeCloud
import TraitBridgeHTTP
import TraitBridgeJSON

extension ServeConfiguration {
    static let httpKeys = [
        "listen", "publicUrl", "tls", "bearerTokensFile", "agentUserId", "oauth", "homeGraph", "maxBodyBytes",
        "changeHistory", "stalledClientSeconds", "challenge", "iceServers",
    ]
    static let homeGraphKeys = ["serviceAccountKeyFile", "url", "batchMilliseconds", "requestSyncDelaySeconds"]
    static let oauthKeys = [
        "clientId", "clientSecretFile", "clientSecretEnv", "redirectUris", "user", "passwordFile", "passwordEnv",
        "accessTokenSeconds",
    ]

    /// The `http` section: the fulfillment endpoint and account linking. Secrets come from files
    /// or environment variables, never from the config file itself.
    static func parseHTTP(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> FulfillmentSettings
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object {\(httpKeys.map { "\"\($0)\"" }.joined(separator: ", "))}")
        }
        var settings = FulfillmentSettings()
        for (key, field) in value.members {
            let fieldAt = at.appending(key)
            func string() throws(ConfigurationError) -> String {
                guard let text = field.string, !text.isEmpty else { throw fail(fieldAt, "expected a non-empty string") }
                return text
            }
            switch key {
            case "listen":
                let text = try string()
                guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                    (0...65535).contains(port), colon != text.startIndex
                else { throw fail(fieldAt, "expected HOST:PORT such as \"127.0.0.1:8080\" (port 0: any free port)") }
                settings.host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
                settings.port = port
            case "publicUrl":
                let text = try string()
                guard text.hasPrefix("https://") || text.hasPrefix("http://") else {
                    throw fail(fieldAt, "expected an https:// URL (Google calls only https)")
                }
                settings.publicURL = text.hasSuffix("/") ? String(text.dropLast()) : text
            case "tls":
                guard field.kind == .object else { throw fail(fieldAt, "expected {\"certFile\": …, \"keyFile\": …}") }
                for (tlsKey, tlsValue) in field.members {
                    guard let path = tlsValue.string else {
                        throw fail(fieldAt.appending(tlsKey), "expected a file path")
                    }
                    switch tlsKey {
                    case "certFile": settings.tlsCertificateFile = path
                    case "keyFile": settings.tlsKeyFile = path
                    default:
                        throw fail(fieldAt.appending(tlsKey), "unknown key '\(tlsKey)'; allowed: certFile, keyFile")
                    }
                }
                guard (settings.tlsCertificateFile == nil) == (settings.tlsKeyFile == nil) else {
                    throw fail(fieldAt, "give both certFile and keyFile, or neither")
                }
            case "bearerTokensFile": settings.bearerTokensFile = try string()
            case "agentUserId": settings.defaultAgentUserID = try string()
            case "maxBodyBytes":
                settings.maxBodyBytes = try wholeNumber(field, 1024...(64 << 20), "bytes", at: fieldAt, fail: fail)
            case "changeHistory":
                settings.changeHistory = try wholeNumber(
                    field, 16...1_000_000, "device changes", at: fieldAt, fail: fail)
            case "stalledClientSeconds":
                settings.stalledClientSeconds = try wholeNumber(field, 5...3600, "seconds", at: fieldAt, fail: fail)
            case "oauth":
                settings.oauth = try parseOAuth(field, at: fieldAt, fail: fail)
            case "homeGraph":
                settings.homeGraph = try parseHomeGraph(field, at: fieldAt, fail: fail)
            case "challenge":
                settings.challenge = try parseChallenge(field, at: fieldAt, fail: fail)
            case "iceServers":
                settings.iceServers = try parseIceServers(field, at: fieldAt, fail: fail)
            default:
                throw fail(fieldAt, "unknown key '\(key)'; allowed: \(httpKeys.joined(separator: ", "))")
            }
        }
        return settings
    }

    /// A whole number of `unit` within `range`, or the error that says so.
    static func wholeNumber(
        _ field: JSON, _ range: ClosedRange<Int64>, _ unit: String, at: JSONPath,
        fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) -> Int {
        guard let number = field.int64, range.contains(number) else {
            throw fail(at, "expected a whole number of \(unit) from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int(clamping: number)
    }

    /// `include` and `exclude` given among a section's other keys (HomeKit's, the Matter bridge's), as
    /// `parseExport` reads them in `export`.
    static func parseExport(
        members: [(String, JSON)], at: JSONPath, fail: (JSONPath, String) -> ConfigurationError
    ) throws(ConfigurationError) -> ExportRules {
        var rules = JSONObject()
        for (key, member) in members { rules[key] = member.value }
        let document: JSONDocument
        do { document = try JSONDocument.parse(JSONValue.object(rules).serializedBytes()) } catch {
            throw fail(at, "include/exclude: \(error.reason)")
        }
        return try parseExport(document.root, at: at, fail: fail)
    }

    /// `export`: `{"include": {"ids", "rooms", "types"}, "exclude": {…}}`, each a list of strings.
    static func parseExport(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> ExportRules
    {
        guard value.kind == .object else {
            throw fail(at, #"expected {"include": {"rooms": [...]}, "exclude": {"ids": [...], "types": [...]}}"#)
        }
        var rules = ExportRules()
        for (part, match) in value.members {
            let partAt = at.appending(part)
            guard part == "include" || part == "exclude" else {
                throw fail(partAt, "unknown key '\(part)'; allowed: include, exclude")
            }
            let rule = try parseMatch(match, at: partAt, fail: fail)
            if part == "include" { rules.include = rule } else { rules.exclude = rule }
        }
        return rules
    }

    /// `{"ids": [...], "rooms": [...], "types": [...]}`: which devices a rule names.
    static func parseMatch(_ match: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> ExportRules.Match
    {
        guard match.kind == .object else { throw fail(at, "expected an object with ids, rooms, types") }
        var lists: [String: Set<String>] = [:]
        for (key, list) in match.members {
            let listAt = at.appending(key)
            guard ["ids", "rooms", "types"].contains(key) else {
                throw fail(listAt, "unknown key '\(key)'; allowed: ids, rooms, types")
            }
            guard list.kind == .array else { throw fail(listAt, "expected a list of strings") }
            for (index, element) in list.elements.enumerated() {
                guard let text = element.string, !text.isEmpty else {
                    throw fail(listAt.appending(index), "expected a non-empty string")
                }
                lists[key, default: []].insert(text)
            }
        }
        return ExportRules.Match(ids: lists["ids"] ?? [], rooms: lists["rooms"] ?? [], types: lists["types"] ?? [])
    }

    /// `http.homeGraph`: Report State and Request Sync with a service-account key.
    static func parseHomeGraph(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> HomeGraphSettings
    {
        guard value.kind == .object, let key = value["serviceAccountKeyFile"]?.string, !key.isEmpty else {
            throw fail(at, "expected {\"serviceAccountKeyFile\": \"…json\"} (the key file of a Google service account)")
        }
        var settings = HomeGraphSettings(serviceAccountKeyFile: key)
        for (name, field) in value.members {
            let fieldAt = at.appending(name)
            switch name {
            case "serviceAccountKeyFile": break
            case "url":
                guard let url = field.string, url.hasPrefix("https://") || url.hasPrefix("http://") else {
                    throw fail(fieldAt, "expected Home Graph's base URL, such as \"https://homegraph.googleapis.com\"")
                }
                settings.baseURL = url.hasSuffix("/") ? String(url.dropLast()) : url
            case "batchMilliseconds":
                guard let number = field.int64, (10...60_000).contains(number) else {
                    throw fail(fieldAt, "expected whole milliseconds from 10 to 60000")
                }
                settings.batch = .milliseconds(number)
            case "requestSyncDelaySeconds":
                guard let number = field.int64, (0...3600).contains(number) else {
                    throw fail(fieldAt, "expected whole seconds from 0 to 3600")
                }
                settings.syncDelay = .seconds(number)
            default:
                throw fail(fieldAt, "unknown key '\(name)'; allowed: \(homeGraphKeys.joined(separator: ", "))")
            }
        }
        return settings
    }

    static func parseOAuth(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> OAuthSettings
    {
        guard value.kind == .object else {
            throw fail(at, "expected an object with \(oauthKeys.joined(separator: ", "))")
        }
        var clientID: String?
        var secret: String?
        var redirects: [String] = []
        var user: String?
        var password: String?
        var lifetime: Int?
        for (key, field) in value.members {
            let fieldAt = at.appending(key)
            guard let text = field.string, !text.isEmpty else {
                if key == "redirectUris", field.kind == .array {
                    for (index, element) in field.elements.enumerated() {
                        guard let uri = element.string, uri.hasPrefix("https://") || uri.hasPrefix("http://") else {
                            throw fail(fieldAt.appending(index), "expected an https:// URL")
                        }
                        redirects.append(uri)
                    }
                    continue
                }
                if key == "accessTokenSeconds", let seconds = field.int64, (1...86_400).contains(seconds) {
                    lifetime = Int(seconds)
                    continue
                }
                throw fail(
                    fieldAt,
                    key == "accessTokenSeconds"
                        ? "expected whole seconds from 1 to 86400"
                        : key == "redirectUris" ? "expected a list of URLs" : "expected a non-empty string")
            }
            switch key {
            case "clientId": clientID = text
            case "user": user = text
            case "clientSecretFile", "passwordFile":
                guard let contents = try? String(contentsOfFile: text, encoding: .utf8) else {
                    throw fail(fieldAt, "cannot read the file '\(text)'")
                }
                let trimmed = contents.trimmingCharacters(in: .whitespacesAndNewlines)
                if key == "clientSecretFile" { secret = trimmed } else { password = trimmed }
            case "clientSecretEnv", "passwordEnv":
                guard let variable = ProcessInfo.processInfo.environment[text], !variable.isEmpty else {
                    throw fail(fieldAt, "environment variable \(text) is not set")
                }
                if key == "clientSecretEnv" { secret = variable } else { password = variable }
            default:
                throw fail(fieldAt, "unknown key '\(key)'; allowed: \(oauthKeys.joined(separator: ", "))")
            }
        }
        guard let clientID, let secret, let user, let password, !redirects.isEmpty else {
            throw fail(
                at,
                "account linking needs clientId, clientSecretFile (or clientSecretEnv), redirectUris, user and passwordFile (or passwordEnv)"
            )
        }
        var oauth = OAuthSettings(
            clientID: clientID, clientSecret: secret, redirectURIs: redirects, user: user, password: password)
        if let lifetime { oauth.accessTokenLifetime = .seconds(lifetime) }
        return oauth
    }

    /// `http.iceServers`: the ICE servers a camera's live view hands out (RTCIceServer objects:
    /// `urls`, and `username` / `credential` for TURN), kept as JSON text; none by default.
    static func parseIceServers(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> String
    {
        let shape = #"expected [{"urls": "stun:host:port"}, {"urls": ["turn:…"], "username": …, "credential": …}]"#
            .description
        guard value.kind == .array, value.elements.count <= 16 else { throw fail(at, shape + " (at most 16)") }
        for (index, server) in value.elements.enumerated() {
            let serverAt = at.appending(index)
            guard server.kind == .object else { throw fail(serverAt, shape) }
            for (key, field) in server.members {
                switch key {
                case "urls":
                    let urls =
                        field.kind == .array ? field.elements.compactMap(\.string) : field.string.map { [$0] } ?? []
                    let schemes = ["stun:", "stuns:", "turn:", "turns:"]
                    guard !urls.isEmpty, urls.count == max(1, field.elements.count),
                        urls.allSatisfy({ url in schemes.contains { url.hasPrefix($0) } })
                    else { throw fail(serverAt.appending(key), "expected stun:, stuns:, turn: or turns: URLs") }
                case "username", "credential":
                    guard field.string != nil else { throw fail(serverAt.appending(key), "expected a string") }
                default:
                    throw fail(serverAt.appending(key), "unknown key '\(key)'; allowed: urls, username, credential")
                }
            }
            guard server["urls"] != nil else { throw fail(serverAt, "each ICE server needs 'urls'") }
        }
        return String(decoding: value.value.serializedBytes(), as: UTF8.self)
    }
}
