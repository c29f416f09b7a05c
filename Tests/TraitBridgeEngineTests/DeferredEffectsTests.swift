import Testing

@testable import TraitBridgeEngine

/// What one network read's messages publish: every live transition, and only the last retained
/// publication of a topic that retained messages (the broker's old news) changed several times.
@Suite("Deferred effects of one read")
struct DeferredEffectsTests {
    func effects(_ publications: [(String, String)], retain: Bool = true) -> BridgeEffects {
        var effects = BridgeEffects()
        for (topic, payload) in publications { effects.publish(topic, Array(payload.utf8), retain: retain) }
        effects.changedStates = []
        return effects
    }

    func sent(_ effects: BridgeEffects?) -> [String] {
        (effects?.publications ?? []).map { "\($0.topic)=\(String(decoding: $0.payload, as: UTF8.self))" }
    }

    @Test("retained messages: a topic's last publication is sent, in its place; other topics untouched")
    func retainedCoalesce() {
        var deferred = DeferredEffects()
        deferred.add(effects([("d/a/state", "value"), ("d/a", "description")]), fromRetained: true)
        deferred.add(effects([("d/b/state", "value")]), fromRetained: true)
        deferred.add(effects([("d/a/state", "value+online")]), fromRetained: true)
        #expect(deferred.messages == 3)
        #expect(sent(deferred.take()) == ["d/a=description", "d/b/state=value", "d/a/state=value+online"])
        #expect(deferred.take() == nil)
    }

    @Test("live messages: every transition is sent, also after or before retained ones of the topic")
    func liveKept() {
        var deferred = DeferredEffects()
        deferred.add(effects([("d/m/state", "occupied")]), fromRetained: false)
        deferred.add(effects([("d/m/state", "clear")]), fromRetained: false)
        deferred.add(effects([("d/m/state", "old")]), fromRetained: true)
        deferred.add(effects([("d/m/state", "older")]), fromRetained: true)
        #expect(sent(deferred.take()) == ["d/m/state=occupied", "d/m/state=clear", "d/m/state=older"])
    }

    @Test("non-retained publications of retained messages (events, answers) are all sent")
    func notRetainedKept() {
        var deferred = DeferredEffects()
        deferred.add(effects([("d/e/event", "1")], retain: false), fromRetained: true)
        deferred.add(effects([("d/e/event", "2")], retain: false), fromRetained: true)
        #expect(sent(deferred.take()) == ["d/e/event=1", "d/e/event=2"])
    }

    @Test("a batch is full at its limit; taking starts a new one that remembers nothing")
    func limitAndReset() {
        var deferred = DeferredEffects()
        for index in 0..<DeferredEffects.limit {
            #expect(!deferred.isFull)
            deferred.add(effects([("d/x/state", "\(index)")]), fromRetained: true)
        }
        #expect(deferred.isFull)
        #expect(sent(deferred.take()) == ["d/x/state=\(DeferredEffects.limit - 1)"])
        deferred.add(effects([("d/x/state", "next")]), fromRetained: true)
        #expect(sent(deferred.take()) == ["d/x/state=next"])
    }
}
