/// Writes compact JSON straight into a byte buffer, member by member, with no intermediate tree.
///
/// For the hot path: a device's state payload is written this way on every change, so it must
/// not allocate a node per value. Commas are inserted automatically; the caller keeps begin/end
/// balanced (a programming error otherwise, checked in debug builds).
public struct JSONStreamWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Bit `depth` says whether the current container already has a member (64 levels at most).
    private var needsComma: UInt64 = 0
    private var depth = 0

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        push()
    }

    public mutating func endObject() {
        pop()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        push()
    }

    public mutating func endArray() {
        pop()
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func push() {
        precondition(depth < 63, "JSONStreamWriter nests at most 63 levels")
        depth += 1
        needsComma &= ~(1 << UInt64(depth))
    }

    private mutating func pop() {
        assert(depth > 0, "end without begin")
        depth -= 1
    }

    /// Writes `"key":`; the next value or begin completes the member.
    public mutating func key(_ key: String) {
        separate()
        JSONEncoding.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma &= ~(1 << UInt64(depth))  // the value that follows must not add a comma
    }

    /// Writes `"first.second":` without making the joined string (a trait or type id as a key).
    public mutating func key(_ first: String, dot second: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        JSONEncoding.appendStringContent(first, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        JSONEncoding.appendStringContent(second, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma &= ~(1 << UInt64(depth))
    }

    public mutating func string(_ value: String) {
        separate()
        JSONEncoding.appendString(value, to: &bytes)
    }

    public mutating func int(_ value: Int64) {
        separate()
        JSONEncoding.appendInteger(value, to: &bytes)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")  // no array made per value (a description writes ~30)
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public mutating func null() {
        separate()
        append("null")
    }

    /// Any value (serialized compactly).
    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .int(let integer): int(integer)
        case .string(let text): string(text)
        case .double, .array, .object:
            separate()
            var writer = JSONWriter(layout: .compact)
            writer.write(value, depth: 0)
            bytes.append(contentsOf: writer.output)
        }
    }

    /// `"key": "value"` in one call.
    public mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    private mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth)
        if needsComma & bit != 0 { bytes.append(UInt8(ascii: ",")) }
        needsComma |= bit
    }
}

/// The byte-level encoders shared by ``JSONStreamWriter`` and ``JSONValue`` serialization.
enum JSONEncoding {
    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        appendStringContent(text, to: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// A string's characters, escaped, without the quotes (a key of two parts is written as one).
    static func appendStringContent(_ text: String, to output: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            // Most keys and values need no escaping (checked 8 bytes at a time): copied in one go.
            guard needsEscaping(bytes) else {
                output.append(contentsOf: bytes)
                return
            }
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                appendEscaped(byte, to: &output)
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        if done == nil {  // a bridged string without contiguous UTF-8: the slow, general path
            for byte in text.utf8 {
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    appendEscaped(byte, to: &output)
                } else {
                    output.append(byte)
                }
            }
        }
    }

    /// Whether any byte is a control character, `"` or `\`: a word at a time (each test is exact
    /// for "some byte of the word"), then the last bytes one by one.
    static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let control = (word &- ones &* 0x20) & ~word
                let found = (control | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & highs
                if found != 0 { return true }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            index += 1
        }
        return false
    }

    static func appendEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
        case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            output.append(hex.utf8Start[Int(byte >> 4)])
            output.append(hex.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// Decimal digits without going through `String`.
    static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value == 0 {
            output.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { output.append(UInt8(ascii: "-")) }
            for index in stride(from: count - 1, through: 0, by: -1) { output.append(buffer[index]) }
        }
    }
}
