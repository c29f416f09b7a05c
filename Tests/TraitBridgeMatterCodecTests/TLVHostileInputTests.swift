import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

/// Bytes the decoder must refuse, with what it must say and where.
struct HostileCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let expected: TLVDecoder.DecodeError

    init(_ name: String, _ bytes: String, _ kind: TLVDecoder.DecodeError.Kind, at offset: Int, in path: String = "") {
        self.name = name
        self.bytes = hex(bytes)
        self.expected = TLVDecoder.DecodeError(kind: kind, offset: offset, path: path)
    }

    var testDescription: String { name }
}

let hostileCases: [HostileCase] = [
    HostileCase("empty input", "", .noElement, at: 0),
    HostileCase(
        "an 8-byte length of 0xFFFFFFFFFFFFFFFF", "13 ff ff ff ff ff ff ff ff",
        .lengthBeyondInput(declared: .max, remaining: 0), at: 1),
    HostileCase(
        "a 4-byte string length past the end", "0e 10 00 00 00 61 62",
        .lengthBeyondInput(declared: 16, remaining: 2), at: 1),
    HostileCase("a structure never closed", "15 24 01 2a", .unclosedContainer(.structure, openedAt: 0), at: 4),
    HostileCase(
        "an array never closed, inside a structure", "15 36 01 00 01",
        .unclosedContainer(.array, openedAt: 1), at: 5, in: "1"),
    HostileCase("an End-of-Container with nothing open", "18", .strayEndOfContainer, at: 0),
    HostileCase("one End-of-Container too many", "15 18 18", .strayEndOfContainer, at: 2),
    HostileCase("an End-of-Container with a tag", "15 38 01", .taggedEndOfContainer(.context(1)), at: 1),
    HostileCase("invalid UTF-8 two levels down", "15 35 05 2c 01 02 c3 28 18 18", .invalidUTF8, at: 6, in: "5.1"),
    HostileCase("invalid UTF-8 in an array element", "16 14 14 0c 01 ff 18", .invalidUTF8, at: 5, in: "[2]"),
    HostileCase("an overlong UTF-8 form", "0c 03 61 c0 af", .invalidUTF8, at: 3),
    HostileCase("a UTF-16 surrogate in UTF-8", "0c 03 ed a0 80", .invalidUTF8, at: 2),
    HostileCase("a code point past U+10FFFF", "0c 05 61 f4 90 80 80", .invalidUTF8, at: 3),
    HostileCase("a lone continuation byte", "0c 02 61 80", .invalidUTF8, at: 3),
    HostileCase("a UTF-8 sequence cut short", "0c 03 61 e2 82", .invalidUTF8, at: 3),
    HostileCase("a structure member without a tag", "15 04 2a 18", .anonymousStructureMember, at: 1),
    HostileCase("an array element with a tag", "16 24 01 2a 18", .taggedArrayElement(.context(1)), at: 1),
    HostileCase("a context tag at the top level", "24 01 2a", .contextTagOutsideContainer(1), at: 0),
    HostileCase(
        "a structure repeating a tag", "15 24 01 2a 24 01 2b 18", .duplicateStructureMember(.context(1)),
        at: 4),
    HostileCase("a second element after the first", "14 14", .trailingBytes(count: 1), at: 1),
    HostileCase("an integer cut short", "15 25 02 33", .truncated(needed: 2, remaining: 1), at: 3, in: "2"),
    HostileCase("a fully qualified tag cut short", "15 c4 f1 ff", .truncated(needed: 2, remaining: 0), at: 4),
    HostileCase("a double cut short", "0b 00 00", .truncated(needed: 8, remaining: 2), at: 1),
]

@Suite("Matter TLV hostile input")
struct TLVHostileInputTests {
    @Test("malformed bytes are refused with the kind, byte offset and path of the fault", arguments: hostileCases)
    func refused(hostile: HostileCase) {
        let error = #expect(throws: TLVDecoder.DecodeError.self) { try TLVDecoder().decode(hostile.bytes) }
        #expect(error == hostile.expected)
    }

