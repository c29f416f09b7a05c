import Testing
import TraitBridgeMatterCodec
import TraitBridgeTesting

/// Bounded, deterministic fuzzing: the loops must finish without a trap, every error must point
/// inside the bytes given, and whatever decodes must encode and decode again to the same value.
@Suite("Matter TLV fuzz")
struct TLVFuzzTests {
    /// Control bytes that open, close and fill containers, so random input gets past the first byte.
    static let interesting: [UInt8] = [
        0x15, 0x16, 0x17, 0x18, 0x35, 0x36, 0x37, 0x24, 0x25, 0x2C, 0x30, 0x00, 0x04, 0x08, 0x0A, 0x0C,
        0x10, 0x13, 0x14, 0xC4, 0xE4, 0x01, 0x02, 0xFF,
    ]

    @Test("20 000 random byte strings from a fixed seed decode or fail cleanly")
    func randomBytes() {
        var random = XorShift(seed: 0x5EED_7119)
        var outcome = Outcome()
        for round in 0..<20_000 {
            let count = random.below(48)
            let bytes: [UInt8]
            switch round % 4 {
            case 0: bytes = (0..<count).map { _ in random.byte() }
            case 1: bytes = (0..<count).map { _ in Self.interesting[random.below(Self.interesting.count)] }
            default:  // framed as a structure with a first member, so more of them get inside
                bytes =
                    [0x15, 0x24, random.byte()]
                    + (0..<count).map { _ in Self.interesting[random.below(Self.interesting.count)] } + [0x18]
            }
            outcome.check(bytes)
        }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
        #expect(outcome.decodedContainers > 100, "the framed rounds should reach decoded structures")
    }

    @Test("2 000 random trees round-trip exactly, and 3 mutations of each decode or fail cleanly")
    func randomTrees() throws {
        var random = XorShift(seed: 0x7EE5)
        var outcome = Outcome()
        for _ in 0..<2_000 {
            let element = TLVElement(value: Self.randomValue(&random, depth: 0))
            let bytes = element.encoded
            #expect(try TLVDecoder().decode(bytes) == element)
            for _ in 0..<3 { outcome.check(Self.mutated(bytes, &random)) }
        }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
    }

    @Test("10 000 mutations of real messages decode or fail cleanly")
    func mutations() {
        var random = XorShift(seed: 0xC0FF_EE00)
        let seeds = [sdkEncoding1Bytes, pbkdfParamRequestBytes] + specExamples.map(\.bytes)
        var outcome = Outcome()
        for _ in 0..<10_000 { outcome.check(Self.mutated(seeds[random.below(seeds.count)], &random)) }
        #expect(outcome.failures.isEmpty, "\(outcome.failures.prefix(5))")
        #expect(outcome.decoded > 100, "some mutations (a changed integer or string byte) stay valid")
    }

    /// One to three random edits: overwrite, flip a bit, delete, or insert a control byte.
    static func mutated(_ original: [UInt8], _ random: inout XorShift) -> [UInt8] {
        var bytes = original
        for _ in 0...random.below(3) {
            let position = bytes.isEmpty ? 0 : random.below(bytes.count)
            switch random.below(4) {
            case 0 where !bytes.isEmpty: bytes[position] = random.byte()
            case 1 where !bytes.isEmpty: bytes[position] ^= 1 << UInt8(random.below(8))
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            default: bytes.insert(interesting[random.below(interesting.count)], at: position)
            }
        }
        return bytes
    }

    /// A random value that obeys the container rules, at most five containers deep.
    static func randomValue(_ random: inout XorShift, depth: Int) -> TLVValue {
        switch random.below(depth >= 5 ? 8 : 11) {
        case 0: return .signed(Int64(bitPattern: random.next()) >> UInt64(random.below(64)))
        case 1: return .unsigned(random.next() >> UInt64(random.below(64)))
        case 2: return random.below(2) == 0 ? .bool(random.below(2) == 0) : .null
        case 3: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: random.next())))
        case 4: return .double(Double(bitPattern: random.next()))
        case 5: return .string(String(repeating: "é🏠x", count: random.below(4)))
        case 6, 7: return .octets((0..<random.below(300)).map { _ in random.byte() })
        case 8:
            var tag = UInt8(random.below(4))
            return .structure(
                (0..<random.below(4)).map { _ in
                    defer { tag += 1 + UInt8(random.below(60)) }
                    return TLVElement(tag: .context(tag), value: randomValue(&random, depth: depth + 1))
                })
        case 9: return .array((0..<random.below(4)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            return .list(
                (0..<random.below(4)).map { _ in
                    TLVElement(tag: randomTag(&random), value: randomValue(&random, depth: depth + 1))
                })
        }
    }

    static func randomTag(_ random: inout XorShift) -> TLVTag {
        let number = UInt32(truncatingIfNeeded: random.next() >> UInt64(random.below(33)))
        switch random.below(5) {
        case 0: return .anonymous
        case 1: return .context(UInt8(truncatingIfNeeded: number))
        case 2: return .commonProfile(number)
        case 3: return .implicitProfile(number)
        default: return .fullyQualified(vendorID: 0xFFF1, profile: UInt16(truncatingIfNeeded: number), tag: number)
        }
    }
}

/// What the fuzz loops saw: contract breaks, and how much decoded (so a loop that never gets past
/// the first byte is noticed).
private struct Outcome {
    var failures: [String] = []
    var decoded = 0
    var decodedContainers = 0

    /// Decodes `bytes` every way the API offers and records what breaks the contract.
    mutating func check(_ bytes: [UInt8]) {
        let decoder = TLVDecoder()
        _ = try? decoder.decodeAll(bytes)
        _ = try? decoder.peek(bytes, at: 0)
        let element: TLVElement
        do {
            element = try decoder.decode(bytes)
        } catch {
            if error.offset < 0 || error.offset > bytes.count { failures.append("offset out of range: \(error)") }
            return
        }
        decoded += 1
        if element.value.members != nil { decodedContainers += 1 }
        do {
            let again = try decoder.decode(element.encoded)
            if again != element { failures.append("re-decoded differently: \(bytes)") }
        } catch {
            failures.append("re-encoding \(bytes) does not decode: \(error)")
        }
    }
}
