/// One pass over a JSON text: checks it and copies the projected part, without whitespace.
struct JSONProjector {
    struct NotJSON: Error {
        let offset: Int
    }

    private let bytes: UnsafeRawBufferPointer
    private let maxDepth: Int
    private var offset = 0
    private var output: [UInt8] = []

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int, from offset: Int = 0) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.offset = offset
    }

    /// The projected text; throws at the first byte that is not JSON.
    mutating func project(_ projection: Rule) throws(NotJSON) -> [UInt8] {
        output.reserveCapacity(bytes.count / 2)
        skipWhitespace()
        try value(projection, depth: 1, keep: true)
        skipWhitespace()
        guard offset == bytes.count else { throw NotJSON(offset: offset) }
        return output
    }

    /// One value starting at the current offset (an element of a larger text): its projected text
    /// and the offset just after it.
    mutating func projectValue(_ projection: Rule) throws(NotJSON) -> (kept: [UInt8], end: Int) {
        output = []
        output.reserveCapacity(2048)
        try value(projection, depth: 1, keep: true)
        return (output, offset)
    }

    /// A projection compiled once per text: keys as bytes, compared without making strings, and no
    /// allocation per member read.
    final class Rule: Sendable {
        enum Kind {
            case all
            case allExcept([[UInt8]])
            case members([([UInt8], Rule)])
            case eachMember(Rule)
            case text(Rule)
        }
        let kind: Kind
        static let all = Rule(JSONProjection.all)

        init(_ projection: JSONProjection) {
            switch projection {
            case .all: kind = .all
            case .allExcept(let keys): kind = .allExcept(keys.map { Array($0.utf8) })
            case .members(let members): kind = .members(members.map { (Array($0.key.utf8), Rule($0.value)) })
            case .eachMember(let inner): kind = .eachMember(Rule(inner))
            case .text(let inner): kind = .text(Rule(inner))
            }
        }
        var isAll: Bool { if case .all = kind { true } else { false } }
    }

    private mutating func value(_ rule: Rule, depth: Int, keep: Bool) throws(NotJSON) {
        guard offset < bytes.count else { throw NotJSON(offset: offset) }
        let start = offset
        if keep, case .text(let inner) = rule.kind {
            if inner.isAll {
                try value(inner, depth: depth, keep: false)
                writeText(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
            } else {
                let mark = output.count
                try value(inner, depth: depth, keep: true)
                let projected = Array(output[mark...])
                output.removeSubrange(mark...)
                projected.withUnsafeBytes { writeText($0) }
            }
            return
        }
        switch bytes[offset] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < maxDepth else { throw NotJSON(offset: offset) }
            // Projected: the container writes what it keeps. Else it is only checked, and copied whole below.
            let projected = keep && !rule.isAll
            if bytes[offset] == UInt8(ascii: "{") {
                try object(projected ? rule : nil, depth: depth)
            } else {
                try array(projected ? rule : nil, depth: depth)
            }
            if projected { return }
        case 0x22: try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
        if keep { copy(start..<offset) }
    }

    /// An object; with a rule, its kept members are written as they are read (without one, it is
    /// only checked and the caller copies it whole).
    private mutating func object(_ rule: Rule?, depth: Int) throws(NotJSON) {
        if isEmpty(opening: UInt8(ascii: "{"), closing: UInt8(ascii: "}"), writing: rule != nil) { return }
        var wroteMember = false
        while true {
            guard offset < bytes.count, bytes[offset] == 0x22 else { throw NotJSON(offset: offset) }
            let keyStart = offset
            let hasEscape = try string()
            let key = keyStart + 1..<offset - 1
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw NotJSON(offset: offset) }
            offset += 1
            skipWhitespace()
            if let rule {
                let inner = hasEscape ? Rule.all : self.rule(for: key, in: rule)
                if let inner {
                    if wroteMember { output.append(UInt8(ascii: ",")) }
                    copy(keyStart..<key.upperBound + 1)
                    output.append(UInt8(ascii: ":"))
                    try value(inner, depth: depth + 1, keep: true)
                    wroteMember = true
                } else {
                    try value(Rule.all, depth: depth + 1, keep: false)
                }
            } else {
                try value(Rule.all, depth: depth + 1, keep: false)
            }
            if try endOfContainer(UInt8(ascii: "}"), writing: rule != nil) { return }
        }
    }

    private mutating func array(_ rule: Rule?, depth: Int) throws(NotJSON) {
        if isEmpty(opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"), writing: rule != nil) { return }
        var first = true
        while true {
            if let rule {
                if !first { output.append(UInt8(ascii: ",")) }
                try value(rule, depth: depth + 1, keep: true)
            } else {
                try value(Rule.all, depth: depth + 1, keep: false)
            }
            first = false
            if try endOfContainer(UInt8(ascii: "]"), writing: rule != nil) { return }
        }
    }

    /// Steps over a container's opener (written when the container is); `true` when its closer
    /// follows at once (then written and stepped over too).
    private mutating func isEmpty(opening: UInt8, closing: UInt8, writing: Bool) -> Bool {
        offset += 1
        if writing { output.append(opening) }
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == closing else { return false }
        offset += 1
        if writing { output.append(closing) }
        return true
    }

    /// After a member or element: `,` (another follows: `false`) or the closer (`true`, written
    /// when the container is).
    private mutating func endOfContainer(_ closer: UInt8, writing: Bool) throws(NotJSON) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw NotJSON(offset: offset) }
        if bytes[offset] == UInt8(ascii: ",") {
            offset += 1
            skipWhitespace()
            return false
        }
        guard bytes[offset] == closer else { throw NotJSON(offset: offset) }
        offset += 1
        if writing { output.append(closer) }
        return true
    }

    /// The rule for a member's value, or `nil` when the member is dropped.
    private func rule(for key: Range<Int>, in rule: Rule) -> Rule? {
        switch rule.kind {
        case .all: return rule
        case .allExcept(let dropped):
            return dropped.contains(where: { equals(key, $0) }) ? nil : rule
        case .members(let members):
            return members.first(where: { equals(key, $0.0) })?.1
        case .eachMember(let inner): return inner
        case .text: return rule
        }
    }

    private func equals(_ range: Range<Int>, _ key: [UInt8]) -> Bool {
        guard range.count == key.count else { return false }
        return key.withUnsafeBytes { key in
            for index in 0..<key.count where bytes[range.lowerBound + index] != key[index] { return false }
            return true
        }
    }

    private mutating func copy(_ range: Range<Int>) {
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[range]))
    }

    /// A checked value's text as a JSON string: quotes, backslashes and whitespace escaped (a
    /// checked text has no other byte below 0x20). Written through a pointer into room made for the
    /// worst case (every byte escaped): a text's runs between quotes are a few bytes each.
    private mutating func writeText(_ text: UnsafeRawBufferPointer) {
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: text.count * 2 + 2))
        let end = output.withUnsafeMutableBufferPointer { buffer -> Int in
            var at = start
            func put(_ byte: UInt8) {
                buffer[at] = byte
                at += 1
            }
            put(0x22)
            for byte in text {
                switch byte {
                case 0x22, 0x5C: put(0x5C); put(byte)
                case 0x0A: put(0x5C); put(UInt8(ascii: "n"))
                case 0x0D: put(0x5C); put(UInt8(ascii: "r"))
                case 0x09: put(0x5C); put(UInt8(ascii: "t"))
                default: put(byte)
                }
            }
            put(0x22)
            return at
        }
        output.removeLast(output.count - end)
    }

    /// Where the run of plain ASCII starting at `start` ends: a quote, a backslash, a byte below 0x20
    /// or one of 0x80 or more (a UTF-8 sequence to check) ends it. Eight bytes at a time: the lowest
    /// flagged byte of a word is exact (a borrow only reaches the bytes above it).
    static func plainRun(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var index = start
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let control = (word &- ones &* 0x20) & ~word
                let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | control | word
                let found = special & (ones &* 0x80)
                if found != 0 { return index + found.trailingZeroBitCount / 8 }
                index += 8
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 { return index }
            index += 1
        }
        return index
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(NotJSON) {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw NotJSON(offset: offset) }
        for index in 0..<count where bytes[offset + index] != word.utf8Start[index] {
            throw NotJSON(offset: offset + index)
        }
        offset += count
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func number() throws(NotJSON) {
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw NotJSON(offset: offset) }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            try digits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            try digits()
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            try digits()
        }
    }

    private mutating func digits() throws(NotJSON) {
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw NotJSON(offset: offset) }
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    /// A string from its opening quote to after its closing one; returns whether it has escapes.
    @discardableResult
    private mutating func string() throws(NotJSON) -> Bool {
        offset += 1
        var hasEscape = false
        while offset < bytes.count {
            offset = Self.plainRun(bytes, from: offset)  // plain ASCII, whole
            guard offset < bytes.count else { break }
            let byte = bytes[offset]
            switch byte {
            case 0x22:
                offset += 1
                return hasEscape
            case 0x5C:
                hasEscape = true
                try escape()
            case ..<0x20: throw NotJSON(offset: offset)
            case ..<0x80: offset += 1
            default: try utf8Sequence()
            }
        }
        throw NotJSON(offset: offset)
    }

    private mutating func escape() throws(NotJSON) {
        offset += 1
        guard offset < bytes.count else { throw NotJSON(offset: offset) }
        switch bytes[offset] {
        case 0x22, 0x5C, 0x2F, UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"),
            UInt8(ascii: "t"):
            offset += 1
        case UInt8(ascii: "u"):
            guard offset + 4 < bytes.count else { throw NotJSON(offset: offset) }
            for index in 1...4 where !isHexDigit(bytes[offset + index]) { throw NotJSON(offset: offset + index) }
            offset += 5
        default: throw NotJSON(offset: offset)
        }
    }

    private func isHexDigit(_ byte: UInt8) -> Bool { isDigit(byte) || (byte | 0x20) &- UInt8(ascii: "a") < 6 }

    /// One UTF-8 sequence of 2–4 bytes (RFC 3629: no overlong forms, no surrogates, ≤ U+10FFFF).
    private mutating func utf8Sequence() throws(NotJSON) {
        let lead = bytes[offset]
        let count: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: (count, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: (count, high) = (3, 0x9F)
        case 0xF0: (count, low) = (4, 0x90)
        case 0xF1...0xF3: count = 4
        case 0xF4: (count, high) = (4, 0x8F)
        default: throw NotJSON(offset: offset)
        }
        guard offset + count <= bytes.count else { throw NotJSON(offset: offset) }
        let second = bytes[offset + 1]
        guard second >= low, second <= high else { throw NotJSON(offset: offset + 1) }
        for index in 2..<count where bytes[offset + index] & 0xC0 != 0x80 { throw NotJSON(offset: offset + index) }
        offset += count
    }
}
