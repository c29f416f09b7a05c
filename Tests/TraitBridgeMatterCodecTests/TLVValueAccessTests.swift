import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

@Suite("Matter TLV member access")
struct TLVValueAccessTests {
    /// {1: octets(4), 2: 70000U, 3: -5, 4: true, 5: "hi", 6: 1.5f, 7: [1U], 8: {1: null}}
    let message = TLVValue.contextStructure([
        1: .octets([1, 2, 3, 4]), 2: .unsigned(70_000), 3: .signed(-5), 4: .bool(true), 5: .string("hi"),
        6: .float(1.5), 7: .array([.unsigned(1)]), 8: .contextStructure([1: .null]),
    ])

    @Test("typed getters read members by context tag")
    func reads() throws {
        #expect(try message.octets(1) == [1, 2, 3, 4])
        #expect(try message.octets(1, count: 4) == [1, 2, 3, 4])
        #expect(try message.uint(2) == 70_000)
        #expect(try message.uint(2, as: UInt32.self) == 70_000)
        #expect(try message.int(3, as: Int8.self) == -5)
        #expect(try message.bool(4))
        #expect(try message.string(5) == "hi")
        #expect(try message.double(6) == 1.5)
        #expect(try message.array(7) == [.unsigned(1)])
        #expect(try message.structure(8).member(1).isNull)
        #expect(message[9] == nil && message[8]?[1] == .null && message[.context(5)] == .string("hi"))
        #expect(message.members?.count == 8)
    }

    @Test(
        "a getter's error names the member and what was wrong",
        arguments: [
            (9, TLVValue.AccessError.missing(.context(9)), "member 9 is missing"),
            (
                5, .wrongType(.context(5), expected: .unsignedInteger, found: .utf8String),
                "member 5 is a UTF-8 string, expected an unsigned integer"
            ),
            (
                2, .outOfRange(.context(2), value: "70000", expected: "UInt16"),
                "member 2 is 70000, which does not fit UInt16"
            ),
            (
                3, .wrongType(.context(3), expected: .unsignedInteger, found: .signedInteger),
                "member 3 is a signed integer"
            ),
        ] as [(UInt8, TLVValue.AccessError, String)])
    func uintErrors(tag: UInt8, expected: TLVValue.AccessError, words: String) {
        let error = #expect(throws: TLVValue.AccessError.self) { try message.uint(tag, as: UInt16.self) }
        #expect(error == expected)
        #expect(error?.description.contains(words) == true)
    }

    @Test("octets of the wrong length, members of a non-container and a signed overflow are refused")
    func otherErrors() {
        #expect(throws: TLVValue.AccessError.wrongLength(.context(1), expected: 32, found: 4)) {
            try message.octets(1, count: 32)
        }
        #expect(throws: TLVValue.AccessError.notAContainer(found: .boolean)) { try TLVValue.bool(true).member(1) }
        #expect(throws: TLVValue.AccessError.outOfRange(nil, value: "300", expected: "Int8")) {
            try TLVValue.signed(300).asInt(Int8.self)
        }
        #expect(throws: TLVValue.AccessError.wrongType(.context(8), expected: .array, found: .structure)) {
            try message.array(8)
        }
        #expect(TLVValue.bool(true)[1] == nil)
    }

    @Test("a decoded PBKDFParamRequest without its optional member reads it as absent")
    func optionalMember() throws {
        // ENCODED_NO_OPTIONALS of the same request, from the TLV object codec test of node-matter (the
        // project that became matter.js): members 3 and 5 are absent.
        let value = try TLVDecoder().decode(
            hex("153001204715a406c6b0496ad52039e347db8528cb69a1cb2fce6f2318552ae65e103aca250233dc280418")
        ).value
        #expect(try value.uint(2, as: UInt16.self) == 56371 && value[3] == nil && value[5] == nil)
        #expect(try value.bool(4) == false)
    }

    @Test("peek reads a header only, and decodeElement walks a sequence")
    func peekAndWalk() throws {
        let bytes = hex("15 24 01 2a 18 0c 02 68 69")
        let decoder = TLVDecoder()
        let header = try decoder.peek(bytes, at: 0)
        #expect(header.tag == .anonymous && header.type == .structure && header.valueOffset == 1)
        #expect(try decoder.peek(bytes, at: 1).tag == .context(1))
        #expect(try decoder.peek(bytes, at: 4).type == nil)
        let first = try decoder.decodeElement(bytes, at: 0)
        #expect(first.next == 5)
        #expect(try decoder.decodeElement(bytes, at: first.next).element.value == .string("hi"))
        #expect(try decoder.decodeAll(bytes).count == 2)
        #expect(throws: TLVDecoder.DecodeError.self) { try decoder.decodeElement(bytes, at: 99) }
    }
}
