extension JSONDocument {
    /// Reads a JSON array one element at a time: each element is parsed on its own and handed to
    /// `body`, then released, so a list of 10 000 devices never exists as one tree (a 45 MB
    /// zigbee2mqtt `bridge/devices` would take several hundred MB as one json-c tree).
    ///
    /// Returns `false`, calling nothing, when the text does not start with `[` (parse it whole
    /// to say what it is). Throws, like ``parse(_:maxDepth:)-(UnsafeRawBufferPointer,_)``, with
    /// the line and column in the whole text, at the first element or separator that is not
    /// JSON; elements before it have been handed to `body` already, so a caller that must not act
    /// on half a list collects first and acts after the call returns.
    public static func forEachElement(
        ofArray bytes: UnsafeRawBufferPointer, maxDepth: Int = defaultMaxDepth,
        _ body: (_ index: Int, _ element: JSON) -> Void
    ) throws(JSONParseError) -> Bool {
        try forEachElement(ofArray: bytes, maxDepth: maxDepth, rule: nil, body)
    }

    /// ``forEachElement(ofArray:maxDepth:_:)-(UnsafeRawBufferPointer,_,_)`` building only what
    /// `projection` keeps of each element (every element is still checked whole: see
    /// ``JSONProjection``). Errors are the same, in the same words and places, as without it.
    public static func forEachElement(
        ofArray bytes: [UInt8], maxDepth: Int = defaultMaxDepth, projection: JSONProjection,
        _ body: (_ index: Int, _ element: JSON) -> Void
    ) throws(JSONParseError) -> Bool {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in
                try forEachElement(ofArray: buffer, maxDepth: maxDepth, projection: projection, body)
            }
        }.get()
    }

    static func forEachElement(
        ofArray bytes: UnsafeRawBufferPointer, maxDepth: Int, projection: JSONProjection,
        _ body: (_ index: Int, _ element: JSON) -> Void
    ) throws(JSONParseError) -> Bool {
        try forEachElement(ofArray: bytes, maxDepth: maxDepth, rule: JSONProjector.Rule(projection), body)
    }

    /// The one element loop: with a rule, each element is checked and projected in one pass, and
    /// json-c builds the projection; without one (or when the check refuses the element), json-c
    /// reads the element as written, so that it says where and why.
    private static func forEachElement(
        ofArray bytes: UnsafeRawBufferPointer, maxDepth: Int, rule: JSONProjector.Rule?,
        _ body: (_ index: Int, _ element: JSON) -> Void
    ) throws(JSONParseError) -> Bool {
        var offset = skipWhitespace(bytes, from: 0)
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "[") else { return false }
        guard maxDepth > 1 else { throw makeError("nesting deeper than \(maxDepth) levels", at: offset, in: bytes) }
        offset = skipWhitespace(bytes, from: offset + 1)
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            try expectEnd(bytes, after: offset + 1)
            return true
        }
        guard let tokener = JSONTokener(maxDepth: maxDepth - 1) else {
            throw makeError("out of memory", at: 0, in: bytes)
        }
        var index = 0
        while true {
            var element: JSONDocument? = nil
            var end = 0
            if let rule {
                var projector = JSONProjector(bytes: bytes, maxDepth: maxDepth - 1, from: offset)
                if let (kept, after) = try? projector.projectValue(rule) {
                    end = skipWhitespace(bytes, from: after)
                    if end < bytes.count, bytes[end] == UInt8(ascii: ",") || bytes[end] == UInt8(ascii: "]") {
                        // Cannot fail: checked above.
                        element = kept.withUnsafeBytes { try? parse($0, tokener: tokener) }
                    }
                }
            } else if let (parsed, after) = parsePrefix(
                UnsafeRawBufferPointer(rebasing: bytes[offset...]), tokener: tokener)
            {
                // json-c stops after the value: no separate walk to find its end.
                end = skipWhitespace(bytes, from: offset + after)
                if end < bytes.count, bytes[end] == UInt8(ascii: ",") || bytes[end] == UInt8(ascii: "]") {
                    element = parsed
                }
            }
            if element == nil {
                end = try valueEnd(bytes, from: offset)
                do {
                    element = try parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), tokener: tokener)
                } catch {
                    throw makeError(error.reason, at: offset + error.byteOffset, in: bytes)
                }
            }
            guard let element else { throw makeError("not JSON", at: offset, in: bytes) }
            body(index, element.root)
            index += 1
            // `end` is at the `,` or `]` that closed the element.
            if bytes[end] == UInt8(ascii: "]") {
                try expectEnd(bytes, after: end + 1)
                return true
            }
            offset = skipWhitespace(bytes, from: end + 1)
        }
    }

    /// ``forEachElement(ofArray:maxDepth:_:)-(UnsafeRawBufferPointer,_,_)`` on an array of bytes (an MQTT payload).
    public static func forEachElement(
        ofArray bytes: [UInt8], maxDepth: Int = defaultMaxDepth, _ body: (_ index: Int, _ element: JSON) -> Void
    ) throws(JSONParseError) -> Bool {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(JSONParseError) in try forEachElement(ofArray: buffer, maxDepth: maxDepth, body) }
        }.get()
    }

    /// The bytes of the value of the top-level member `key` of an object, found without parsing
    /// anything (a Matter Server's `{"message_id": …, "result": [every node]}`: the list is then
    /// read with ``forEachElement(ofArray:maxDepth:_:)-(UnsafeRawBufferPointer,_,_)``). `nil` when
    /// the text is not an object or has no such member; a key written with escapes is not matched.
    /// The text is not checked here: what is in the range, and around it, is parsed later.
    public static func memberRange(_ key: String, inObject bytes: [UInt8]) -> Range<Int>? {
        let wanted = Array(key.utf8)
        return bytes.withUnsafeBytes { buffer -> Range<Int>? in
            var found: Range<Int>? = nil
            _ = forEachMember(inObject: buffer) { keyBytes, value in
                guard keyBytes.elementsEqual(wanted) else { return true }
                found = value
                return false
            }
            return found
        }
    }

    /// Every top-level member of an object, in the order written: each key (as written, without
    /// its quotes) and the byte range of its value, found without parsing anything (a SYNC
    /// response's `payload.devices` is then read element by element). `nil` when the text is not
    /// an object, a key is written with escapes, or the text ends early. As with
    /// ``memberRange(_:inObject:)`` nothing is checked here: the caller parses the rest.
    public static func memberRanges(inObject bytes: UnsafeRawBufferPointer) -> [(key: String, value: Range<Int>)]? {
        var members: [(key: String, value: Range<Int>)] = []
        var escaped = false
        let complete = forEachMember(inObject: bytes) { key, value in
            escaped = key.contains(0x5C)
            if !escaped { members.append((String(decoding: key, as: UTF8.self), value)) }
            return !escaped
        }
        return complete && !escaped ? members : nil
    }

    /// The one member walk: hands each top-level member's key bytes and value range to `body`
    /// (which returns `false` to stop). Returns `true` when it reached the object's closing `}`.
    private static func forEachMember(
        inObject buffer: UnsafeRawBufferPointer, _ body: (Slice<UnsafeRawBufferPointer>, Range<Int>) -> Bool
    ) -> Bool {
        var offset = skipWhitespace(buffer, from: 0)
        guard offset < buffer.count, buffer[offset] == UInt8(ascii: "{") else { return false }
        offset = skipWhitespace(buffer, from: offset + 1)
        if offset < buffer.count, buffer[offset] == UInt8(ascii: "}") { return true }
        while true {
            offset = skipWhitespace(buffer, from: offset)
            guard offset < buffer.count, buffer[offset] == 0x22 else { return false }
            let keyStart = offset + 1
            var keyEnd = keyStart
            while keyEnd < buffer.count, buffer[keyEnd] != 0x22 {
                keyEnd += buffer[keyEnd] == 0x5C ? 2 : 1
            }
            guard keyEnd < buffer.count else { return false }
            offset = skipWhitespace(buffer, from: keyEnd + 1)
            guard offset < buffer.count, buffer[offset] == UInt8(ascii: ":") else { return false }
            let valueStart = skipWhitespace(buffer, from: offset + 1)
            guard let valueEnd = memberEnd(buffer, from: valueStart) else { return false }
            var end = valueEnd
            while end > valueStart, [0x20, 0x09, 0x0A, 0x0D].contains(buffer[end - 1]) { end -= 1 }
            guard body(buffer[keyStart..<keyEnd], valueStart..<end) else { return false }
            if buffer[valueEnd] == UInt8(ascii: "}") { return true }
            offset = valueEnd + 1
        }
    }

    /// The offset of the `,` or `}` (at depth 0, outside strings) that ends a member's value.
    private static func memberEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        if case .end(let offset) = scanEnd(bytes, from: start, closer: UInt8(ascii: "}")) { offset } else { nil }
    }

    /// The offset of the `,` or `]` that ends the element starting at `start` (at depth 0,
    /// outside strings). Nesting and strings are only tracked here; json-c checks the rest.
    private static func valueEnd(_ bytes: UnsafeRawBufferPointer, from start: Int) throws(JSONParseError) -> Int {
        switch scanEnd(bytes, from: start, closer: UInt8(ascii: "]")) {
        case .end(let offset): return offset
        case .unexpected(let offset, let byte):
            throw makeError("unexpected '\(Character(Unicode.Scalar(byte)))'", at: offset, in: bytes)
        case .truncated: throw makeError("unexpected end of input", at: bytes.count, in: bytes)
        }
    }

    private enum ScanEnd {
        case end(Int)
        case unexpected(Int, UInt8)
        case truncated
    }

    /// Walks a value from `start` to the `,` or `closer` at depth 0 (outside strings) after it: the
    /// end of an array element (`]`) or of an object member's value (`}`).
    private static func scanEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, closer: UInt8) -> ScanEnd {
        let other = closer == UInt8(ascii: "]") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        var depth = 0
        var inString = false
        var offset = start
        while offset < bytes.count {
            let byte = bytes[offset]
            if inString {
                if byte == 0x5C {
                    offset += 1  // the escaped character
                } else if byte == 0x22 {
                    inString = false
                }
            } else {
                switch byte {
                case 0x22: inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
                case closer, UInt8(ascii: ","):
                    if depth == 0 { return .end(offset) }
                    if byte == closer { depth -= 1 }
                case other:
                    depth -= 1
                    if depth < 0 { return .unexpected(offset, byte) }
                default: break
                }
            }
            offset += 1
        }
        return .truncated
    }

    private static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        var offset = start
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        return offset
    }

    private static func expectEnd(_ bytes: UnsafeRawBufferPointer, after offset: Int) throws(JSONParseError) {
        let rest = skipWhitespace(bytes, from: offset)
        guard rest == bytes.count else {
            throw makeError("unexpected content after the JSON value", at: rest, in: bytes)
        }
    }
}
