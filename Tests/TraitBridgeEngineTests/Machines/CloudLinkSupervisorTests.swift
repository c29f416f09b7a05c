import Foundation
import Testing
import TraitBridgeJSON

@testable import TraitBridgeEngine

@Suite("Cloud-link supervisor: failures, staleness and sweeps, driven by the events' time")
struct CloudLinkSupervisorTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a failure keeps its first time while it repeats; a new error changes the health; success clears it")
    func failures() {
        var links = CloudLinkSupervisor(links: ["p"])
        let first = links.failed("p", error: "timeout", now: start)
        #expect(first.since == start && first.isChanged)
        let again = links.failed("p", error: "timeout", now: start.addingTimeInterval(5))
        #expect(again.since == start && !again.isChanged, "the same error again: since stays, health unchanged")
        let other = links.failed("p", error: "HTTP 500", now: start.addingTimeInterval(9))
        #expect(other.since == start && other.isChanged)
        #expect(links.failure(of: "p")?.error == "HTTP 500")
        let cleared = links.succeeded("p")
        let clearedAgain = links.succeeded("p")
        #expect(cleared)
        #expect(!clearedAgain, "a second success changes nothing")
        #expect(links.failure(of: "p") == nil)
    }

    @Test("removing a link forgets its failure and reports it; the same set again is no change")
    func setLinks() {
        var links = CloudLinkSupervisor(links: ["p", "q"])
        _ = links.failed("q", error: "down", now: start)
        let change = links.setLinks(["p", "r"], staleness: [:])
        #expect(change.removed == ["q"] && change.changed)
        #expect(links.failure(of: "q") == nil && links.contains("r") && !links.contains("q"))
        let same = links.setLinks(["p", "r"], staleness: [:])
        #expect(same.removed.isEmpty && !same.changed)
    }

    @Test("sweeps at most once a second, only with links; stale past the link's budget unless it fails")
    func sweepsAndStaleness() {
        var none = CloudLinkSupervisor()
        let noneSwept = none.takeSweep(now: start)
        #expect(!noneSwept, "no links, no sweep")
        var links = CloudLinkSupervisor(links: ["p", "q"])
        _ = links.setLinks(["p", "q"], staleness: ["p": .seconds(10)])
        let sweeps = [0, 0.5, 1].map { links.takeSweep(now: start.addingTimeInterval($0)) }
        #expect(sweeps == [true, false, true])
        #expect(!links.isStale(link: "p", lastAnswer: start, now: start.addingTimeInterval(10)), "at the budget")
        #expect(links.isStale(link: "p", lastAnswer: start, now: start.addingTimeInterval(11)))
        #expect(links.budget(of: "q") == CloudLinkSupervisor.defaultStaleness)
        #expect(!links.isStale(link: "q", lastAnswer: start, now: start.addingTimeInterval(179)))
        _ = links.failed("p", error: "down", now: start)
        #expect(!links.isStale(link: "p", lastAnswer: start, now: start.addingTimeInterval(60)), "its failure says why")
        #expect(!links.isStale(link: "gone", lastAnswer: start, now: start.addingTimeInterval(600)))
    }

    @Test("request ids are numbered from 1 and never repeat; health lists each link with its devices")
    func requestsAndHealth() {
        var links = CloudLinkSupervisor(links: ["b", "a"])
        let ids = [links.nextRequestID(), links.nextRequestID()]
        #expect(ids == ["tb-link-1", "tb-link-2"])
        _ = links.failed("b", error: "refused", now: start)
        let health = links.health { $0 == "a" ? 3 : 1 }
        #expect(health.members.map(\.key) == ["a", "b"])
        #expect(health["a"]?["devices"] == .int(3) && health["a"]?["state"] == .string("ok"))
        #expect(health["b"]?["state"] == .string("failing") && health["b"]?["error"] == .string("refused"))
    }
}
