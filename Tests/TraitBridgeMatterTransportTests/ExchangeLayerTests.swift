import Testing
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The exchange table and layer (Core §4.10, §4.12): which messages open, reach or miss an
/// exchange, and how acknowledgements and retransmissions follow from them.
@Suite("Matter exchanges")
struct ExchangeLayerTests {
    static let session = SessionKey(5)

    /// A message from the peer on exchange `id`.
    static func incoming(
        _ id: UInt16, initiator: Bool = true, reliable: Bool = true, acknowledging ack: UInt32? = nil,
        opcode: UInt8 = InteractionModelOpcode.readRequest.rawValue, protocolID: ProtocolID = .interactionModel
    ) -> ProtocolHeader {
        ProtocolHeader(
            isInitiator: initiator, needsAck: reliable, acknowledgedMessageCounter: ack, opcode: opcode,
            exchangeID: id, protocolID: protocolID)
    }

    static func layer(limit: Int = ExchangeTable.defaultLimit) -> ExchangeLayer {
        var random = Constant(0xABCD_0100)
        return ExchangeLayer(limit: limit, using: &random)
    }

    @Test("an unsolicited message with I opens a responder exchange; the next one on it finds it")
    func unsolicited() throws {
        var layer = Self.layer()
        let now = ContinuousClock.now
        let key = ExchangeKey(session: Self.session, exchangeID: 40, role: .responder)
        #expect(
            try layer.receive(Self.incoming(40, reliable: false), 1, at: now)
                == [.deliver(key, isNewExchange: true)])
        #expect(
            try layer.receive(Self.incoming(40, reliable: false), 2, at: now)
                == [.deliver(key, isNewExchange: false)])
        #expect(layer.exchanges.count == 1)
    }

    @Test("a message without I for no open exchange is dropped, but acknowledged if it asks (§4.10)")
    func unknownExchange() throws {
        var layer = Self.layer()
        let now = ContinuousClock.now
        #expect(
            try layer.receive(Self.incoming(40, initiator: false, reliable: false), 1, at: now).isEmpty)
        let ephemeral = ExchangeKey(session: Self.session, exchangeID: 40, role: .initiator)
        #expect(
            try layer.receive(Self.incoming(40, initiator: false), 2, at: now)
                == [.sendStandaloneAck(ephemeral, messageCounter: 2)])
        #expect(layer.exchanges.count == 0)
        #expect(ProtocolHeader.standaloneAck(of: 2, on: ephemeral).encoded.hex == "03102800000002000000")
    }

    @Test("a duplicate opens nothing and is delivered nowhere; with R it is acknowledged at once")
    func duplicates() throws {
        var layer = Self.layer()
        let now = ContinuousClock.now
        let key = ExchangeKey(session: Self.session, exchangeID: 40, role: .responder)
        #expect(
            try layer.receive(Self.incoming(40), 9, duplicate: true, at: now)
                == [.sendStandaloneAck(key, messageCounter: 9)])
        #expect(layer.exchanges.count == 0)
        _ = try layer.receive(Self.incoming(40), 10, at: now)
        #expect(
            try layer.receive(Self.incoming(40), 10, duplicate: true, at: now)
                == [.sendStandaloneAck(key, messageCounter: 10)])
        #expect(
            try layer.receive(Self.incoming(40, reliable: false), 8, duplicate: true, at: now).isEmpty)
    }

    @Test("a standalone ack never opens an exchange nor reaches a handler")
    func standaloneAckIsNotDelivered() throws {
        var layer = Self.layer()
        let ack = Self.incoming(
            40, reliable: false, acknowledging: 3, opcode: SecureChannelOpcode.standaloneAck.rawValue,
            protocolID: .secureChannel)
        #expect(try layer.receive(ack, 1, at: .now).isEmpty)
        #expect(layer.exchanges.count == 0)
    }

    @Test("the same exchange ID is two exchanges when the roles differ, and sessions never mix")
    func keys() throws {
        var layer = Self.layer()
        let now = ContinuousClock.now
        var random = Constant(40)
        var table = ExchangeTable(using: &random)
        let ours = try table.initiate(on: Self.session)
        #expect(ours == ExchangeKey(session: Self.session, exchangeID: 40, role: .initiator))
        #expect(
            try table.route(Self.incoming(40), on: Self.session, isDuplicate: false)
                == .opened(ExchangeKey(session: Self.session, exchangeID: 40, role: .responder)))
        #expect(
            try table.route(Self.incoming(40, initiator: false), on: Self.session, isDuplicate: false)
                == .existing(ours))
        #expect(
            try table.route(Self.incoming(40, initiator: false, reliable: false), on: SessionKey(6), isDuplicate: false)
                == .drop)
        _ = try layer.received(Self.incoming(1), messageCounter: 1, on: SessionKey(1), isDuplicate: false, now: now)
        _ = try layer.received(Self.incoming(1), messageCounter: 1, on: SessionKey(2), isDuplicate: false, now: now)
        #expect(layer.exchanges.count == 2)
        layer.closeSession(SessionKey(1))
        #expect(layer.exchanges.count == 1)
    }

    @Test("our exchange IDs count up from the random start, wrap, and skip IDs still open")
    func exchangeIDs() throws {
        var random = Constant(0xFFFE)
        var table = ExchangeTable(using: &random)
        let ids = try (0..<3).map { _ in try table.initiate(on: Self.session).exchangeID }
        #expect(ids == [0xFFFE, 0xFFFF, 0])
        // After a full turn of the 16-bit counter, an ID still open is skipped.
        var five = Constant(5)
        var wrapping = ExchangeTable(using: &five)
        let kept = try wrapping.initiate(on: Self.session)
        for _ in 0..<65_535 {
            let passing = try wrapping.initiate(on: Self.session)
            wrapping.close(passing)
        }
        #expect(kept.exchangeID == 5)
        #expect(try wrapping.initiate(on: Self.session).exchangeID == 6)
    }

    @Test("a full table refuses new exchanges with a typed error, then takes one after a close")
    func bound() throws {
        var layer = Self.layer(limit: 2)
        let now = ContinuousClock.now
        _ = try layer.receive(Self.incoming(1), 1, at: now)
        let ours = try layer.initiate(on: Self.session)
        #expect(throws: TransportError.tooManyExchanges(limit: 2)) {
            try layer.receive(Self.incoming(2), 2, at: now)
        }
        #expect(throws: TransportError.tooManyExchanges(limit: 2)) { try layer.initiate(on: Self.session) }
        _ = layer.close(ours)
        #expect(
            try layer.receive(Self.incoming(2, reliable: false), 3, at: now).count == 1)
    }

    @Test("a response within 200 ms carries the ack; no standalone ack follows")
    func piggybackedAck() throws {
        var layer = Self.layer()
        var random = Constant(0)
        let start = ContinuousClock.now
        let key = ExchangeKey(session: Self.session, exchangeID: 40, role: .responder)
        _ = try layer.receive(Self.incoming(40), 77, at: start)
        #expect(layer.nextDeadline == start + .milliseconds(200))
        let response = try layer.header(
            for: key, protocolID: .interactionModel, opcode: InteractionModelOpcode.reportData.rawValue,
            isReliable: true)
        #expect(response.acknowledgedMessageCounter == 77 && !response.isInitiator && response.needsAck)
        #expect(layer.tick(now: start + .milliseconds(250), using: &random).isEmpty)
    }

    @Test("with no response, a standalone ack goes when 200 ms have passed")
    func standaloneAck() throws {
        var layer = Self.layer()
        var random = Constant(0)
        let start = ContinuousClock.now
        let key = ExchangeKey(session: Self.session, exchangeID: 40, role: .responder)
        _ = try layer.receive(Self.incoming(40), 77, at: start)
        #expect(layer.tick(now: start + .milliseconds(199), using: &random).isEmpty)
        #expect(
            layer.tick(now: start + .milliseconds(200), using: &random) == [.sendStandaloneAck(key, messageCounter: 77)]
        )
        let later = try layer.header(for: key, protocolID: .interactionModel, opcode: 5, isReliable: false)
        #expect(later.acknowledgedMessageCounter == nil)
    }

    @Test("a reliable message is retransmitted until the peer's piggy-backed ack, even after we close the exchange")
    func reliableSend() throws {
        var layer = Self.layer()
        var random = Constant(0)
        let start = ContinuousClock.now
        let key = try layer.initiate(on: Self.session)
        let header = try layer.header(for: key, protocolID: .interactionModel, opcode: 5, isReliable: true)
        #expect(header.isInitiator && header.needsAck && header.acknowledgedMessageCounter == nil)
        try layer.sent(
            [0xAA], messageCounter: 300, on: key, isReliable: true, baseInterval: .milliseconds(300), now: start,
            using: &random)
        #expect(throws: TransportError.exchangeAwaitingAck(key)) {
            try layer.header(for: key, protocolID: .interactionModel, opcode: 5, isReliable: true)
        }
        _ = layer.close(key)
        #expect(layer.tick(now: start + .milliseconds(330), using: &random) == [.retransmit(key, bytes: [0xAA])])
        let ack = Self.incoming(
            key.exchangeID, initiator: false, reliable: false, acknowledging: 300,
            opcode: SecureChannelOpcode.standaloneAck.rawValue, protocolID: .secureChannel)
        #expect(
            try layer.receive(ack, 1, at: start + .milliseconds(400)).isEmpty)
        #expect(layer.nextDeadline == nil)
    }

    @Test("a reliable message never acknowledged fails its exchange after the fifth transmission's wait")
    func giveUp() throws {
        var layer = Self.layer()
        var random = Constant(0)
        let start = ContinuousClock.now
        let key = try layer.initiate(on: Self.session)
        try layer.sent(
            [1], messageCounter: 8, on: key, isReliable: true, baseInterval: .milliseconds(300), now: start,
            using: &random)
        var effects: [ExchangeLayer.Effect] = []
        var now = start
        while let deadline = layer.nextDeadline {
            now = deadline
            effects += layer.tick(now: now, using: &random)
        }
        #expect(
            effects == Array(repeating: .retransmit(key, bytes: [1]), count: 4) + [
                .exchangeFailed(key, messageCounter: 8)
            ])
        #expect(now == start + .milliseconds(330 + 330 + 528 + 844 + 1351))
        #expect(!layer.exchanges.contains(key))
    }

    @Test("a duplicate's piggy-backed ack is ignored, and sending on a closed exchange is refused")
    func duplicateAckIgnored() throws {
        var layer = Self.layer()
        var random = Constant(0)
        let start = ContinuousClock.now
        let key = try layer.initiate(on: Self.session)
        try layer.sent(
            [1], messageCounter: 8, on: key, isReliable: true, baseInterval: .milliseconds(300), now: start,
            using: &random)
        let reply = Self.incoming(key.exchangeID, initiator: false, reliable: false, acknowledging: 8)
        _ = try layer.receive(reply, 2, duplicate: true, at: start)
        #expect(layer.nextDeadline == start + .milliseconds(330))
        _ = layer.close(key)
        #expect(throws: TransportError.unknownExchange(key)) {
            try layer.header(for: key, protocolID: .interactionModel, opcode: 5, isReliable: false)
        }
    }
}

extension ExchangeLayer {
    /// `received` on the tests' session, shorter.
    mutating func receive(
        _ header: ProtocolHeader, _ counter: UInt32, duplicate: Bool = false, at now: ContinuousClock.Instant
    ) throws(TransportError) -> [Effect] {
        try received(header, messageCounter: counter, on: ExchangeLayerTests.session, isDuplicate: duplicate, now: now)
    }
}
