import Foundation
import Testing

@testable import TraitBridgeHTTP

/// The login throttle as logic (time passed in): growing waits per client, the owner never held
/// back by others, a global rate that holds back only addresses that failed, bounded memory.
@Suite("login throttle")
struct LoginThrottleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("three free failures, then waits of 1, 2, 4 … seconds up to the cap; a success starts afresh")
    func growingWaits() {
        var throttle = LoginThrottle()
        var waits: [Int] = []
        var now = start
        for _ in 0..<14 {
            if case .wait(let seconds, let scope) = throttle.check(address: "a", account: "alice", now: now) {
                Issue.record("held back although its wait had passed (\(seconds) s, \(scope))")
            }
            throttle.failed(address: "a", account: "alice", now: now)
            if case .wait(let seconds, _) = throttle.check(address: "a", account: "alice", now: now) {
                waits.append(seconds)
                now += Double(seconds)
            } else {
                waits.append(0)
            }
        }
        #expect(waits == [0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900])
        throttle.succeeded(address: "a", account: "alice")
        #expect(throttle.check(address: "a", account: "alice", now: now) == .allowed)
    }

    @Test("an address that tries many accounts waits as one client; another address never waits for it")
    func perAddress() {
        var throttle = LoginThrottle()
        for index in 0..<6 { throttle.failed(address: "stranger", account: "user\(index)", now: start) }
        #expect(throttle.check(address: "stranger", account: "alice", now: start) == .wait(seconds: 4, scope: .address))
        #expect(throttle.check(address: "owner", account: "alice", now: start) == .allowed)
        #expect(throttle.check(address: "stranger", account: "alice", now: start + 4) == .allowed)
        // Account names are compared case and spaces aside.
        for _ in 0..<4 { throttle.failed(address: "b", account: "Alice ", now: start) }
        #expect(throttle.check(address: "b", account: "alice", now: start) == .wait(seconds: 1, scope: .address))
    }

    @Test("past the global rate only addresses that failed are held back, for what is left of the minute")
    func globalRate() {
        var policy = LoginThrottle.Policy()
        policy.globalFailuresPerMinute = 10
        var throttle = LoginThrottle(policy: policy)
        for index in 0..<10 { throttle.failed(address: "bot\(index)", account: "alice", now: start + Double(index)) }
        #expect(
            throttle.check(address: "bot0", account: "alice", now: start + 20) == .wait(seconds: 40, scope: .global))
        #expect(throttle.check(address: "owner", account: "alice", now: start + 20) == .allowed, "no hard lock")
        #expect(throttle.check(address: "bot0", account: "alice", now: start + 61) == .allowed, "the minute passed")
        #expect(throttle.waitCount == 1 && throttle.failureCount == 10)
    }

    @Test("memory is bounded: past maxClients the oldest client is forgotten and counted")
    func bounded() {
        var policy = LoginThrottle.Policy()
        policy.maxClients = 100
        var throttle = LoginThrottle(policy: policy)
        for index in 0..<500 {
            throttle.failed(address: "10.0.\(index / 256).\(index % 256)", account: "x", now: start)
        }
        #expect(throttle.rememberedCount <= 100)
        #expect(throttle.evictionCount >= 400)
        // Forgotten a day after the last failure.
        for _ in 0..<5 { throttle.failed(address: "z", account: "x", now: start) }
        #expect(throttle.check(address: "z", account: "x", now: start + 86_400) == .allowed)
    }
}
