import Foundation
import TraitBridgeHTTP
import TraitBridgeJSON

extension ServeConfiguration {
    static let cloudLinkKeys = [
        "name", "url", "tokenFile", "tokenEnv", "pollSeconds", "syncSeconds", "timeoutSeconds", "caFile",
        "pushPublicKeyFile", "pushIssuer",
    ]

    /// A link's name is its devices' source instance: lowercase letters, digits and `-`, not `default`.
    static func isLinkName(_ text: String) -> Bool {
        !text.isEmpty && text != "default" && text.count <= 32
            && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// `cloudLinks`: `[{"name": "b", "url": "https://…/smarthome", "tokenFile": "…"}]`. Names are
    /// the links' source instances: lowercase letters, digits and `-`, unique, not `default`.
    static func parseCloudLinks(_ value: JSON, at: JSONPath, fail: (JSONPath, String) -> ConfigurationError)
        throws(ConfigurationError) -> [CloudLinkSettings]
    {
        guard value.kind == .array else { throw fail(at, "expected a list of {\"name\", \"url\", \"tokenFile\"}") }
        var links: [CloudLinkSettings] = []
        for (index, entry) in value.elements.enumerated() {
            let entryAt = at.appending(index)
            guard entry.kind == .object else {
                throw fail(entryAt, "expected an object with \(cloudLinkKeys.joined(separator: ", "))")
            }
            var name: String?
            var url: String?
            var token: String?
            var numbers: [String: Int] = [:]
            var caFile: String?
            var push: (key: String?, issuer: String?) = (nil, nil)
            for (key, field) in entry.members {
                let fieldAt = entryAt.appending(key)
                switch key {
                case "pollSeconds", "syncSeconds", "timeoutSeconds":
                    guard let number = field.int64, (1...86_400).contains(number) else {
                        throw fail(fieldAt, "expected whole seconds from 1 to 86400")
                    }
                    numbers[key] = Int(number)
                    continue
                default:
                    break
                }
                guard let text = field.string, !text.isEmpty else { throw fail(fieldAt, "expected a non-empty string") }
                switch key {
                case "name":
                    guard isLinkName(text) else {
                        throw fail(fieldAt, "expected up to 32 lowercase letters, digits and -, not 'default'")
                    }
                    guard !links.contains(where: { $0.name == text }) else {
                        throw fail(fieldAt, "another link is named '\(text)'")
                    }
                    name = text
                case "url":
                    guard text.hasPrefix("https://") || text.hasPrefix("http://"), URL(string: text)?.host != nil else {
                        throw fail(fieldAt, "expected the partner's fulfillment URL, https://host/path")
                    }
                    url = text
                case "tokenFile":
                    guard let contents = try? String(contentsOfFile: text, encoding: .utf8) else {
                        throw fail(fieldAt, "cannot read the file '\(text)'")
                    }
                    token = contents.trimmingCharacters(in: .whitespacesAndNewlines)
                case "tokenEnv":
                    guard let variable = ProcessInfo.processInfo.environment[text], !variable.isEmpty else {
                        throw fail(fieldAt, "environment variable \(text) is not set")
                    }
                    token = variable
                case "caFile": caFile = text
                case "pushPublicKeyFile": push.key = text
                case "pushIssuer": push.issuer = text
                default:
                    throw fail(fieldAt, "unknown key '\(key)'; allowed: \(cloudLinkKeys.joined(separator: ", "))")
                }
            }
            guard let name, let url, let token, !token.isEmpty else {
                throw fail(entryAt, "a cloud link needs name, url and tokenFile (or tokenEnv)")
            }
            var link = CloudLinkSettings(name: name, url: url, token: token)
            link.caFile = caFile
            link.pushPublicKeyFile = push.key
            link.pushIssuer = push.issuer
            if let seconds = numbers["pollSeconds"] { link.pollInterval = .seconds(seconds) }
            if let seconds = numbers["syncSeconds"] { link.syncInterval = .seconds(seconds) }
            if let seconds = numbers["timeoutSeconds"] { link.timeout = .seconds(seconds) }
            links.append(link)
        }
        return links
    }
}
