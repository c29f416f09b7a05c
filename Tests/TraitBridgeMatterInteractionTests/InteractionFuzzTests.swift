import Testing
import TraitBridgeTesting
import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction

/// Hostile payloads never trap: every decoder either decodes or throws, for mutated real messages and for
/// random bytes; whatever decodes re-encodes to bytes that decode to the same message.
@Suite("Interaction Model fuzz")
struct InteractionFuzzTests {
    static let seeds: [[UInt8]] = [
        RecordedInteraction.readPartsList, RecordedInteraction.readCommissioningInfo,
        RecordedInteraction.readICDManagement, RecordedInteraction.invokeArmFailSafe,
        RecordedInteraction.invokeSetRegulatoryConfig, RecordedInteraction.reportCommissioningInfo,
        RecordedInteraction.statusSuccess,
    ]

    /// Decodes `bytes` as every request; checks what decodes survives a round trip.
    static func exercise(_ bytes: [UInt8]) {
        if let read = try? ReadRequest(decoding: bytes) {
            #expect((try? ReadRequest(decoding: read.encoded)) == read)
        }
        if let subscribe = try? SubscribeRequest(decoding: bytes) {
            #expect((try? SubscribeRequest(decoding: subscribe.encoded)) == subscribe)
        }
        if let write = try? WriteRequest(decoding: bytes) {
            #expect((try? WriteRequest(decoding: write.encoded)) == write)
        }
        if let invoke = try? InvokeRequest(decoding: bytes) {
            #expect((try? InvokeRequest(decoding: invoke.encoded)) == invoke)
        }
        if let report = try? ReportData(decoding: bytes) {
            #expect((try? ReportData(decoding: report.encoded)) == report)
        }
        _ = try? StatusResponse(decoding: bytes)
        _ = try? TimedRequest(decoding: bytes)
        _ = try? SubscribeResponse(decoding: bytes)
    }

    @Test("per seed, 1700 mutations of recorded messages and 700 random payloads decode or throw", arguments: [1, 2, 3])
    func fuzz(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<1_700 {
            var bytes = Self.seeds.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                }
                if bytes.isEmpty { break }
            }
            Self.exercise(bytes)
        }
        for _ in 0..<700 {
            let count = Int.random(in: 0...64, using: &generator)
            Self.exercise([0x15] + (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }

    @Test("expansion and chunking of decoded wildcard reads stay bounded")
    func expansionBound() throws {
        let layout = NodeLayout(endpoints: (0..<50).map { endpoint in
            EndpointLayout(id: UInt16(endpoint), clusters: [.withGlobals(id: 0x1D, attributes: [0, 1, 2, 3])])
        })
        let request = ReadRequest(
            attributeRequests: Array(repeating: AttributePath(), count: 32), isFabricFiltered: true)
        let targets = try layout.expand(try ReadRequest(decoding: request.encoded).attributeRequests)
        #expect(targets.count == 32 * 50 * 9)
    }
}
