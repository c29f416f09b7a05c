import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterSecureChannel

/// The onboarding payload: published QR codes and manual pairing codes, the QR reader's errors, the
/// passcode rules and random generation.
@Suite("Onboarding payload")
struct SetupPayloadTests {
    static func payload(
        _ vendorID: UInt16, _ productID: UInt16, _ capabilities: SetupPayload.DiscoveryCapabilities,
        discriminator: UInt16, passcode: UInt32, flow: SetupPayload.CommissioningFlow = .standard
    ) throws -> SetupPayload {
        try SetupPayload(
            vendorID: vendorID, productID: productID, commissioningFlow: flow, discoveryCapabilities: capabilities,
            discriminator: discriminator, passcode: SetupPasscode(passcode))
    }

    /// (source, payload, QR code): the QR codes as published.
    static let qrVectors: [(String, SetupPayload, String)] = [
        (
            "SDK test payload 20202021/3840, VID 0xFFF1 PID 0x8001, on-network (notes §4; Darwin kOnboardingPayload)",
            try! payload(0xFFF1, 0x8001, .onNetwork, discriminator: 3840, passcode: 20_202_021),
            "MT:-24J0AFN00KA0648G00"
        ),
        (
            "same, PID 0x8000, BLE (notes §4)",
            try! payload(0xFFF1, 0x8000, .ble, discriminator: 3840, passcode: 20_202_021),
            "MT:Y.K9042C00KA0648G00"
        ),
        (
            "connectedhomeip TestHelpers.h kDefaultPayloadQRCode: VID 12, PID 1, soft AP, 128, 2048",
            try! payload(12, 1, .softAP, discriminator: 128, passcode: 2048), "MT:M5L90MP500K64J00000"
        ),
        (
            "connectedhomeip kConcatenatedQRCode's second: discriminator and passcode + 1",
            try! payload(12, 1, .softAP, discriminator: 129, passcode: 2049), "MT:M5L90U.D010K4J00000"
        ),
        (
            "CircuitMatter test_setup_codes.py test_basic",
            try! payload(0xFFF4, 0x1234, .onNetwork, discriminator: 2721, passcode: 42_430_398),
            "MT:MNOA5D4V0163Z072Y00"
        ),
        (
            "CircuitMatter test_min", try! payload(0xFFF4, 0x1234, .onNetwork, discriminator: 0, passcode: 1),
            "MT:MNOA55UM00ID0000000"
        ),
        (
            "CircuitMatter test_max",
            try! payload(0xFFF4, 0x1234, .onNetwork, discriminator: 0xFFF, passcode: 99_999_998),
            "MT:MNOA5N15271DQ36B420"
        ),
    ]

    @Test("QR codes match the published ones and read back to the same payload", arguments: qrVectors)
    func qrCode(source: String, payload: SetupPayload, qrCode: String) throws {
        #expect(payload.qrCode == qrCode)
        #expect(try SetupPayload(qrCode: qrCode) == payload)
        #expect(try SetupPayload(qrCode: " \(qrCode)\n") == payload)
    }

    /// (source, discriminator, passcode, vendor and product for the long form, code).
    static let manualVectors: [(String, UInt16, UInt32, (UInt16, UInt16)?, String)] = [
        ("notes §4: 20202021/3840", 3840, 20_202_021, nil, "34970112332"),
        ("connectedhomeip TestManualCode: 123456780/2560, prefix 2361087535", 2560, 123_456_780, nil, "23610875350"),
        (
            "connectedhomeip: custom flow, VID 45367 PID 14526", 2560, 123_456_780, (45367, 14526),
            "636108753545367145260"
        ),
        ("connectedhomeip: custom flow, VID 1 PID 1", 2560, 123_456_780, (1, 1), "636108753500001000015"),
        ("connectedhomeip: custom flow, VID 0 PID 0", 2560, 123_456_780, (0, 0), "636108753500000000006"),
        (
            "connectedhomeip all ones: 0x7FFFFFF, 0xFFF, 65535/65535", 0xFFF, 0x7FF_FFFF, (65535, 65535),
            "765535819165535655356"
        ),
        ("connectedhomeip parser: 38728284/1280, 4562/32", 1280, 38_728_284, (4562, 32), "529276236304562000322"),
        ("connectedhomeip parser: 1/0, 1/1", 0, 1, (1, 1), "400001000000001000015"),
        ("CircuitMatter test_basic", 2721, 42_430_398, nil, "24499025895"),
        ("CircuitMatter test_min", 0, 1, nil, "00000100007"),
        ("CircuitMatter test_max", 0xFFF, 99_999_998, nil, "35759861036"),
        ("rs-matter code.rs: 123456/250", 250, 123_456, nil, "00876800071"),
        ("rs-matter code.rs: 34567890/2976", 2976, 34_567_890, nil, "26318621095"),
    ]

