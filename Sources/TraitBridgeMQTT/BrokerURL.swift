/// Where the broker is and how to reach it: `mqtt://[user[:pass]@]host[:port]` or `mqtts://…`.
///
/// The password never appears in ``description`` (logs print `mqtt://user:***@host:1883`).
public struct BrokerURL: Sendable, Hashable, CustomStringConvertible {
    public var isTLS: Bool
    public var host: String
    public var port: Int
    public var username: String?
    public var password: String?

    /// Parses a broker URL; the error says what form is expected.
    public init(_ text: String) throws(MQTTError) {
        let scheme: String
        let rest: Substring
        if let separator = Self.schemeSeparator(in: text) {
            scheme = text[..<separator.lowerBound].lowercased()
            rest = text[separator.upperBound...]
        } else {
            throw .invalidURL(Self.redacting(text), reason: "missing scheme; write mqtt://host:1883 or mqtts://host:8883")
        }
        switch scheme {
        case "mqtt", "tcp": isTLS = false
        case "mqtts", "ssl", "tls": isTLS = true
        default: throw .invalidURL(Self.redacting(text), reason: "unknown scheme '\(scheme)'; use mqtt:// or mqtts://")
        }
        var hostPart = rest
        if let slash = hostPart.firstIndex(of: "/") { hostPart = hostPart[..<slash] }
        if let at = hostPart.lastIndex(of: "@") {
            let userInfo = hostPart[..<at]
            hostPart = hostPart[hostPart.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                username = Self.percentDecoded(userInfo[..<colon])
                password = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            } else {
                username = Self.percentDecoded(userInfo)
            }
        }
        var portText: Substring?
        if hostPart.hasPrefix("["), let close = hostPart.firstIndex(of: "]") {  // [::1]:1883
            host = String(hostPart[hostPart.index(after: hostPart.startIndex)..<close])
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = hostPart.lastIndex(of: ":") {
            host = String(hostPart[..<colon])
            portText = hostPart[hostPart.index(after: colon)...]
        } else {
            host = String(hostPart)
        }
        guard !host.isEmpty else { throw .invalidURL(Self.redacting(text), reason: "missing host") }
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw .invalidURL(Self.redacting(text), reason: "port '\(portText)' is not a number from 1 to 65535")
            }
            port = value
        } else {
            port = isTLS ? 8883 : 1883
        }
    }

    /// A URL as typed, with the password of its user part masked (`mqtt://u:***@h`), for messages
    /// about a URL that may not even parse. Nothing after the scheme's `//` and before the last
    /// `@` of the authority is shown past the first `:`.
    public static func redacting(_ text: String) -> String {
        guard let separator = schemeSeparator(in: text) else {
            // No scheme: mask anything that looks like user:password@ at the start.
            guard let at = text.lastIndex(of: "@"), let colon = text[..<at].firstIndex(of: ":") else { return text }
            return String(text[...colon]) + "***" + String(text[at...])
        }
        let authorityEnd = text[separator.upperBound...].firstIndex(of: "/") ?? text.endIndex
        let authority = text[separator.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<authority.index(after: colon)]) + "***" + String(text[at...])
    }

    /// The URL with the password masked.
    public var description: String {
        var text = isTLS ? "mqtts://" : "mqtt://"
        if let username {
            text += username
            if password != nil { text += ":***" }
            text += "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        return text + ":\(port)"
    }

    /// Whether the host is loopback or a private address (the default locality is then `localPeer`).
    public var isLocalNetwork: Bool {
        if host == "localhost" || host == "::1" || host.hasPrefix("127.") { return true }
        let octets = host.split(separator: ".").compactMap { Int($0) }
        guard octets.count == 4 else { return host.hasSuffix(".local") || host.lowercased().hasPrefix("fd") }
        return octets[0] == 10 || (octets[0] == 172 && (16...31).contains(octets[1])) || (octets[0] == 192 && octets[1] == 168)
    }

    private static func schemeSeparator(in text: String) -> Range<String.Index>? {
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("://") { return index..<text.index(index, offsetBy: 3) }
            index = text.index(after: index)
        }
        return nil
    }

    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            if text[index] == "%", let end = text.index(index, offsetBy: 3, limitedBy: text.endIndex),
                let value = UInt8(text[text.index(after: index)..<end], radix: 16)
            {
                bytes.append(value)
                index = end
            } else {
                bytes.append(contentsOf: Array(String(text[index]).utf8))
                index = text.index(after: index)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
