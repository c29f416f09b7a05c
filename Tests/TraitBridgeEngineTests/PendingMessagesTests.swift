import Testing

@testable import TraitBridgeEngine

@Suite("Messages kept for devices not known yet")
struct PendingMessagesTests {
    @Test("newest per topic, a topic keeps its place, taken ones are skipped when the oldest is evicted, bytes add up")
    func order() {
        var pending = PendingMessages()
        pending.keep("a", [1])
        pending.keep("b", [1, 2])
        pending.keep("c", [1, 2, 3])
        pending.keep("a", [9, 9, 9, 9])  // newer payload, same place
        #expect(pending.count == 3 && pending.bytes == 4 + 2 + 3)
        #expect(pending.take("b") == [1, 2])
        #expect(pending.take("b") == nil)
        #expect(pending.evictOldest() == "a")
        #expect(pending.evictOldest() == "c")
        #expect(pending.evictOldest() == nil)
        #expect(pending.count == 0 && pending.bytes == 0)
        pending.keep("b", [7])  // kept again after it was taken: now the newest
        pending.keep("shellies/x/online", [1])
        pending.keep("shellies/x/status/switch:0", [2])
        pending.keep("shellies/xy/online", [3])
        #expect(pending.topics(under: "shellies/x/") == ["shellies/x/online", "shellies/x/status/switch:0"])
        #expect(pending.evictOldest() == "b")
    }

    @Test("100 000 topics kept and taken in turn: what is left is exactly what was not taken, oldest first")
    func manyTakes() {
        var pending = PendingMessages()
        for index in 0..<100_000 {
            pending.keep("t\(index)", [UInt8(index % 251)])
            if index % 3 != 0 { #expect(pending.take("t\(index)") != nil) }
        }
        #expect(pending.count == 33_334)
        #expect(pending.bytes == (0..<100_000).filter { $0 % 3 == 0 }.count)
        #expect(pending.evictOldest() == "t0")
        #expect(pending.evictOldest() == "t3")
        #expect(pending.take("t99999") != nil)
        #expect(pending.count == 33_331)
    }
}
