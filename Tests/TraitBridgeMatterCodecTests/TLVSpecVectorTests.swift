import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

// The examples of Matter Core spec Appendix A.12 "TLV Encoding Examples", row by row. The rows and
// bytes are as connectedhomeip restates them in src/controller/java/tests/matter/tlv/TlvReadWriteTest.kt
// (each test there quotes the spec row in a comment); the tag rows are also in matter.js's TlvCodec
// test ("Tag encodings from Matter Core specification Appendix A.12").
let specExamples: [TLVVector] = [
    TLVVector("Boolean false", .bool(false), "08"),
    TLVVector("Boolean true", .bool(true), "09"),
    TLVVector("Signed Integer, 1-octet, value 42", .signed(42), "00 2a"),
    TLVVector("Signed Integer, 1-octet, value -17", .signed(-17), "00 ef"),
    TLVVector("Unsigned Integer, 1-octet, value 42U", .unsigned(42), "04 2a"),
    TLVVector("Signed Integer, 2-octet, value 4242 (TlvReadWriteTest.kt)", .signed(4242), "01 92 10"),
    TLVVector("Signed Integer, 4-octet, value -170000", .signed(-170_000), "02 f0 67 fd ff"),
    TLVVector("Signed Integer, 8-octet, value 40000000000", .signed(40_000_000_000), "03 00 90 2f 50 09 00 00 00"),
    TLVVector(
        "Unsigned Integer, 8-octet, 40000000000 (TlvReadWriteTest.kt)", .unsigned(40_000_000_000),
        "07 00 90 2f 50 09 00 00 00"),
    TLVVector("UTF-8 String, 1-octet length, \"Hello!\"", .string("Hello!"), "0c 06 48 65 6c 6c 6f 21"),
    TLVVector("UTF-8 String, 1-octet length, \"Tschüs\"", .string("Tschüs"), "0c 07 54 73 63 68 c3 bc 73"),
    TLVVector("Octet String, 1-octet length, octets 00 01 02 03 04", .octets([0, 1, 2, 3, 4]), "10 05 00 01 02 03 04"),
    TLVVector("Null", .null, "14"),
    TLVVector("Single precision floating point 0.0", .float(0), "0a 00 00 00 00"),
    TLVVector("Single precision floating point (1.0 / 3.0)", .float(Float(1) / 3), "0a ab aa aa 3e"),
    TLVVector("Single precision floating point 17.9", .float(17.9), "0a 33 33 8f 41"),
    TLVVector("Single precision floating point infinity", .float(.infinity), "0a 00 00 80 7f"),
    TLVVector("Single precision floating point negative infinity", .float(-.infinity), "0a 00 00 80 ff"),
    TLVVector("Double precision floating point 0.0", .double(0), "0b 00 00 00 00 00 00 00 00"),
    TLVVector("Double precision floating point (1.0 / 3.0)", .double(1.0 / 3), "0b 55 55 55 55 55 55 d5 3f"),
    TLVVector("Double precision floating point 17.9", .double(17.9), "0b 66 66 66 66 66 e6 31 40"),
    TLVVector("Double precision floating point infinity", .double(.infinity), "0b 00 00 00 00 00 00 f0 7f"),
    TLVVector("Double precision floating point negative infinity", .double(-.infinity), "0b 00 00 00 00 00 00 f0 ff"),
    TLVVector("Empty Structure, {}", .structure([]), "15 18"),
    TLVVector("Empty Array, []", .array([]), "16 18"),
    TLVVector("Empty List, [[]]", .list([]), "17 18"),
    TLVVector(
        "Structure, two context specific tags, {0 = 42, 1 = -17}",
        .structure([member(.context(0), .signed(42)), member(.context(1), .signed(-17))]), "15 20 00 2a 20 01 ef 18"),
    TLVVector(
        "Array, Signed Integer, 1-octet values, [0, 1, 2, 3, 4]", .array((0...4).map { .signed($0) }),
        "16 00 00 00 01 00 02 00 03 00 04 18"),
    TLVVector(
        "List, mix of anonymous and context tags, [[1, 0 = 42, 2, 3, 0 = -17]]",
        .list([
            member(.anonymous, .signed(1)), member(.context(0), .signed(42)), member(.anonymous, .signed(2)),
            member(.anonymous, .signed(3)), member(.context(0), .signed(-17)),
        ]), "17 00 01 20 00 2a 00 02 00 03 20 00 ef 18"),
    TLVVector(
        "Array, mix of element types, [42, -170000, {}, 17.9, \"Hello!\"]",
        .array([.signed(42), .signed(-170_000), .structure([]), .float(17.9), .string("Hello!")]),
        "16 00 2a 02 f0 67 fd ff 15 18 0a 33 33 8f 41 0c 06 48 65 6c 6c 6f 21 18"),
    TLVVector("Anonymous tag, Unsigned Integer, 1-octet value, 42U", .unsigned(42), "04 2a"),
    TLVVector(
        "Context tag 1, Unsigned Integer, 1-octet value, {1 = 42U}",
        .structure([member(.context(1), .unsigned(42))]), "15 24 01 2a 18"),
    TLVVector(
        "Context tag 1 in a list, [[1 = 42U]] (TlvReadWriteTest.kt)",
        .list([member(.context(1), .unsigned(42))]), "17 24 01 2a 18"),
    TLVVector("Common profile tag 1, Matter::1 = 42U", .unsigned(42), "44 01 00 2a", tag: .commonProfile(1)),
    TLVVector(
        "Common profile tag 100000, Matter::100000 = 42U", .unsigned(42), "64 a0 86 01 00 2a",
        tag: .commonProfile(100_000)),
    TLVVector(
        "Fully qualified tag, 2-octet tag 1, 65521::57069:1 = 42U", .unsigned(42), "c4 f1 ff ed de 01 00 2a",
        tag: .specProfile(1)),
    TLVVector(
        "Fully qualified tag, 4-octet tag 0xAA55FEED, 65521::57069:2857762541 = 42U", .unsigned(42),
        "e4 f1 ff ed de ed fe 55 aa 2a", tag: .specProfile(0xAA55_FEED)),
    TLVVector(
        "Structure with fully qualified tags, 65521::57069:1 = {65521::57069:43605 = 42U}",
        .structure([member(.specProfile(43605), .unsigned(42))]), "d5 f1 ff ed de 01 00 c4 f1 ff ed de 55 aa 2a 18",
        tag: .specProfile(1)),
]

