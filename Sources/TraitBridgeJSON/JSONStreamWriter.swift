public import FoundationEssentials

/// Writes compact JSON straight into a byte buffer, member by member, with no intermediate tree.
///
/// For the hot path: a device's state payload is written this way on every change, so it must
/// not allocate a node per value. Commas are inserted automatically; the caller keeps begin/end
/// balanced (a programming error otherwise, checked in debug builds). Not copyable: it owns its memory.
public struct JSONStreamWriter: ~Copyable {
    /// The bytes written so far, as an array (made once, at the end).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
    /// Written straight into memory it owns: an `Array`'s append checks uniqueness and capacity
    /// through generic code on every call (~90 instructions for a 20-byte key), this ~10.
    /// Internal, not private: the calls made most often are inlined into the payload writers.
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int
    /// Bit `depth` says whether the current container already has a member (64 levels at most).
    @usableFromInline var needsComma: UInt64 = 0
    @usableFromInline var depth = 0

    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inlinable
    public mutating func beginObject() {
        separate()
        append(UInt8(ascii: "{"))
        push()
    }

    @inlinable
    public mutating func endObject() {
        pop()
        append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        separate()
        append(UInt8(ascii: "["))
        push()
    }

    public mutating func endArray() {
        pop()
        append(UInt8(ascii: "]"))
    }

    @usableFromInline
    mutating func push() {
        precondition(depth < 63, "JSONStreamWriter nests at most 63 levels")
        depth += 1
        needsComma &= ~(1 << UInt64(depth))
    }

    @usableFromInline
    mutating func pop() {
        assert(depth > 0, "end without begin")
        depth -= 1
    }

    /// Writes `"key":`; the next value or begin completes the member.
    public mutating func key(_ key: String) {
        separate()
        append(UInt8(ascii: "\""))
        appendContent(key)
        append(UInt8(ascii: "\""), UInt8(ascii: ":"))
        needsComma &= ~(1 << UInt64(depth))  // the value that follows must not add a comma
    }

    /// Writes `"key":` for a key spelled in the program: nothing in it to escape (checked in debug builds), so it
    /// is copied as it is, in one go. A state payload has about 25 of them.
    @inlinable
    public mutating func key(literal key: StaticString) {
        separate()
        appendQuoted(key)
        append(UInt8(ascii: ":"))
        needsComma &= ~(1 << UInt64(depth))
    }

    /// Writes `"text"` for a word spelled in the program (an enum's JSON word): nothing in it to escape.
    @inlinable
    public mutating func string(literal text: StaticString) {
        separate()
        appendQuoted(text)
    }

    /// `"text"`, copied as it is. Through `withUTF8Buffer`: a one-character literal may be held as a
    /// scalar, not as a pointer to its bytes.
    @inlinable @inline(__always)
    mutating func appendQuoted(_ text: StaticString) {
        text.withUTF8Buffer { bytes in
            assert(!JSONEncoding.needsEscaping(bytes))
            reserve(bytes.count + 2)
            base[count] = UInt8(ascii: "\"")
            if let start = bytes.baseAddress { (base + count + 1).update(from: start, count: bytes.count) }
            base[count + bytes.count + 1] = UInt8(ascii: "\"")
            count += bytes.count + 2
        }
    }

    /// `"key": "value"` for a key spelled in the program.
    @inlinable
    public mutating func member(literal key: StaticString, _ value: String) {
        self.key(literal: key)
        string(value)
    }

    /// Writes `"first.second":` without making the joined string (a trait or type id as a key).
    public mutating func key(_ first: String, dot second: String) {
        separate()
        append(UInt8(ascii: "\""))
        appendContent(first)
        append(UInt8(ascii: "."))
        appendContent(second)
        append(UInt8(ascii: "\""), UInt8(ascii: ":"))
        needsComma &= ~(1 << UInt64(depth))
    }

    public mutating func string(_ value: String) {
        separate()
        append(UInt8(ascii: "\""))
        appendContent(value)
        append(UInt8(ascii: "\""))
    }

    /// Writes `"first.second"` without making the joined string (a trait or device type id).
    public mutating func string(_ first: String, dot second: String) {
        separate()
        append(UInt8(ascii: "\""))
        appendContent(first)
        append(UInt8(ascii: "."))
        appendContent(second)
        append(UInt8(ascii: "\""))
    }

    public mutating func int(_ value: Int64) {
        separate()
        reserve(JSONEncoding.integerLength)
        count += JSONEncoding.writeInteger(value, to: base + count)
    }

    public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
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
            append(writer.output)
        }
    }

    /// A date as an ISO 8601 string (``Timestamp``), written in place.
    public mutating func timestamp(_ date: Date) {
        separate()
        reserve(Timestamp.length + 2)
        base[count] = UInt8(ascii: "\"")
        Timestamp.write(date, to: UnsafeMutableRawBufferPointer(start: base + count + 1, count: Timestamp.length))
        base[count + Timestamp.length + 1] = UInt8(ascii: "\"")
        count += Timestamp.length + 2
    }

    /// `"key": "value"` in one call.
    public mutating func member(_ key: String, _ value: String) {
        self.key(key)
        string(value)
    }

    @inlinable @inline(__always)
    mutating func separate() {
        let bit: UInt64 = 1 << UInt64(depth)
        if needsComma & bit != 0 { append(UInt8(ascii: ",")) }
        needsComma |= bit
    }

    // MARK: Bytes

    /// A string's characters, escaped, without the quotes. Most need no escaping (checked 8 bytes
    /// at a time) and are copied in one go.
    private mutating func appendContent(_ text: String) {
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard JSONEncoding.needsEscaping(utf8) else {
                append(UnsafeRawBufferPointer(utf8))
                return true
            }
            return false
        }
        guard copied != true else { return }
        var escaped: [UInt8] = []
        JSONEncoding.appendStringContent(text, to: &escaped)
        append(escaped)
    }

    @inlinable @inline(__always)
    mutating func reserve(_ more: Int) {
        if count + more > capacity { grow(to: count + more) }
    }

    @usableFromInline
    mutating func grow(to needed: Int) {
        let grown = max(capacity * 2, needed)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    @inlinable @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    private mutating func append(_ first: UInt8, _ second: UInt8) {
        reserve(2)
        base[count] = first
        base[count + 1] = second
        count += 2
    }

    private mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    @inline(__always)
    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }
}

/// The byte-level encoders shared by ``JSONStreamWriter`` and ``JSONValue`` serialization.
@usableFromInline
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
    @usableFromInline
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

    /// The most bytes ``writeInteger(_:to:)`` writes: a sign and 19 digits.
    static let integerLength = 20

    /// Decimal digits without going through `String`.
    static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for `integerLength` bytes
        withUnsafeMutableBytes(of: &digits) { buffer in
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            output.append(contentsOf: UnsafeBufferPointer(start: base, count: writeInteger(value, to: base)))
        }
    }

    /// Writes `value` in decimal at `base` (``integerLength`` bytes of room) and returns the count.
    static func writeInteger(_ value: Int64, to base: UnsafeMutablePointer<UInt8>) -> Int {
        var position = 0
        if value < 0 {
            base[0] = UInt8(ascii: "-")
            position = 1
        }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        var index = position + digits - 1
        repeat {
            base[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
            index -= 1
        } while magnitude > 0
        return position + digits
    }
}
