extension TLVDecoder {
    /// The decoding state: a cursor into the bytes, the elements counted so far and the path of
    /// the member being read. Offsets only move forward, never past `bytes.count`, and every
    /// length is checked against `bytes.count - offset` before use, so no arithmetic can overflow.
    struct Reader {
        /// Where an element stands, which decides the tags it may have.
        enum Place { case topLevel, structure, array, list }

        /// One step of a path: a member's tag, or an anonymous element's index.
        enum Step {
            case tag(TLVTag)
            case index(Int)
        }

        let bytes: [UInt8]
        var offset: Int
        let limits: Limits
        var elementCount = 0
        var path: [Step] = []

        init(bytes: [UInt8], offset: Int, limits: Limits) {
            self.bytes = bytes
            self.offset = offset
            self.limits = limits
        }

        func fail(_ kind: DecodeError.Kind, at offset: Int) -> DecodeError {
            let rendered = path.map { step in
                switch step {
                case .tag(let tag): tag.description
                case .index(let index): "[\(index)]"
                }
            }
            return DecodeError(kind: kind, offset: offset, path: rendered.joined(separator: "."))
        }

        /// One element where no container is open.
        mutating func readTopLevel() throws(DecodeError) -> TLVElement {
            guard offset < bytes.count else { throw fail(.noElement, at: offset) }
            let start = offset
            guard let element = try readElement(index: 0, in: .topLevel, depth: 0) else {
                throw fail(.strayEndOfContainer, at: start)
            }
            return element
        }

        /// The control byte and tag; the element type is checked, the tag is not yet placed.
        mutating func readHeader() throws(DecodeError) -> (elementType: UInt8, tag: TLVTag) {
            let start = offset
            guard offset < bytes.count else { throw fail(.noElement, at: offset) }
            let control = bytes[offset]
            offset += 1
            let elementType = control & 0x1F
            guard elementType <= 0x18 else { throw fail(.reservedElementType(elementType), at: start) }
            let tag: TLVTag
            switch control >> 5 {
            case 0: tag = .anonymous
            case 1: tag = .context(UInt8(truncatingIfNeeded: try readInteger(1)))
            case 2: tag = .commonProfile(UInt32(truncatingIfNeeded: try readInteger(2)))
            case 3: tag = .commonProfile(UInt32(truncatingIfNeeded: try readInteger(4)))
            case 4: tag = .implicitProfile(UInt32(truncatingIfNeeded: try readInteger(2)))
            case 5: tag = .implicitProfile(UInt32(truncatingIfNeeded: try readInteger(4)))
            default:
                let vendorID = UInt16(truncatingIfNeeded: try readInteger(2))
                let profile = UInt16(truncatingIfNeeded: try readInteger(2))
                let number = UInt32(truncatingIfNeeded: try readInteger(control >> 5 == 6 ? 2 : 4))
                tag = .fullyQualified(vendorID: vendorID, profile: profile, tag: number)
            }
            return (elementType, tag)
        }

        /// The element at `offset`, or nil for the End-of-Container that closes the container the
        /// element is `in`.
        mutating func readElement(index: Int, in place: Place, depth: Int) throws(DecodeError) -> TLVElement? {
            let start = offset
            let (elementType, tag) = try readHeader()
            if elementType == 0x18 {
                guard place != .topLevel else { throw fail(.strayEndOfContainer, at: start) }
                guard tag == .anonymous else { throw fail(.taggedEndOfContainer(tag), at: start) }
                return nil
            }
            switch (place, tag) {
            case (.topLevel, .context(let number)): throw fail(.contextTagOutsideContainer(number), at: start)
            case (.structure, .anonymous): throw fail(.anonymousStructureMember, at: start)
            case (.array, let tag) where tag != .anonymous: throw fail(.taggedArrayElement(tag), at: start)
            default: break
            }
            elementCount += 1
            guard elementCount <= limits.maxElements else {
                throw fail(.tooManyElements(limit: limits.maxElements), at: start)
            }
            if place != .topLevel { path.append(tag == .anonymous ? .index(index) : .tag(tag)) }
            let value = try readValue(elementType, start: start, depth: depth)
            if place != .topLevel { path.removeLast() }
            return TLVElement(tag: tag, value: value)
        }

