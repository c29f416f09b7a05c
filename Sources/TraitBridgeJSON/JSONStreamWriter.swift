/// Writes compact JSON straight into a byte buffer, member by member, with no intermediate tree.
///
/// For the hot path: a device's state payload is written this way on every change, so it must
/// not allocate a node per value. Commas are inserted automatically; the caller keeps begin/end
/// balanced (a programming error otherwise, checked in debug builds).
public struct JSONStreamWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        assert(needsComma.count > 1, "endObject without beginObject")
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        assert(needsComma.count > 1, "endArray without beginArray")
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `"key":`; the next value or begin completes the member.
    public mutating func key(_ key: String) {
        separate()
        JSONEncoding.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false  // the value that follows must not add a comma
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
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
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
        let last = needsComma.count - 1
        if needsComma[last] { bytes.append(UInt8(ascii: ",")) }
        needsComma[last] = true
    }
}

/// The byte-level encoders shared by ``JSONStreamWriter`` and ``JSONValue`` serialization.
enum JSONEncoding {
    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Fast path: most keys and values need no escaping and are copied in one go.
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
        output.append(UInt8(ascii: "\""))
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
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
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
