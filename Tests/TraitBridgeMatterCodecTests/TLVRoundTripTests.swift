import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

/// A value and the number of bytes its shortest encoding takes (control byte included).
struct SizedValue: Sendable, CustomTestStringConvertible {
    let value: TLVValue
    let encodedCount: Int
    var testDescription: String { "\(value.description.prefix(40)) in \(encodedCount) bytes" }
}

let integerBoundaries: [SizedValue] = [
    SizedValue(value: .signed(0), encodedCount: 2),
    SizedValue(value: .signed(Int64(Int8.min)), encodedCount: 2),
    SizedValue(value: .signed(Int64(Int8.max)), encodedCount: 2),
    SizedValue(value: .signed(Int64(Int8.min) - 1), encodedCount: 3),
    SizedValue(value: .signed(Int64(Int8.max) + 1), encodedCount: 3),
    SizedValue(value: .signed(Int64(Int16.min)), encodedCount: 3),
    SizedValue(value: .signed(Int64(Int16.max)), encodedCount: 3),
    SizedValue(value: .signed(Int64(Int16.min) - 1), encodedCount: 5),
    SizedValue(value: .signed(Int64(Int16.max) + 1), encodedCount: 5),
    SizedValue(value: .signed(Int64(Int32.min)), encodedCount: 5),
    SizedValue(value: .signed(Int64(Int32.max)), encodedCount: 5),
    SizedValue(value: .signed(Int64(Int32.min) - 1), encodedCount: 9),
    SizedValue(value: .signed(Int64(Int32.max) + 1), encodedCount: 9),
    SizedValue(value: .signed(Int64.min), encodedCount: 9),
    SizedValue(value: .signed(Int64.max), encodedCount: 9),
    SizedValue(value: .unsigned(0), encodedCount: 2),
    SizedValue(value: .unsigned(UInt64(UInt8.max)), encodedCount: 2),
    SizedValue(value: .unsigned(UInt64(UInt8.max) + 1), encodedCount: 3),
    SizedValue(value: .unsigned(UInt64(UInt16.max)), encodedCount: 3),
    SizedValue(value: .unsigned(UInt64(UInt16.max) + 1), encodedCount: 5),
    SizedValue(value: .unsigned(UInt64(UInt32.max)), encodedCount: 5),
    SizedValue(value: .unsigned(UInt64(UInt32.max) + 1), encodedCount: 9),
    SizedValue(value: .unsigned(UInt64.max), encodedCount: 9),
]

let otherValues: [SizedValue] = [
    SizedValue(value: .string(""), encodedCount: 2),
    SizedValue(value: .string(String(repeating: "a", count: 255)), encodedCount: 2 + 255),
    SizedValue(value: .string(String(repeating: "ü", count: 128)), encodedCount: 3 + 256),
    SizedValue(value: .string(String(repeating: "z", count: 65535)), encodedCount: 3 + 65535),
    SizedValue(value: .string(String(repeating: "z", count: 65536)), encodedCount: 5 + 65536),
    SizedValue(value: .string("nul \u{0} and emoji 🏠"), encodedCount: 2 + 20),
    SizedValue(value: .octets([]), encodedCount: 2),
    SizedValue(value: .octets([UInt8](repeating: 0xAB, count: 255)), encodedCount: 2 + 255),
    SizedValue(value: .octets([UInt8](repeating: 0xCD, count: 256)), encodedCount: 3 + 256),
    SizedValue(value: .octets((0..<65536).map { UInt8(truncatingIfNeeded: $0) }), encodedCount: 5 + 65536),
    SizedValue(value: .float(-0.0), encodedCount: 5),
    SizedValue(value: .float(.nan), encodedCount: 5),
    SizedValue(value: .float(.leastNonzeroMagnitude), encodedCount: 5),
    SizedValue(value: .double(.greatestFiniteMagnitude), encodedCount: 9),
    SizedValue(value: .double(-.nan), encodedCount: 9),
    SizedValue(value: .bool(true), encodedCount: 1),
    SizedValue(value: .null, encodedCount: 1),
    SizedValue(value: .array([.null, .array([.array([])]), .list([])]), encodedCount: 9),
    SizedValue(
        value: .list([
            member(.context(7), .null), member(.context(7), .null), member(.anonymous, .unsigned(1)),
            member(.commonProfile(0x1_0000), .bool(false)), member(.implicitProfile(3), .bool(true)),
        ]), encodedCount: 1 + 2 + 2 + 2 + 5 + 3 + 1),
]

