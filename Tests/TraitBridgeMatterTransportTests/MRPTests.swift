import Testing
import TraitBridgeMatterTransport

/// MRP's backoff against connectedhomeip's integer formula (`ReliableMessageMgr::GetBackoff`) and
/// the bounds its own test asserts, then the retransmission table with an injected clock.
@Suite("Matter MRP backoff and retransmissions")
struct MRPTests {
    struct BackoffCase: Sendable, CustomStringConvertible {
        var baseMilliseconds: Int64
        var sendCount: Int
        var shortest: Int64
        var longest: Int64

        var description: String { "base \(baseMilliseconds) ms, sendCount \(sendCount)" }
    }

    /// Worked by hand through the SDK's steps: i = base × 1127 / 1024; × 16^e / 10^e with
    /// e = min(max(n − 1, 0), 4); × (1024 + jitter) / 1024, rounding down at each step.
    @Test(
        "backoff for sends 0…5 with jitter 0 and 255 (the SDK's computeMaxPossible)",
        arguments: [
            BackoffCase(baseMilliseconds: 300, sendCount: 0, shortest: 330, longest: 412),
            BackoffCase(baseMilliseconds: 300, sendCount: 1, shortest: 330, longest: 412),
            BackoffCase(baseMilliseconds: 300, sendCount: 2, shortest: 528, longest: 659),
            BackoffCase(baseMilliseconds: 300, sendCount: 3, shortest: 844, longest: 1054),
            BackoffCase(baseMilliseconds: 300, sendCount: 4, shortest: 1351, longest: 1687),
            BackoffCase(baseMilliseconds: 300, sendCount: 5, shortest: 2162, longest: 2700),
            BackoffCase(baseMilliseconds: 500, sendCount: 0, shortest: 550, longest: 686),
            BackoffCase(baseMilliseconds: 500, sendCount: 1, shortest: 550, longest: 686),
            BackoffCase(baseMilliseconds: 500, sendCount: 2, shortest: 880, longest: 1099),
            BackoffCase(baseMilliseconds: 500, sendCount: 3, shortest: 1408, longest: 1758),
            BackoffCase(baseMilliseconds: 500, sendCount: 4, shortest: 2252, longest: 2812),
        ])
    func backoff(backoffCase: BackoffCase) {
        let base = Duration.milliseconds(backoffCase.baseMilliseconds)
        #expect(
            MRPParameters.backoff(baseInterval: base, sendCount: backoffCase.sendCount, jitter: 0)
                == .milliseconds(backoffCase.shortest))
        #expect(
            MRPParameters.backoff(baseInterval: base, sendCount: backoffCase.sendCount, jitter: 255)
                == .milliseconds(backoffCase.longest))
    }

    /// connectedhomeip `src/messaging/tests/TestReliableMessageProtocol.cpp`,
    /// `theBackoffComplianceTestVector` (sendCount, base, min, max in ms), without its ICD and
    /// sender-boost additions, which are 0 for a Wi-Fi/Ethernet device.
    static let sdkBounds: [(Int, Int64, Int64, Int64)] = [
        (0, 300, 330, 413), (1, 300, 330, 413), (2, 300, 528, 661), (3, 300, 844, 1057), (4, 300, 1351, 1691),
        (5, 300, 2162, 2705), (6, 300, 2162, 2705), (0, 4000, 4400, 5503), (1, 4000, 4400, 5503),
        (2, 4000, 7040, 8805), (3, 4000, 11264, 14088), (4, 4000, 18022, 22541), (5, 4000, 28835, 36065),
        (6, 4000, 28835, 36065), (4, 3_600_000, 16_220_160, 20_286_001),
    ]

    @Test("every jitter stays within the bounds connectedhomeip's own test asserts")
    func sdkCompliance() {
        for (sendCount, base, low, high) in Self.sdkBounds {
            for jitter in [UInt8(0), 1, 128, 254, 255] {
                let backoff = MRPParameters.backoff(
                    baseInterval: .milliseconds(base), sendCount: sendCount, jitter: jitter)
                #expect(
                    (Duration.milliseconds(low)...Duration.milliseconds(high)).contains(backoff),
                    "\(sendCount) \(base) \(jitter)")
            }
        }
    }

    @Test("a peer's active state and base interval follow its threshold")
    func baseInterval() {
        let parameters = MRPParameters.defaults
        let start = ContinuousClock.now
        #expect(parameters.isPeerActive(lastHeard: start, now: start + .milliseconds(3999)))
        #expect(!parameters.isPeerActive(lastHeard: start, now: start + .milliseconds(4000)))
        #expect(parameters.baseInterval(peerIsActive: true) == .milliseconds(300))
        #expect(parameters.baseInterval(peerIsActive: false) == .milliseconds(500))
        #expect(MRPParameters.backoff(baseInterval: .seconds(Int64.max), sendCount: 9, jitter: 255) > .zero)
    }

    static let exchange = ExchangeKey(session: SessionKey(1), exchangeID: 7, role: .responder)

    @Test("unacknowledged: four retransmissions at the SDK's waits, then a give-up after the fifth wait")
    func retransmitThenGiveUp() throws {
        var table = RetransmissionTable()
        var jitter = Constant(0)
        let start = ContinuousClock.now
        try table.add(
            [1, 2, 3], messageCounter: 500, on: Self.exchange, baseInterval: .milliseconds(300), now: start,
            using: &jitter)
        #expect(table.nextDeadline == start + .milliseconds(330))
        var now = start
        var transmissions = 1
        for (wait, transmission) in [(330, 2), (330, 3), (528, 4), (844, 5)] {
            #expect(table.tick(now: now + .milliseconds(wait - 1), using: &jitter).isEmpty)
            now += .milliseconds(wait)
            #expect(
                table.tick(now: now, using: &jitter) == [
                    .retransmit(Self.exchange, bytes: [1, 2, 3], transmission: transmission)
                ])
            transmissions += 1
        }
        #expect(transmissions == MRPParameters.maxTransmissions)
        #expect(table.nextDeadline == now + .milliseconds(1351))
        #expect(table.tick(now: now + .milliseconds(1350), using: &jitter).isEmpty)
        #expect(
            table.tick(now: now + .milliseconds(1351), using: &jitter) == [.giveUp(Self.exchange, messageCounter: 500)])
        #expect(table.count == 0 && table.nextDeadline == nil)
    }

    @Test("the longest jitter stretches every wait to the SDK's maximum")
    func longestJitter() throws {
        var table = RetransmissionTable()
        var jitter = Constant(.max)
        let start = ContinuousClock.now
        try table.add(
            [9], messageCounter: 1, on: Self.exchange, baseInterval: .milliseconds(500), now: start, using: &jitter)
        #expect(table.nextDeadline == start + .milliseconds(686))
        _ = table.tick(now: start + .milliseconds(686), using: &jitter)
        #expect(table.nextDeadline == start + .milliseconds(686 + 686))
    }

    @Test("an ack of the waiting counter ends the wait; an ack of another counter or exchange does not")
    func acknowledged() throws {
        var table = RetransmissionTable()
        var jitter = Constant(0)
        let start = ContinuousClock.now
        try table.add(
            [1], messageCounter: 10, on: Self.exchange, baseInterval: .milliseconds(300), now: start, using: &jitter)
        let other = ExchangeKey(session: SessionKey(1), exchangeID: 7, role: .initiator)
        let wrongCounter = table.acknowledge(9, on: Self.exchange)
        let wrongExchange = table.acknowledge(10, on: other)
        #expect(!wrongCounter && !wrongExchange)
        #expect(table.isAwaitingAck(Self.exchange))
        let acknowledged = table.acknowledge(10, on: Self.exchange)
        #expect(acknowledged)
        #expect(table.tick(now: start + .seconds(60), using: &jitter).isEmpty)
    }

    @Test("one reliable message per exchange, and no more than the limit in all")
    func limits() throws {
        var table = RetransmissionTable(limit: 2)
        var jitter = Constant(0)
        let now = ContinuousClock.now
        try table.add(
            [1], messageCounter: 1, on: Self.exchange, baseInterval: .milliseconds(300), now: now, using: &jitter)
        #expect(throws: TransportError.exchangeAwaitingAck(Self.exchange)) {
            try table.add(
                [2], messageCounter: 2, on: Self.exchange, baseInterval: .milliseconds(300), now: now, using: &jitter)
        }
        let second = ExchangeKey(session: SessionKey(2), exchangeID: 7, role: .responder)
        let third = ExchangeKey(session: SessionKey(3), exchangeID: 7, role: .responder)
        try table.add([3], messageCounter: 3, on: second, baseInterval: .milliseconds(300), now: now, using: &jitter)
        #expect(throws: TransportError.retransmissionTableFull(limit: 2)) {
            try table.add([4], messageCounter: 4, on: third, baseInterval: .milliseconds(300), now: now, using: &jitter)
        }
    }
}