// Further fixed encodings from the Matter SDK's and matter.js's own tests.
let libraryExamples: [TLVVector] = [
    TLVVector(
        "signed array [42, -17, -170000, 40000000000] (TlvReadWriteTest.kt putSignedLongArray)",
        .array([.signed(42), .signed(-17), .signed(-170_000), .signed(40_000_000_000)]),
        "16 00 2a 00 ef 02 f0 67 fd ff 03 00 90 2f 50 09 00 00 00 18"),
    TLVVector(
        "unsigned array [42, 170000, 40000000000] (TlvReadWriteTest.kt putUnsignedLongArray)",
        .array([.unsigned(42), .unsigned(170_000), .unsigned(40_000_000_000)]),
        "16 04 2a 06 10 98 02 00 07 00 90 2f 50 09 00 00 00 18"),
    TLVVector(
        "octet string array (TlvReadWriteTest.kt putByteStringArray)",
        .array([.octets([0, 1, 2, 3, 4]), .octets([0xFF]), .octets([0x4A, 0xEF, 0x88])]),
        "16 10 05 00 01 02 03 04 10 01 ff 10 03 4a ef 88 18"),
    TLVVector("-1 in 1 byte (matter.js packages/types/test/tlv/TlvNumberTest.ts)", .signed(-1), "00ff"),
    TLVVector("0x0100 signed (TlvNumberTest.ts)", .signed(0x0100), "010001"),
    TLVVector("0x01000000 signed (TlvNumberTest.ts)", .signed(0x0100_0000), "0200000001"),
    TLVVector("2^48 signed (TlvNumberTest.ts)", .signed(0x0001_0000_0000_0000), "030000000000000100"),
    TLVVector("1 unsigned (TlvNumberTest.ts)", .unsigned(1), "0401"),
    TLVVector("0x0100 unsigned (TlvNumberTest.ts)", .unsigned(0x0100), "050001"),
    TLVVector("0x01000000 unsigned (TlvNumberTest.ts)", .unsigned(0x0100_0000), "0600000001"),
    TLVVector("2^48 unsigned (TlvNumberTest.ts)", .unsigned(0x0001_0000_0000_0000), "070000000000000100"),
    TLVVector("float 6546.25390625 (TlvNumberTest.ts)", .float(6546.25390625), "0a0892cc45"),
    TLVVector("double 6546.254 (TlvNumberTest.ts)", .double(6546.254), "0b2fdd24064192b940"),
    TLVVector(
        "object {1: 1U, 2: \"test\"} (matter.js packages/types/test/tlv/TlvObjectTest.ts)",
        .structure([member(.context(1), .unsigned(1)), member(.context(2), .string("test"))]),
        "152401012c02047465737418"),
    TLVVector(
        "structure with a 4-octet fully qualified member (matter.js TlvCodec test)",
        .structure([member(.specProfile(0xAA55_FEED), .unsigned(42))]), "15e4f1ffeddeedfe55aa2a18"),
]

