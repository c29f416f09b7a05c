import Foundation
import Testing
import TraitBridgeModel
import TraitBridgeSources

@testable import TraitBridgeEngine

@Suite("Source ingress: routes, claims, kept messages under their bounds, links and refusals")
struct SourceIngressTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A plug-in that claims topics under its prefix and says one value per message.
    struct EchoPlugin: SourcePlugin {
        var family: String
        var prefix: String
        var instance: String { "default" }
        var locality: TraitLocality { .localPeer }
        var staleness: Duration { .seconds(60) }
        var subscriptions: [String] { [prefix + "/#"] }
        var deviceIDs: [DeviceID] { [] }
        var deviceCount: Int { 0 }
        var received = 0

        func claims(_ topic: String) -> Bool { topic.hasPrefix(prefix + "/") }
        func carriesList(_ topic: String) -> Bool { topic.hasSuffix("/list") }
        mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
            received += 1
            events.append(.log(.info, "\(family) took \(message.topic) (\(received))", device: nil))
        }
        mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
            -> [SourceOutgoing]
        { [] }
    }

    func ingress() -> SourceIngress {
        SourceIngress(plugins: [EchoPlugin(family: "a", prefix: "a"), EchoPlugin(family: "b", prefix: "b")])
    }

    @Test("an exact route wins over the claim test, and both plug-ins of a shared route stay in order")
    func routes() {
        var ingress = ingress()
        #expect(ingress.route("b/x") == nil && ingress.claimant("b/x") == 1 && ingress.claimant("c/x") == nil)
        ingress.addRoutes(["b/x"], to: 0)
        ingress.addRoutes(["b/x"], to: 1)
        #expect(ingress.route("b/x") == SourceRoute(first: 0, others: [1]))
        ingress.removeRoutes(["b/x"], from: 0)
        #expect(ingress.route("b/x") == SourceRoute(first: 1))
        ingress.removeRoutes(["b/x"], from: 1)
        #expect(ingress.route("b/x") == nil)
        #expect(ingress.carriesList("a/list") && !ingress.carriesList("a/x") && !ingress.carriesList("z/list"))
    }

    @Test("a plug-in's events come back, and the buffer they came in is reused while small")
    func receive() {
        var ingress = ingress()
        let message = SourceMessage(topic: "a/1", payload: [], now: now, deviceLimit: 10)
        let first = ingress.receive(message, plugin: 0)
        #expect(first.count == 1)
        ingress.recycle(first)
        let second = ingress.receive(message, plugin: 0)
        guard case .log(_, let text, _) = second.first else {
            Issue.record("no log event: \(second)")
            return
        }
        #expect(text == "a took a/1 (2)", "the plug-in keeps its state between messages")
        #expect(ingress.keptEventCapacity == 0, "the buffer is out while its events are")
        ingress.recycle(second)
        #expect(ingress.keptEventCapacity > 0 && ingress.keptEventCapacity <= SourceIngress.eventBufferCapacity)
    }

    @Test("kept messages: the newest per topic; past a bound the oldest makes room and each eviction is said")
    func pendingBounds() {
        var ingress = ingress()
        var limits = BridgeLimits()
        limits.pendingMessages = 2
        limits.pendingBytes = 10
        let kept = [
            ingress.keepPending("t1", [1, 2], limits: limits), ingress.keepPending("t2", [1, 2], limits: limits),
        ]
        #expect(kept.allSatisfy { $0.isEmpty })
        let evicted = ingress.keepPending("t3", [1], limits: limits)
        #expect(evicted == [.init(kind: .pendingMessages, topic: "t1", detail: evicted.first?.detail ?? "")])
        let tooLarge = ingress.keepPending("big", Array(repeating: 0, count: 11), limits: limits)
        #expect(tooLarge.map(\.kind) == [.pendingBytes] && ingress.pendingCount == 2 && ingress.pendingBytes == 3)
        let taken = [ingress.takePending("t2"), ingress.takePending("t2")]
        #expect(taken == [[1, 2], nil])
    }

    @Test("a source bridge's word is news once; health is due only while the broker is up, once per change")
    func linksAndHealth() {
        var ingress = ingress()
        let online = LinkState(status: .up, since: now, origin: "a/bridge/state")
        let said = [ingress.setSourceLink(0, online), ingress.setSourceLink(0, online)]
        #expect(said == [true, false])
        #expect(ingress.sourceLink(0).status == .up && ingress.sourceLink(1).status == .unknown)
        let whileDown = ingress.takeHealthChange()
        #expect(!whileDown, "the broker is not up")
        ingress.setBroker(LinkState(status: .up, since: now, origin: "mqtt://127.0.0.1"))
        let due = [ingress.takeHealthChange(), ingress.takeHealthChange()]
        #expect(due == [true, false])
        let counts = [ingress.countRefusal(.messageBytes), ingress.countRefusal(.messageBytes)]
        #expect(counts == [1, 2])
        #expect(ingress.refusalCount(.messageBytes) == 2 && ingress.refusalCount(.listBytes) == 0)
        let afterRefusal = ingress.takeHealthChange()
        #expect(afterRefusal, "a refusal changes the health topic")
    }
}