    @Test("manual pairing codes match the published ones", arguments: manualVectors)
    func manualCode(source: String, discriminator: UInt16, passcode: UInt32, long: (UInt16, UInt16)?, code: String) {
        #expect(
            SetupPayload.manualCode(discriminator: discriminator, passcode: passcode, vendorAndProduct: long) == code)
    }

    @Test("the long form is used exactly when the flow is custom (connectedhomeip ManualSetupPayloadGenerator)")
    func manualCodeForm() throws {
        let standard = try Self.payload(45367, 14526, .onNetwork, discriminator: 2560, passcode: 20_202_021)
        #expect(standard.manualPairingCode.count == 11)
        let custom = try Self.payload(
            45367, 14526, .onNetwork, discriminator: 2560, passcode: 20_202_021, flow: .custom)
        #expect(custom.manualPairingCode.count == 21)
        #expect(custom.manualPairingCode.dropFirst(10).prefix(10) == "4536714526")
        #expect(standard.shortDiscriminator == 10)
    }

    @Test("naming another vendor and product changes the QR code's ids, and nothing else")
    func naming() throws {
        for flow in [SetupPayload.CommissioningFlow.standard, .custom] {
            let test = try Self.payload(
                0xFFF1, 0x8001, .onNetwork, discriminator: 3840, passcode: 20_202_021, flow: flow)
            let product = test.naming(vendorID: 0x1234, productID: 0x5678)
            let read = try SetupPayload(qrCode: product.qrCode)
            #expect(read == product && read.vendorID == 0x1234 && read.productID == 0x5678)
            #expect(read.naming(vendorID: 0xFFF1, productID: 0x8001) == test)
            #expect(product.qrCode != test.qrCode)
            // The standard flow's 11 digits carry no vendor or product; the custom flow's 21 do.
            #expect((product.manualPairingCode == test.manualPairingCode) == (flow == .standard))
            if flow == .custom { #expect(product.manualPairingCode.dropFirst(10).prefix(10) == "0466022136") }
        }
    }

    @Test("Verhoeff: the published examples, and every row of the permutation table is p^i")
    func verhoeff() {
        #expect(Verhoeff.checkDigit(of: [2, 3, 6]) == 3)
        #expect(Verhoeff.checkDigit(of: [1, 2, 3, 4, 5]) == 1)
        #expect(Verhoeff.isValid([2, 3, 6, 3]))
        #expect(!Verhoeff.isValid([2, 6, 3, 3]))
        for row in 1..<8 {
            let expected = Verhoeff.permutation[1].map { Verhoeff.permutation[row - 1][Int($0)] }
            #expect(Verhoeff.permutation[row] == expected, "row \(row)")
        }
        let digits: [UInt8] = [3, 4, 9, 7, 0, 1, 1, 2, 3, 3, 2]
        for index in 0..<10 {  // every swap of adjacent distinct digits is caught
            var swapped = digits
            swapped.swapAt(index, index + 1)
            if swapped != digits { #expect(!Verhoeff.isValid(swapped)) }
        }
    }

    static let badQRCodes: [(String, String, SetupPayloadError)] = [
        ("no prefix", "-24J0AFN00KA0648G00", .missingPrefix),
        ("other prefix", "AT:M5L90MP500K64J00000", .missingPrefix),
        ("lower-case prefix", "mt:M5L90MP500K64J00000", .missingPrefix),
        ("a space inside", "MT:M5L90MP500 64J00000", .invalidCharacter(" ", offset: 10)),
        ("lower case", "MT:m5L90MP500K64J00000", .invalidCharacter("m", offset: 0)),
        ("one character short", "MT:M5L90MP500K64J0000", .invalidLength(18)),
        ("two characters short", "MT:M5L90MP500K64J000", .truncated(byteCount: 10)),
        ("empty body", "MT:", .truncated(byteCount: 0)),
        ("a chunk above 2^24", "MT:QLS18MP500K64J00000", .chunkOutOfRange(offset: 0)),
        ("several payloads", "MT:M5L90MP500K64J00000*M5L90U.D010K4J00000", .multiplePayloads),
        ("passcode 111111111 (connectedhomeip marginal value)", "MT:M5L90MP500W-GT68D20", .invalidPasscode),
        (
            "optional TLV data after the 11 bytes",
            "MT:" + Base38.encode(try! SetupPayload(qrCode: "MT:M5L90MP500K64J00000").packedBits + [0x15, 0x18]),
            .optionalDataUnsupported(byteCount: 2)
        ),
        ("too long", "MT:" + String(repeating: "0", count: 300), .tooLong(byteCount: 303, limit: 256)),
    ]

    @Test("a bad QR code gives a typed error and no payload", arguments: badQRCodes)
    func badQRCode(name: String, text: String, expected: SetupPayloadError) {
        #expect(throws: expected) { try SetupPayload(qrCode: text) }
    }

    @Test("version, flow and padding bits are checked")
    func reservedBits() {
        func code(version: UInt64 = 0, flow: UInt8 = 0, padding: UInt64 = 0) -> String {
            var bytes = SetupPayload.pack(
                vendorID: 12, productID: 1, flow: flow, capabilities: 1, discriminator: 128, passcode: 2048)
            bytes[0] |= UInt8(version)
            bytes[10] |= UInt8(padding << 4)
            return "MT:" + Base38.encode(bytes)
        }
        #expect(throws: SetupPayloadError.unsupportedVersion(1)) { try SetupPayload(qrCode: code(version: 1)) }
        #expect(throws: SetupPayloadError.reservedCommissioningFlow) { try SetupPayload(qrCode: code(flow: 3)) }
        #expect(throws: SetupPayloadError.nonZeroPadding) { try SetupPayload(qrCode: code(padding: 1)) }
        #expect(throws: Never.self) { try SetupPayload(qrCode: code()) }
    }

    @Test("base-38 matches connectedhomeip TestQRCode's vectors and refuses what it refuses")
    func base38() throws {
        let vectors: [([UInt8], String)] = [
            ([10], "A0"), ([10, 10], "OT10"), ([10, 10, 10], "-N.B0"), ([10, 10, 0], "OT100"), ([10, 10, 40], "Y6V91"),
            ([10, 10, 41], "KL0B1"), ([10, 10, 255], "Q-M08"), ([35], "Z0"), ([255, 0], "R600"), ([46, 0, 0], "81000"),
            ([255], "R6"), ([255, 255], "NE71"), ([255, 255, 255], "PLS18"),
            (Array("Hello World!".utf8), "KKHF3W2S013OPM3EJX11"),
            ([0, 1], "S600"), ([0, 0, 1], "OE710"), ([], ""),
        ]
        for (bytes, text) in vectors {
            #expect(Base38.encode(bytes) == text)
            #expect(try Base38.decode(Array(text)) == bytes)
        }
        for text in ["S6", "OE71", "QLS18"] {
            #expect(throws: SetupPayloadError.chunkOutOfRange(offset: 0)) { try Base38.decode(Array(text)) }
        }
        #expect(throws: SetupPayloadError.invalidCharacter("[", offset: 0)) { try Base38.decode(Array("[0")) }
        #expect(throws: SetupPayloadError.invalidLength(1)) { try Base38.decode(Array("0")) }
    }

    @Test("passcodes: 1...99999998 except the trivial ones; discriminators up to 4095")
    func validity() throws {
        for trivial: UInt32 in [0, 11_111_111, 22_222_222, 88_888_888, 99_999_999, 12_345_678, 87_654_321, 99_999_999] {
            #expect(throws: SetupPayloadError.invalidPasscode) { try SetupPasscode(trivial) }
        }
        #expect(throws: SetupPayloadError.invalidPasscode) { try SetupPasscode(100_000_000) }
        #expect(try SetupPasscode(1).value == 1)
        #expect(try SetupPasscode(99_999_998).value == 99_999_998)
        #expect(throws: SetupPayloadError.discriminatorOutOfRange(4096)) {
            try Self.payload(1, 1, .onNetwork, discriminator: 4096, passcode: 20_202_021)
        }
    }

    @Test("random passcodes and discriminators are valid and come from the injected generator")
    func random() {
        var first = SeededGenerator(seed: 7)
        var second = SeededGenerator(seed: 7)
        var passcodes: Set<UInt32> = []
        for _ in 0..<200 {
            let passcode = SetupPasscode.random(using: &first)
            #expect(SetupPasscode.isValid(passcode.value))
            #expect(passcode == SetupPasscode.random(using: &second))
            passcodes.insert(passcode.value)
            let discriminator = SetupPayload.randomDiscriminator(using: &first)
            #expect(discriminator <= 4095)
            #expect(discriminator == SetupPayload.randomDiscriminator(using: &second))
        }
        #expect(passcodes.count > 190)
    }

    @Test("description and dump never show the passcode")
    func redacted() throws {
        let payload = try Self.payload(0xFFF1, 0x8001, .onNetwork, discriminator: 3840, passcode: 20_202_021)
        var dumped = ""
        dump(payload, to: &dumped)
        dump(payload.passcode, to: &dumped)
        for text in [String(describing: payload), String(reflecting: payload), "\(payload.passcode)", dumped] {
            #expect(!text.contains("20202021"))
        }
        #expect(String(describing: payload).contains("discriminator: 3840"))
        #expect(!SetupPayloadError.invalidPasscode.description.contains("20202021"))
    }
}