    @Test("every reserved element type 0x19–0x1F is refused, under any tag control", arguments: 0x19...0x1F)
    func reservedType(type: Int) {
        for tagControl in [0x00, 0x20, 0xE0] as [UInt8] {
            let control = tagControl | UInt8(type)
            let error = #expect(throws: TLVDecoder.DecodeError.self) { try TLVDecoder().decode([0x15, control]) }
            #expect(error?.kind == .reservedElementType(UInt8(type)) && error?.offset == 1)
        }
    }

    @Test(
        "every truncation of a valid encoding is an error inside the bytes given, never a crash",
        arguments: [("Encoding1", sdkEncoding1Bytes), ("PBKDFParamRequest", pbkdfParamRequestBytes)]
            + specExamples.map { ($0.name, $0.bytes) })
    func truncations(name: String, bytes: [UInt8]) {
        for count in 0..<bytes.count {
            let error = #expect(throws: TLVDecoder.DecodeError.self, "\(name) cut to \(count)") {
                try TLVDecoder().decode(Array(bytes.prefix(count)))
            }
            guard let error else { continue }
            #expect(error.offset <= count)
            switch error.kind {
            case .noElement, .truncated, .lengthBeyondInput, .unclosedContainer: break
            default: Issue.record("\(name) cut to \(count): unexpected \(error)")
            }
        }
    }

    @Test(
        "a depth bomb of 1000 nested containers stops at the 17th",
        arguments: [
            ("structures", [0x15] + Array(repeating: [0x35, 0x01], count: 999).joined(), 1 + 15 * 2),
            ("arrays", [UInt8](repeating: 0x16, count: 1000), 16),
            ("lists", [UInt8](repeating: 0x17, count: 1000), 16),
        ] as [(String, [UInt8], Int)])
    func depthBomb(name: String, bytes: [UInt8], offset: Int) {
        let error = #expect(throws: TLVDecoder.DecodeError.self) { try TLVDecoder().decode(bytes) }
        #expect(error?.kind == .tooDeep(limit: 16) && error?.offset == offset)
    }

    @Test("16 nested containers decode; the limit is exactly 16")
    func depthBoundary() throws {
        let sixteen = [UInt8](repeating: 0x16, count: 16) + [UInt8](repeating: 0x18, count: 16)
        _ = try TLVDecoder().decode(sixteen)
        let seventeen = [UInt8](repeating: 0x16, count: 17) + [UInt8](repeating: 0x18, count: 17)
        #expect(
            throws: TLVDecoder.DecodeError(
                kind: .tooDeep(limit: 16), offset: 16,
                path: Array(
                    repeating: "[0]", count: 16
                ).joined(separator: "."))
        ) { try TLVDecoder().decode(seventeen) }
    }

    @Test("the element limit counts containers and members, and is exact")
    func elementLimit() throws {
        let decoder = TLVDecoder(limits: .init(maxElements: 10))
        _ = try decoder.decode([0x16] + [UInt8](repeating: 0x14, count: 9) + [0x18])
        #expect(throws: TLVDecoder.DecodeError(kind: .tooManyElements(limit: 10), offset: 10, path: "")) {
            try decoder.decode([0x16] + [UInt8](repeating: 0x14, count: 10) + [0x18])
        }
        #expect(throws: TLVDecoder.DecodeError.self) { try decoder.decodeAll([UInt8](repeating: 0x14, count: 11)) }
    }

    @Test("an error's description names the byte, the member and the fault in words")
    func description() {
        let error = TLVDecoder.DecodeError(kind: .invalidUTF8, offset: 6, path: "5.1")
        #expect(
            error.description.hasPrefix("Matter TLV, byte 6 (in 5.1): a UTF-8 string holds bytes that are not UTF-8"))
        let bomb = TLVDecoder.DecodeError(kind: .tooDeep(limit: 16), offset: 16, path: "")
        #expect(bomb.description.contains("deeper than 16 levels") && bomb.description.contains("byte 16:"))
        let reserved = TLVDecoder.DecodeError(kind: .reservedElementType(0x1F), offset: 0, path: "")
        #expect(reserved.description.contains("0x1F is reserved"))
    }
}