@Suite("Matter TLV fixed vectors")
struct TLVSpecVectorTests {
    @Test("a spec A.12 example encodes to its bytes and decodes back", arguments: specExamples)
    func specExample(vector: TLVVector) throws {
        #expect(vector.element.encoded == vector.bytes)
        #expect(try TLVDecoder().decode(vector.bytes) == vector.element)
    }

    @Test("an SDK or matter.js vector encodes to its bytes and decodes back", arguments: libraryExamples)
    func libraryExample(vector: TLVVector) throws {
        #expect(vector.element.encoded == vector.bytes)
        #expect(try TLVDecoder().decode(vector.bytes) == vector.element)
    }

    @Test("a 2-octet signed 42 (spec A.12, 01 2a 00) decodes as 42 and is written so only when asked")
    func widerThanNeeded() throws {
        #expect(try TLVDecoder().decode(hex("01 2a 00")) == TLVElement(value: .signed(42)))
        #expect(TLVElement(value: .signed(42)).encoded == hex("00 2a"))
        var writer = TLVWriter()
        writer.appendSigned(42, width: .two)
        #expect(writer.bytes == hex("01 2a 00"))
    }

    @Test("a bare context-tagged member is written as spec A.12 shows it: 24 01 2a")
    func bareContextMember() {
        var writer = TLVWriter()
        writer.append(.unsigned(42), tag: .context(1))
        #expect(writer.bytes == hex("24 01 2a"))
    }

    @Test("the SDK's Encoding1 (TestTLV.cpp) decodes to the expected tree and encodes back byte for byte")
    func sdkEncoding1() throws {
        #expect(sdkEncoding1Bytes.count == 381 && sdkLargeString.utf8.count == 270)
        #expect(try TLVDecoder().decode(sdkEncoding1Bytes) == sdkEncoding1Element)
        #expect(sdkEncoding1Element.encoded == sdkEncoding1Bytes)
    }

