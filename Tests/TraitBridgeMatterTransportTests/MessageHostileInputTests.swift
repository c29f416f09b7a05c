import Crypto
import Testing
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// Cut and random bytes: every prefix of a published header fails at the field it cuts, and no
/// input, however hostile, traps or reports a byte outside itself.
@Suite("Matter message hostile input")
struct MessageHostileInputTests {
    /// Where each field of `header`'s encoding starts; an extension block counts from its length.
    static func fieldStarts(_ header: MessageHeader) -> [Int] {
        var starts = [0, 1, 3, 4]
        var next = 8
        if header.sourceNodeID != nil {
            starts.append(next)
            next += 8
        }
        switch header.destination {
        case .node?:
            starts.append(next)
            next += 8
        case .group?:
            starts.append(next)
            next += 2
        case nil: break
        }
        if header.extensions != nil { starts.append(next) }
        return starts
    }

    static func fieldStarts(_ header: ProtocolHeader) -> [Int] {
        var starts = [0, 1, 2]
        var next = 4
        if header.protocolID.vendorID != 0 {
            starts.append(next)
            next += 2
        }
        starts.append(next)
        next += 2
        if header.acknowledgedMessageCounter != nil {
            starts.append(next)
            next += 4
        }
        if header.securedExtensions != nil { starts.append(next) }
        return starts
    }

    @Test(
        "every truncation of a published header fails at the start of the field it cuts", arguments: MessageVectors.all)
    func truncations(vector: HeaderVector) {
        let starts = Self.fieldStarts(vector.header)
        for count in 0..<vector.protocolHeaderOffset {
            let error = #expect(throws: MessageDecodeError.self) {
                try MessageHeader.decode(Array(vector.bytes.prefix(count)))
            }
            #expect(
                error?.offset == starts.last { $0 <= count }, "prefix of \(count) bytes: \(String(describing: error))")
        }
        guard let protocolHeader = vector.protocolHeader else { return }
        let base = vector.protocolHeaderOffset
        let protocolStarts = Self.fieldStarts(protocolHeader)
        for count in 0..<vector.applicationPayloadOffset {
            let bytes = Array(vector.bytes[base..<base + count])
            let error = #expect(throws: MessageDecodeError.self) {
                try ProtocolHeader.decode(bytes, reportingFrom: base)
            }
            #expect(
                error?.offset == base + (protocolStarts.last { $0 <= count } ?? 0), "protocol header prefix \(count)")
        }
    }

    @Test("a secure message shorter than its MIC is refused before decryption, at the first missing byte")
    func missingMIC() {
        let key = SymmetricKey(data: [UInt8](repeating: 1, count: 16))
        let bytes = hex("00 88 77 00 44 33 22 11") + [UInt8](repeating: 0, count: 15)
        let kind = MessageDecodeError.Kind.truncated(.messageIntegrityCheck, needed: 16, remaining: 15)
        #expect(throws: TransportError.decode(MessageDecodeError(kind: kind, offset: 8))) {
            try Message.open(bytes, key: key, senderNodeID: 0)
        }
    }

    @Test("20 000 random and mutated messages from a fixed seed decode or fail cleanly")
    func fuzz() {
        var random = XorShift(seed: 0x4D41_5454)
        let key = SymmetricKey(data: [UInt8](repeating: 0x5A, count: 16))
        let seeds = MessageVectors.all.map(\.bytes) + MessageVectors.privacyVectors.map(\.1)
        var failures: [String] = []
        var decoded = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 2) {
                bytes = (0..<random.below(48)).map { _ in random.byte() }
            } else {
                bytes = seeds[random.below(seeds.count)]
                for _ in 0...random.below(3) where !bytes.isEmpty {
                    let position = random.below(bytes.count)
                    switch random.below(3) {
                    case 0: bytes[position] = random.byte()
                    case 1: bytes.removeSubrange(position...)
                    default: bytes[position] ^= 1 << UInt8(random.below(8))
                    }
                }
            }
            do {
                let (header, offset) = try MessageHeader.decode(bytes)
                decoded += 1
                if offset > bytes.count { failures.append("payload offset past the end: \(bytes.hex)") }
                if (try? MessageHeader.decode(header.encoded))?.header != header {
                    failures.append("re-encoded header decodes differently: \(bytes.hex)")
                }
            } catch {
                if !(0...bytes.count).contains(error.offset) { failures.append("offset out of range: \(error)") }
            }
            if let (header, _) = try? ProtocolHeader.decode(bytes),
                (try? ProtocolHeader.decode(header.encoded))?.header != header
            {
                failures.append("re-encoded protocol header decodes differently: \(bytes.hex)")
            }
            _ = try? Message.decodeUnsecured(bytes)
            if (try? Message.open(bytes, key: key, senderNodeID: 0)) != nil { failures.append("opened: \(bytes.hex)") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(decoded > 2_000, "mutations of real headers should often stay valid")
    }
}