@Suite("Matter TLV round trips")
struct TLVRoundTripTests {
    @Test("an integer takes its shortest width and reads back equal", arguments: integerBoundaries)
    func integer(sized: SizedValue) throws {
        try roundTrip(sized)
    }

    @Test(
        "strings, octets, floats and containers take their shortest forms and read back equal",
        arguments: otherValues)
    func other(sized: SizedValue) throws {
        try roundTrip(sized)
    }

    private func roundTrip(_ sized: SizedValue) throws {
        let element = TLVElement(value: sized.value)
        let bytes = element.encoded
        #expect(bytes.count == sized.encodedCount)
        #expect(try TLVDecoder().decode(bytes) == element)
        let inStructure = TLVElement(value: .structure([member(.context(9), sized.value)]))
        #expect(try TLVDecoder().decode(inStructure.encoded) == inStructure)
    }

    @Test(
        "a string's length field grows at 256 and 65536 bytes",
        arguments: [
            (255, [0x0C, 0xFF]), (256, [0x0D, 0x00, 0x01]), (65535, [0x0D, 0xFF, 0xFF]), (65536, [0x0E, 0, 0, 1, 0]),
        ] as [(Int, [UInt8])])
    func lengthField(count: Int, header: [UInt8]) {
        let bytes = TLVElement(value: .string(String(repeating: "x", count: count))).encoded
        #expect(Array(bytes.prefix(header.count)) == header)
    }

    @Test(
        "any integer width decodes to the same value, and the writer widens only when asked",
        arguments: TLVWriter.Width.allCases)
    func widths(width: TLVWriter.Width) throws {
        var writer = TLVWriter()
        writer.appendUnsigned(7, tag: .context(1), width: width)
        writer.appendSigned(-7, tag: .context(2), width: width)
        writer.appendUnsigned(70_000, tag: .context(3), width: width)
        #expect(writer.bytes.count == 3 * (2 + width.rawValue) + (width < .four ? 4 - width.rawValue : 0))
        var inStructure = TLVWriter()
        inStructure.appendStructure { (body: inout TLVWriter) in
            body.appendUnsigned(7, tag: .context(1), width: width)
            body.appendSigned(-7, tag: .context(2), width: width)
            body.appendUnsigned(70_000, tag: .context(3), width: width)
        }
        let value = try TLVDecoder().decode(inStructure.bytes).value
        #expect(value == .contextStructure([1: .unsigned(7), 2: .signed(-7), 3: .unsigned(70_000)]))
    }

    @Test("the streaming writer and the value tree write the same bytes")
    func writerMatchesTree() {
        var writer = TLVWriter()
        writer.startStructure()
        writer.appendUnsigned(1, tag: .context(1))
        writer.startArray(.context(2))
        writer.append(.string("a"))
        writer.append(.octets([1]))
        writer.endContainer()
        writer.startList(.context(3))
        writer.append(member(.context(0), .double(2.5)))
        writer.endContainer()
        writer.endContainer()
        let tree = TLVValue.contextStructure([
            1: .unsigned(1), 2: .array([.string("a"), .octets([1])]), 3: .list([member(.context(0), .double(2.5))]),
        ])
        #expect(writer.bytes == TLVElement(value: tree).encoded)
    }

    @Test("equality is exact: NaN equals itself, 0.0 differs from -0.0, composed and decomposed é differ")
    func exactEquality() {
        #expect(TLVValue.double(.nan) == .double(.nan))
        #expect(TLVValue.float(0) != .float(-0.0))
        #expect(TLVValue.string("\u{E9}") != .string("e\u{301}"))
        #expect(TLVValue.signed(1) != .unsigned(1))
        #expect(TLVValue.structure([]) != .list([]))
    }

    @Test("descriptions use the spec's notation")
    func descriptions() {
        let value = TLVValue.list([
            member(.anonymous, .unsigned(1)), member(.context(0), .signed(-17)),
            member(.specProfile(1), .structure([member(.commonProfile(100_000), .octets([0, 0xAB]))])),
        ])
        #expect(value.description == "[[1U, 0 = -17, 65521::57069:1 = {Matter::100000 = hex:00ab}]]")
    }
}