        private mutating func readValue(_ elementType: UInt8, start: Int, depth: Int) throws(DecodeError) -> TLVValue {
            switch elementType {
            case 0x00: return .signed(Int64(Int8(truncatingIfNeeded: try readInteger(1))))
            case 0x01: return .signed(Int64(Int16(truncatingIfNeeded: try readInteger(2))))
            case 0x02: return .signed(Int64(Int32(truncatingIfNeeded: try readInteger(4))))
            case 0x03: return .signed(Int64(bitPattern: try readInteger(8)))
            case 0x04...0x07: return .unsigned(try readInteger(1 << Int(elementType - 0x04)))
            case 0x08, 0x09: return .bool(elementType == 0x09)
            case 0x0A: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: try readInteger(4))))
            case 0x0B: return .double(Double(bitPattern: try readInteger(8)))
            case 0x0C...0x0F:
                let content = try readString(lengthBytes: 1 << Int(elementType - 0x0C))
                if let bad = firstInvalidUTF8(content) { throw fail(.invalidUTF8, at: content.startIndex + bad) }
                return .string(String(decoding: content, as: UTF8.self))
            case 0x10...0x13: return .octets(Array(try readString(lengthBytes: 1 << Int(elementType - 0x10))))
            case 0x14: return .null
            default: return try readContainer(elementType, start: start, depth: depth)
            }
        }

        /// The members of the structure (0x15), array (0x16) or list (0x17) opened at `start`, up to
        /// and including its End-of-Container.
        private mutating func readContainer(
            _ elementType: UInt8, start: Int, depth: Int
        ) throws(DecodeError) -> TLVValue {
            let place: Place = elementType == 0x15 ? .structure : elementType == 0x16 ? .array : .list
            guard depth < limits.maxDepth else { throw fail(.tooDeep(limit: limits.maxDepth), at: start) }
            var members: [TLVElement] = []
            var seen: Set<TLVTag> = []
            while true {
                guard offset < bytes.count else {
                    let type = Self.type(of: elementType) ?? .structure
                    throw fail(.unclosedContainer(type, openedAt: start), at: offset)
                }
                let memberStart = offset
                guard let member = try readElement(index: members.count, in: place, depth: depth + 1) else { break }
                if place == .structure, !seen.insert(member.tag).inserted {
                    throw fail(.duplicateStructureMember(member.tag), at: memberStart)
                }
                members.append(member)
            }
            switch place {
            case .structure: return .structure(members)
            case .array: return .array(members.map(\.value))
            default: return .list(members)
            }
        }

        /// A little-endian unsigned integer of `count` (1...8) bytes.
        private mutating func readInteger(_ count: Int) throws(DecodeError) -> UInt64 {
            let remaining = bytes.count - offset
            guard count <= remaining else { throw fail(.truncated(needed: count, remaining: remaining), at: offset) }
            var value: UInt64 = 0
            for index in 0..<count { value |= UInt64(bytes[offset + index]) << (8 * index) }
            offset += count
            return value
        }

        /// A length field of `lengthBytes` bytes and the bytes it counts, checked before use.
        private mutating func readString(lengthBytes: Int) throws(DecodeError) -> ArraySlice<UInt8> {
            let lengthOffset = offset
            let declared = try readInteger(lengthBytes)
            let remaining = bytes.count - offset
            guard declared <= UInt64(remaining) else {
                throw fail(.lengthBeyondInput(declared: declared, remaining: remaining), at: lengthOffset)
            }
            let length = Int(declared)  // ≤ remaining, so it fits
            defer { offset += length }
            return bytes[offset..<(offset + length)]
        }

        /// The type an element type byte (0x00–0x17) stands for; nil for End-of-Container.
        static func type(of elementType: UInt8) -> TLVType? {
            switch elementType {
            case 0x00...0x03: .signedInteger
            case 0x04...0x07: .unsignedInteger
            case 0x08, 0x09: .boolean
            case 0x0A: .float
            case 0x0B: .double
            case 0x0C...0x0F: .utf8String
            case 0x10...0x13: .octetString
            case 0x14: .null
            case 0x15: .structure
            case 0x16: .array
            case 0x17: .list
            default: nil
            }
        }
    }
}

/// The position (from the slice's start) of the first byte of the first ill-formed UTF-8
/// sequence, or nil when all of `bytes` is UTF-8. Overlong forms, surrogates and code points past
/// U+10FFFF are ill-formed, as the standard library's parser holds them.
func firstInvalidUTF8(_ bytes: ArraySlice<UInt8>) -> Int? {
    var parser = Unicode.UTF8.ForwardParser()
    var iterator = bytes.makeIterator()
    var position = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): position += scalar.count
        case .error: return position
        case .emptyInput: return nil
        }
    }
}