    @Test("a real PBKDFParamRequest (matter.js MessageCodecTest.ts) reads field by field and re-encodes exactly")
    func pbkdfParamRequest() throws {
        let request = try TLVElement(decoding: pbkdfParamRequestBytes)
        #expect(request.tag == .anonymous)
        let value = request.value
        let random = hex("4715a406c6b0496ad52039e347db8528cb69a1cb2fce6f2318552ae65e103aca")
        #expect(try value.octets(1, count: 32) == random)
        #expect(try value.uint(2, as: UInt16.self) == 56371)
        #expect(try value.uint(3, as: UInt16.self) == 0)
        #expect(try value.bool(4) == false)
        #expect(try value.structure(5).uint(1, as: UInt32.self) == 5000)
        #expect(try value[5]?.uint(2, as: UInt32.self) == 300)
        #expect(request.encoded == pbkdfParamRequestBytes)

        let built = TLVValue.contextStructure([
            1: .octets(random), 2: .unsigned(56371), 3: .unsigned(0), 4: .bool(false),
            5: .contextStructure([1: .unsigned(5000), 2: .unsigned(300)]), 6: nil,
        ])
        #expect(TLVElement(value: built).encoded == pbkdfParamRequestBytes)
    }
}

/// Encoding1 of connectedhomeip src/lib/core/tests/TestTLV.cpp (also in TlvReadWriteTest.kt).
let sdkEncoding1Bytes =
    hex(
        """
        D5 BB AA DD CC 01 00 C9 BB AA DD CC 02 00 88 02 00 36 00 00 2A 00 EF 02 F0 67 FD FF 07 00 90 2F
        50 09 00 00 00 15 18 17 D4 BB AA DD CC 11 00 B4 A0 BB 0D 00 14 B5 00 28 6B EE 6D 70 11 01 00 0E 01
        """) + Array(sdkLargeString.utf8)
    + hex(
        """
        18 18 18 CC BB AA DD CC 05 00 0E 54 68 69 73 20 69 73 20 61 20 74 65 73 74 8A FF FF 33 33 8F 41
        AB 00 00 01 00 66 66 66 66 66 E6 31 40 18
        """)

/// sLargeString of TestTLV.cpp: 270 bytes, so written with a 2-byte length (0x010E).
let sdkLargeString =
    "START..."
    + "!123456789ABCDEF@123456789ABCDEF#123456789ABCDEF$123456789ABCDEF%123456789ABCDEF^123456789ABCDEF"
    + "&123456789ABCDEF*123456789ABCDEF"
    + "01234567(9ABCDEF01234567)9ABCDEF01234567-9ABCDEF01234567=9ABCDEF01234567[9ABCDEF01234567]9ABCDEF"
    + "01234567;9ABCDEF01234567'9ABCDEF" + "...END"

let sdkEncoding1Element = TLVElement(
    tag: .sdkProfile(1),
    value: .structure([
        member(.sdkProfile(2), .bool(true)),
        member(.implicitProfile(2), .bool(false)),
        member(
            .context(0),
            .array([
                .signed(42), .signed(-17), .signed(-170_000), .unsigned(40_000_000_000), .structure([]),
                .list([
                    member(.sdkProfile(17), .null),
                    member(.implicitProfile(900_000), .null),
                    member(.anonymous, .null),
                    member(
                        .implicitProfile(4_000_000_000),
                        .structure([
                            member(.commonProfile(70_000), .string(sdkLargeString))
                        ])),
                ]),
            ])),
        member(.sdkProfile(5), .string("This is a test")),
        member(.implicitProfile(65535), .float(17.9)),
        member(.implicitProfile(65536), .double(17.9)),
    ]))

/// The payload of the PBKDFParamRequest in matter.js packages/protocol/test/codec/MessageCodecTest.ts
/// (also rs-matter's and the early node-matter's TLV tests): {1: 32 random bytes, 2: 56371,
/// 3: 0, 4: false, 5: {1: 5000, 2: 300}}.
let pbkdfParamRequestBytes = hex(
    "153001204715a406c6b0496ad52039e347db8528cb69a1cb2fce6f2318552ae65e103aca250233dc240300280435052501881325022c011818"
)
