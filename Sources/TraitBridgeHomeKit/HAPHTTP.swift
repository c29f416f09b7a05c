import Foundation

/// One HTTP/1.1 request of a HAP connection: method, path, query and body. HAP speaks a plain
/// subset of HTTP over its own framing, so the reader is ours: bounded, no chunked bodies.
public struct HAPRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var body: [UInt8]
}

/// Reads requests out of a connection's (decrypted) bytes, bounded in head and body size.
public struct HAPRequestReader: Sendable {
    public static let headLimit = 8 * 1024
    public static let bodyLimit = 256 * 1024
    private var buffer: [UInt8] = []
    /// How far the buffer was searched for the head's end without finding it: each byte is looked at
    /// about once, however the head is cut into pieces.
    private var searched = 0
    /// The head of the request whose body is still coming.
    private var head: Head?

    /// Why the bytes are not a request this server takes; the connection answers 400 and closes.
    public enum ReadError: Error, Equatable, CustomStringConvertible {
        case headTooLong
        case bodyTooLong(Int)
        case malformed(String)

        public var description: String {
            switch self {
            case .headTooLong: "a request's head is over \(HAPRequestReader.headLimit) bytes"
            case .bodyTooLong(let length): "a body of \(length) bytes is over \(HAPRequestReader.bodyLimit)"
            case .malformed(let what): "not an HTTP/1.1 request: \(what)"
            }
        }
    }

    public init() {}

    /// Every whole request in what came so far; a partial one waits for more bytes.
    public mutating func feed(_ bytes: [UInt8]) throws(ReadError) -> [HAPRequest] {
        append(bytes)
        var requests: [HAPRequest] = []
        while let request = try next() { requests.append(request) }
        return requests
    }

    /// Keeps `bytes` for `next`.
    public mutating func append(_ bytes: [UInt8]) { buffer.append(contentsOf: bytes) }

    /// The bytes not taken as a request yet, taken out (after pair-verify they are frames, not HTTP).
    public mutating func takeRest() -> [UInt8] {
        defer { (buffer, searched, head) = ([], 0, nil) }
        return buffer
    }

    /// The first whole request kept, taken out; nil while it is partial.
    public mutating func next() throws(ReadError) -> HAPRequest? {
        if head == nil {
            guard let end = Self.headEnd(buffer, from: searched) else {
                if buffer.count > Self.headLimit { throw .headTooLong }
                searched = max(0, buffer.count - 3)
                return nil
            }
            head = try Self.parseHead(buffer[..<end])
        }
        guard let parsed = head, buffer.count >= parsed.size + parsed.length else { return nil }
        let body = Array(buffer[parsed.size..<(parsed.size + parsed.length)])
        buffer.removeFirst(parsed.size + parsed.length)
        (head, searched) = (nil, 0)
        let (path, query) = Self.split(parsed.target)
        return HAPRequest(method: parsed.method, path: path, query: query, body: body)
    }

    /// A request's head, read once while its body is still coming.
    private struct Head: Sendable {
        var method: String
        var target: String
        var length: Int
        /// The head's bytes with its blank line.
        var size: Int
    }

    private static func parseHead(_ bytes: ArraySlice<UInt8>) throws(ReadError) -> Head {
        let head = String(decoding: bytes, as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            throw .malformed("request line \"\(lines.first?.prefix(80) ?? "")\"")
        }
        var length = 0
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { throw .malformed("header \"\(line.prefix(80))\"") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                guard let parsed = Int(value), parsed >= 0 else { throw .malformed("Content-Length \(value)") }
                guard parsed <= Self.bodyLimit else { throw .bodyTooLong(parsed) }
                length = parsed
            } else if name == "transfer-encoding" {
                throw .malformed("Transfer-Encoding (send a Content-Length)")
            }
        }
        return Head(method: String(parts[0]), target: String(parts[1]), length: length, size: bytes.count + 4)
    }

    private static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        let limit = min(bytes.count - 4, headLimit)
        var index = start
        while index <= limit {
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func split(_ target: String) -> (String, [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&").prefix(32) {
            let halves = pair.split(separator: "=", maxSplits: 1)
            query[String(halves[0])] = halves.count > 1 ? String(halves[1]).removingPercentEncoding : ""
        }
        return (String(target[..<mark]), query)
    }
}

/// Writes a HAP answer: an HTTP/1.1 response, or an `EVENT/1.0` notification.
public enum HAPResponse {
    static let reasons: [Int: String] = [
        200: "OK", 204: "No Content", 207: "Multi-Status", 400: "Bad Request", 404: "Not Found",
        405: "Method Not Allowed", 422: "Unprocessable Entity", 429: "Too Many Requests",
        470: "Connection Authorization Required", 500: "Internal Server Error", 503: "Service Unavailable",
    ]

    public static func http(_ status: Int, contentType: String? = nil, body: [UInt8] = []) -> [UInt8] {
        head("HTTP/1.1 \(status) \(reasons[status] ?? "Status")", contentType: contentType, body: body)
    }

    public static func event(_ body: [UInt8]) -> [UInt8] {
        head("EVENT/1.0 200 OK", contentType: "application/hap+json", body: body)
    }

    private static func head(_ line: String, contentType: String?, body: [UInt8]) -> [UInt8] {
        var text = line + "\r\n"
        if let contentType { text += "Content-Type: \(contentType)\r\n" }
        text += "Content-Length: \(body.count)\r\n\r\n"
        return Array(text.utf8) + body
    }
}
