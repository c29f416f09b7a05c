import Testing
import TraitBridgeTesting

@testable import TraitBridgeMatterTransport

/// Outgoing counters (Core §4.6.1): random starts in [1, 2^28], +1 per message, and what happens
/// at 0xFFFFFFFF for each kind.
@Suite("Matter message counters")
struct MessageCounterTests {
    @Test(
        "the first counter is the random value's low 28 bits plus one",
        arguments: [(UInt64(0), UInt32(1)), (.max, 1 << 28), (0xFFFF_FFFF_0000_0000, 1), (0x1234_5678, 0x0234_5679)])
    func start(random: UInt64, first: UInt32) throws {
        var generator = Constant(random)
        var counter = MessageCounter(kind: .secureSession, using: &generator)
        #expect(try counter.next() == first)
        #expect(try counter.next() == first + 1)
    }

    @Test("1000 random starts all lie in [1, 2^28]")
    func range() throws {
        var generator = XorShift(seed: 28)
        for _ in 0..<1000 {
            var counter = MessageCounter(kind: .globalUnencrypted, using: &generator)
            #expect((1...(1 << 28)).contains(try counter.next()))
        }
    }

    @Test("the global unencrypted counter rolls over from 0xFFFFFFFF to 0")
    func globalRollover() throws {
        var counter = MessageCounter(kind: .globalUnencrypted, lastUsed: 0xFFFF_FFFE)
        #expect(try [counter.next(), counter.next(), counter.next()] == [0xFFFF_FFFF, 0, 1])
    }

    @Test("a secure session's counter ends at 0xFFFFFFFF and then refuses, every time")
    func sessionExhaustion() throws {
        var counter = MessageCounter(kind: .secureSession, lastUsed: 0xFFFF_FFFE)
        #expect(try counter.next() == 0xFFFF_FFFF)
        #expect(throws: TransportError.messageCounterExhausted) { try counter.next() }
        #expect(throws: TransportError.messageCounterExhausted) { try counter.next() }
    }
}

/// The peer's reception state (Core §4.6.5) at every edge, for both kinds.
@Suite("Matter replay window")
struct ReplayWindowTests {
    typealias Step = (counter: UInt32, verdict: ReplayWindow.Verdict)

    static func run(_ kind: ReplayWindow.Kind, _ steps: [Step]) {
        var window = ReplayWindow(kind: kind)
        for (index, step) in steps.enumerated() {
            #expect(window.receive(step.counter) == step.verdict, "step \(index): counter \(step.counter)")
        }
    }

    static let kinds: [ReplayWindow.Kind] = [.secureUnicast, .unsecured]

    @Test("the first message is trusted and sets the maximum; older ones are then refused", arguments: kinds)
    func first(kind: ReplayWindow.Kind) {
        var window = ReplayWindow(kind: kind)
        #expect(window.maximumCounter == nil)
        #expect(window.receive(1000) == .new)
        #expect(window.maximumCounter == 1000)
        #expect(window.receive(1000) == .duplicate(.maximum))
        #expect(window.receive(999) == .duplicate(.seenInWindow))
        #expect(window.receive(968) == .duplicate(.seenInWindow))
    }

    @Test("in order, then out of order within the window, each counter is new exactly once", arguments: kinds)
    func order(kind: ReplayWindow.Kind) {
        Self.run(
            kind,
            [
                (100, .new), (101, .new), (102, .new), (110, .new), (105, .new), (103, .new),
                (105, .duplicate(.seenInWindow)),
                (102, .duplicate(.seenInWindow)), (110, .duplicate(.maximum)), (109, .new), (104, .new),
            ])
    }

    @Test("exactly 32 behind the maximum is in the window; 33 behind is not")
    func edges() {
        // 1033 jumps past the window: 1001…1032 are unseen.
        Self.run(
            .secureUnicast,
            [
                (1000, .new), (1033, .new), (1001, .new), (1001, .duplicate(.seenInWindow)),
                (1000, .duplicate(.behindWindow)),
            ])
        // The unsecured session takes 33 behind as a restarted peer: the window restarts at 1000.
        Self.run(
            .unsecured,
            [
                (1000, .new), (1033, .new), (1001, .new), (1001, .duplicate(.seenInWindow)), (1000, .new),
                (1000, .duplicate(.maximum)), (999, .duplicate(.seenInWindow)),
            ])
    }

    @Test("a secure session never rolls over: 0 after 0xFFFFFFFF is behind the window")
    func secureRollover() {
        Self.run(
            .secureUnicast,
            [
                (0xFFFF_FFFE, .new), (0xFFFF_FFFF, .new), (0, .duplicate(.behindWindow)),
                (1, .duplicate(.behindWindow)),
                (0xFFFF_FFFD, .duplicate(.seenInWindow)),
            ])
    }

    @Test("the unsecured session rolls over, and its window spans the wrap")
    func unsecuredRollover() {
        Self.run(
            .unsecured,
            [
                (0xFFFF_FFF0, .new), (5, .new), (0xFFFF_FFFF, .new), (0xFFFF_FFFF, .duplicate(.seenInWindow)),
                (0xFFFF_FFF0, .duplicate(.seenInWindow)), (0xFFFF_FFF1, .new), (0, .new), (5, .duplicate(.maximum)),
            ])
    }

    @Test("2^31 − 1 ahead is newer for the unsecured session; 2^31 ahead is behind, so the window restarts there")
    func unsecuredHalfRange() {
        var window = ReplayWindow(kind: .unsecured)
        let farthest: UInt32 = 10 + (1 << 31) - 1
        _ = window.receive(10)
        #expect(window.receive(farthest) == .new)
        #expect(window.maximumCounter == farthest)
        #expect(window.receive(9) == .new)
        #expect(window.maximumCounter == 9)
    }

    /// CircuitMatter `tests/test_message_reception_state.py`: `test_basics`, `test_unencrypted` and
    /// `test_encrypted_no_rollover`, whose windows start as if `123` was the first message.
    @Test("CircuitMatter's reception-state sequences give the same verdicts")
    func circuitMatter() {
        Self.run(
            .secureUnicast,
            [
                (123, .new), (122, .duplicate(.seenInWindow)), (123, .duplicate(.maximum)), (124, .new),
                (123, .duplicate(.seenInWindow)), (126, .new), (123, .duplicate(.seenInWindow)),
                (124, .duplicate(.seenInWindow)), (125, .new), (124, .duplicate(.seenInWindow)),
            ])
        Self.run(.unsecured, [(123, .new), (91, .duplicate(.seenInWindow)), (90, .new), (124, .new)])
        Self.run(
            .secureUnicast,
            [
                (123, .new), (91, .duplicate(.seenInWindow)), (90, .duplicate(.behindWindow)),
                (0, .duplicate(.behindWindow)),
                (0xFFFF_FFFE, .new), (0xFFFF_FFFD, .new), (0, .duplicate(.behindWindow)),
            ])
    }
}
