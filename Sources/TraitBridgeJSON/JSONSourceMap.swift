/// Finds where a ``JSONPath`` stands in the text it was parsed from.
///
/// json-c keeps no positions, and keeping them for every value would cost on the hot path. Errors
/// are rare, so positions are found only when an error is reported: this walks the (already valid)
/// text along the path and returns the location of the value, or of the deepest part of the path
/// that exists (for "missing key" errors, that is the object that lacks it).
public struct JSONSourceMap: Sendable {
    private let bytes: [UInt8]

    public init(text: String) { bytes = Array(text.utf8) }
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The 1-based location of the value at `path`, or of its deepest existing ancestor.
    public func location(of path: JSONPath) -> SourceLocation {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        var found = scanner.offset
        for component in path.components {
            guard let next = scanner.enter(component) else { break }
            found = next
        }
        return SourceLocation(byteOffset: found, in: bytes)
    }

    /// A tolerant scanner over valid JSON: it only needs to step over values, never to build them.
    private struct Scanner {
        let bytes: [UInt8]
        var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
        }

        /// Moves to the start of the child value named by `component`; returns its offset.
        mutating func enter(_ component: JSONPath.Component) -> Int? {
            skipWhitespace()
            switch (current, component) {
            case (UInt8(ascii: "{"), .key(let wanted)):
                offset += 1
                var match: Int?
                while true {
                    skipWhitespace()
                    guard current == UInt8(ascii: "\"") else { break }
                    let key = readString()
                    skipWhitespace()
                    if current == UInt8(ascii: ":") { offset += 1 }
                    skipWhitespace()
                    if key == wanted { match = offset }  // the last duplicate wins, as in json-c
                    let valueStart = offset
                    skipValue()
                    skipWhitespace()
                    if current == UInt8(ascii: ",") { offset += 1 }
                    if let match, match == valueStart, !hasLaterDuplicate(of: wanted) {
                        offset = match
                        return match
                    }
                }
                if let match {
                    offset = match
                    return match
                }
                return nil
            case (UInt8(ascii: "["), .index(let wanted)):
                offset += 1
                var index = 0
                while true {
                    skipWhitespace()
                    guard let byte = current, byte != UInt8(ascii: "]") else { return nil }
                    if index == wanted { return offset }
                    skipValue()
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { return nil }
                    offset += 1
                    index += 1
                }
            default:
                return nil
            }
        }

        /// Whether the rest of the current object repeats `key` (rare; keeps "last wins" exact).
        private func hasLaterDuplicate(of key: String) -> Bool {
            var probe = self
            while true {
                probe.skipWhitespace()
                guard probe.current == UInt8(ascii: "\"") else { return false }
                if probe.readString() == key { return true }
                probe.skipWhitespace()
                if probe.current == UInt8(ascii: ":") { probe.offset += 1 }
                probe.skipValue()
                probe.skipWhitespace()
                if probe.current == UInt8(ascii: ",") { probe.offset += 1 }
            }
        }

        mutating func readString() -> String {
            offset += 1  // opening quote
            var raw: [UInt8] = []
            while let byte = current, byte != UInt8(ascii: "\"") {
                if byte == UInt8(ascii: "\\") {
                    offset += 1
                    guard let escaped = current else { break }
                    switch escaped {
                    case UInt8(ascii: "n"): raw.append(0x0A)
                    case UInt8(ascii: "t"): raw.append(0x09)
                    case UInt8(ascii: "r"): raw.append(0x0D)
                    case UInt8(ascii: "b"): raw.append(0x08)
                    case UInt8(ascii: "f"): raw.append(0x0C)
                    case UInt8(ascii: "u"):
                        let hex = bytes[min(offset + 1, bytes.count)..<min(offset + 5, bytes.count)]
                        if let scalar = UInt32(String(decoding: hex, as: UTF8.self), radix: 16).flatMap(Unicode.Scalar.init) {
                            raw.append(contentsOf: Array(String(scalar).utf8))
                        }
                        offset += 4
                    default: raw.append(escaped)
                    }
                    offset += 1
                } else {
                    raw.append(byte)
                    offset += 1
                }
            }
            offset += 1  // closing quote
            return String(decoding: raw, as: UTF8.self)
        }

        mutating func skipValue() {
            skipWhitespace()
            guard let byte = current else { return }
            switch byte {
            case UInt8(ascii: "\""):
                _ = readString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let next = current {
                    if next == UInt8(ascii: "\"") {
                        _ = readString()
                        continue
                    }
                    if next == UInt8(ascii: "{") || next == UInt8(ascii: "[") { depth += 1 }
                    if next == UInt8(ascii: "}") || next == UInt8(ascii: "]") { depth -= 1 }
                    offset += 1
                    if depth == 0 { return }
                }
            default:
                while let next = current, !",}] \t\r\n".utf8.contains(next) { offset += 1 }
            }
        }
    }
}
