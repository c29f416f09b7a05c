internal import CJSONC
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A parsed JSON text, held by json-c.
///
/// Parsing goes through json-c (fast, no Foundation); reading is done through ``JSON`` views that
/// look keys up in json-c's own hash tables, so a message handler reads the three fields it needs
/// without converting the whole tree. The document owns the single json-c reference to the root
/// and releases it in `deinit`: this is the one place where json-c reference counts are handled.
/// A document is immutable after parsing, so it may be read from several threads at once.
public final class JSONDocument: @unchecked Sendable {
    /// The json-c root; `nil` when the text was the literal `null`.
    let rootObject: OpaquePointer?

    /// Default nesting limit: deeper texts are rejected instead of exhausting the stack.
    public static let defaultMaxDepth = 64

    private init(rootObject: OpaquePointer?) {
        self.rootObject = rootObject
    }

    deinit {
        if let rootObject {
            json_object_put(rootObject)
        }
    }

    /// The root value.
    public var root: JSON { JSON(document: self, object: rootObject) }

    /// Parses one JSON text (RFC 8259, strict: no comments, no trailing commas, valid UTF-8).
    ///
    /// - Parameter maxDepth: arrays and objects nested deeper than this are rejected (default 64).
    /// - Throws: ``JSONParseError`` with the 1-based line and column of the first bad character.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONDocument {
        var text = text
        return try text.withUTF8 { buffer in
            Result { () throws(JSONParseError) in try parse(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth) }
        }.get()
    }

    /// Parses one JSON text from bytes (for example an MQTT payload). See ``parse(_:maxDepth:)-(String,_)``.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONDocument {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try parse(buffer, maxDepth: maxDepth) }
        }.get()
    }

    /// Parses one JSON text from raw bytes without copying them into a Swift array first.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        maxDepth: Int = defaultMaxDepth
    ) throws(JSONParseError) -> JSONDocument {
        let pooled = maxDepth == defaultMaxDepth ? JSONTokener.pool.withLock { $0.popLast() } : nil
        guard let tokener = pooled ?? JSONTokener(maxDepth: maxDepth) else {
            throw JSONParseError(reason: "out of memory", line: 1, column: 1, byteOffset: 0)
        }
        defer { JSONTokener.giveBack(tokener, afterParsing: bytes.count) }
        return try parse(bytes, tokener: tokener)
    }

    /// ``parse(_:maxDepth:)-(UnsafeRawBufferPointer,_)`` with a tokener that may be used again.
    static func parse(_ bytes: UnsafeRawBufferPointer, tokener reusable: JSONTokener) throws(JSONParseError)
        -> JSONDocument
    {
        let count = bytes.count
        let maxDepth = reusable.maxDepth
        guard count < Int(Int32.max) else {
            throw JSONParseError(reason: "text is larger than 2 GiB", line: 1, column: 1, byteOffset: 0)
        }
        let tokener = reusable.pointer
        let locale = CNumericLocale.enter()
        defer { locale.leave() }
        json_tokener_reset(tokener)
        json_tokener_set_flags(tokener, Int32(JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8))

        var terminator: CChar = 0
        var object: OpaquePointer?
        if let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) {
            object = json_tokener_parse_ex(tokener, base, Int32(count))
        } else {
            object = json_tokener_parse_ex(tokener, &terminator, 0)
        }
        var error = json_tokener_get_error(tokener)
        var end = json_tokener_get_parse_end(tokener)
        if error == json_tokener_continue {
            // A complete buffer ends here: tell json-c so that a bare number or literal can finish.
            object = json_tokener_parse_ex(tokener, &terminator, 1)
            error = json_tokener_get_error(tokener)
            end = count
        }
        end = min(end, count)

        guard error == json_tokener_success else {
            if let object { json_object_put(object) }
            let reason: String
            if error == json_tokener_continue || end >= count {
                reason = "unexpected end of input"
            } else if error == json_tokener_error_depth {
                reason = "nesting deeper than \(maxDepth) levels"
            } else {
                reason = String(cString: json_tokener_error_desc(error))
            }
            throw makeError(reason, at: end, in: bytes)
        }
        if let (offset, reason) = firstNonJSONToken(bytes, upTo: end) {
            if let object { json_object_put(object) }
            throw makeError(reason, at: offset, in: bytes)
        }
        // Only whitespace may follow the value.
        var offset = end
        while offset < count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default:
                if let object { json_object_put(object) }
                throw makeError("unexpected content after the JSON value", at: offset, in: bytes)
            }
        }
        return JSONDocument(rootObject: object)
    }

    /// The JSON value at the start of `bytes`, and the offset just after it, when it parses
    /// whatever follows it (the rest of a list); `nil` for anything json-c does not finish
    /// cleanly, so that the caller reads the value as a text of its own and says why.
    static func parsePrefix(
        _ bytes: UnsafeRawBufferPointer, tokener reusable: JSONTokener
    ) -> (document: JSONDocument, end: Int)? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count < Int(Int32.max) else {
            return nil
        }
        let tokener = reusable.pointer
        let locale = CNumericLocale.enter()
        defer { locale.leave() }
        json_tokener_reset(tokener)
        json_tokener_set_flags(
            tokener, Int32(JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8 | JSON_TOKENER_ALLOW_TRAILING_CHARS))
        let object = json_tokener_parse_ex(tokener, base, Int32(clamping: bytes.count))
        let end = json_tokener_get_parse_end(tokener)
        guard json_tokener_get_error(tokener) == json_tokener_success, end <= bytes.count,
            firstNonJSONToken(bytes, upTo: end) == nil
        else {
            if let object { json_object_put(object) }
            return nil
        }
        return (JSONDocument(rootObject: object), end)
    }

    /// json-c accepts `'single-quoted'` strings, `NaN` and `Infinity` even in strict mode; JSON
    /// does not. Finds the first of them outside double-quoted strings. Cheap on the hot path: the
    /// string-aware scan runs only when one of them occurs anywhere in the text, which is rare.
    private static func firstNonJSONToken(_ bytes: UnsafeRawBufferPointer, upTo end: Int) -> (Int, String)? {
        guard end > 0, let base = bytes.baseAddress else { return nil }
        guard
            memchr(base, 0x27, end) != nil || contains(notANumber, in: bytes, upTo: end)
                || contains(infinity, in: bytes, upTo: end)
        else { return nil }
        var inString = false
        var offset = 0
        while offset < end {
            switch bytes[offset] {
            case 0x5C where inString: offset += 1  // skip the escaped character
            case 0x22: inString.toggle()
            case 0x27 where !inString: return (offset, "single quotes are not JSON; use double quotes")
            case UInt8(ascii: "N") where !inString, UInt8(ascii: "I") where !inString:
                return (offset, "NaN and Infinity are not JSON numbers")
            default: break
            }
            offset += 1
        }
        return nil
    }

    /// Made once, not per message.
    private static let notANumber = Array("NaN".utf8)
    private static let infinity = Array("Infinity".utf8)

    /// Whether `needle` occurs in the first `end` bytes (memchr on its first byte, then compare).
    private static func contains(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, upTo end: Int) -> Bool {
        guard let base = bytes.baseAddress, let first = needle.first else { return false }
        var offset = 0
        while offset + needle.count <= end, let hit = memchr(base + offset, Int32(first), end - offset) {
            let index = base.distance(to: UnsafeRawPointer(hit))
            if index + needle.count <= end, needle.indices.allSatisfy({ bytes[index + $0] == needle[$0] }) {
                return true
            }
            offset = index + 1
        }
        return false
    }

    static func makeError(_ reason: String, at offset: Int, in bytes: UnsafeRawBufferPointer) -> JSONParseError {
        let location = SourceLocation(byteOffset: offset, in: bytes)
        return JSONParseError(reason: reason, line: location.line, column: location.column, byteOffset: offset)
    }
}