/// Acks we owe: piggy-backed on the next message of the exchange, or alone after 200 ms.
@Suite("Matter MRP pending acks")
struct PendingAcksTests {
    static let exchange = ExchangeKey(session: SessionKey(1), exchangeID: 3, role: .responder)

    @Test("an ack taken for the next message is not sent alone later")
    func piggyback() {
        var acks = PendingAcks()
        let start = ContinuousClock.now
        #expect(acks.needsAck(41, on: Self.exchange, isDuplicate: false, now: start).isEmpty)
        #expect(acks.owed(on: Self.exchange) == 41)
        #expect(acks.takePiggyback(on: Self.exchange) == 41)
        #expect(acks.takePiggyback(on: Self.exchange) == nil)
        #expect(acks.tick(now: start + .seconds(1)).isEmpty)
    }

    @Test("an ack with no message to ride on goes alone when 200 ms have passed")
    func standalone() {
        var acks = PendingAcks()
        let start = ContinuousClock.now
        _ = acks.needsAck(41, on: Self.exchange, isDuplicate: false, now: start)
        #expect(acks.nextDeadline == start + .milliseconds(200))
        #expect(acks.tick(now: start + .milliseconds(199)).isEmpty)
        #expect(acks.tick(now: start + .milliseconds(200)) == [.init(exchange: Self.exchange, messageCounter: 41)])
        #expect(acks.count == 0)
    }

    @Test("a duplicate is acknowledged at once, leaving the owed ack in place")
    func duplicate() {
        var acks = PendingAcks()
        let now = ContinuousClock.now
        _ = acks.needsAck(41, on: Self.exchange, isDuplicate: false, now: now)
        #expect(
            acks.needsAck(40, on: Self.exchange, isDuplicate: true, now: now) == [
                .init(exchange: Self.exchange, messageCounter: 40)
            ])
        #expect(acks.owed(on: Self.exchange) == 41)
    }

    @Test("a second reliable message on the exchange sends the first one's ack alone at once")
    func displaced() {
        var acks = PendingAcks()
        let now = ContinuousClock.now
        _ = acks.needsAck(41, on: Self.exchange, isDuplicate: false, now: now)
        #expect(
            acks.needsAck(42, on: Self.exchange, isDuplicate: false, now: now) == [
                .init(exchange: Self.exchange, messageCounter: 41)
            ])
        #expect(acks.owed(on: Self.exchange) == 42)
        #expect(acks.close(Self.exchange) == [.init(exchange: Self.exchange, messageCounter: 42)])
        #expect(acks.count == 0)
    }
}