/// A json-c tokener for one nesting bound, reset before each text: a list's elements share one
/// (allocating a tokener costs about as much as parsing a small element).
final class JSONTokener: @unchecked Sendable {  // one user at a time: taken from the pool, or local
    let pointer: UnsafeMutablePointer<json_tokener>
    let maxDepth: Int

    init?(maxDepth: Int) {
        guard let pointer = json_tokener_new_ex(Int32(clamping: max(1, maxDepth))) else { return nil }
        self.pointer = pointer
        self.maxDepth = maxDepth
    }

    deinit { json_tokener_free(pointer) }

    /// Tokeners of the default depth kept for the next parse: making one (a `calloc` of its
    /// 64-level stack, then `free`) cost as much as parsing a 40-byte payload.
    static let pool = Mutex<[JSONTokener]>([])

    /// Back to the pool, unless the pool is full (4, one per thread that parses at once) or the text
    /// was large: json-c keeps a buffer as long as the text's longest string, and a pooled tokener
    /// would hold it for good.
    static func giveBack(_ tokener: JSONTokener, afterParsing count: Int) {
        guard tokener.maxDepth == JSONDocument.defaultMaxDepth, count <= 1 << 16 else { return }
        pool.withLock { tokeners in
            if tokeners.count < 4 { tokeners.append(tokener) }
        }
    }
}
