import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// A cloud link's answers in the state machine: a SYNC said again unchanged changes nothing (no
/// flap to "imported, no QUERY yet" every sync interval); a device the SYNC drops disappears; a
/// failure marks only that link's devices and says why.
@Suite("cloud link answers in the bridge")
struct CloudLinkStateTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func sync(_ ids: [String]) -> [UInt8] {
        let devices = ids.map {
            #"{"id":"\#($0)","type":"action.devices.types.LIGHT","traits":["action.devices.traits.OnOff"],"name":{"name":"\#($0)"},"willReportState":true}"#
        }
        return Array(
            #"{"requestId":"s","payload":{"agentUserId":"p","devices":[\#(devices.joined(separator: ","))]}}"#.utf8)
    }

    static let query = Array(
        #"{"requestId":"q","payload":{"devices":{"a":{"online":true,"status":"SUCCESS","on":true}}}}"#.utf8)

    func stateTopic(_ id: String) -> String { "traitbridge/devices/c2c-\(id)/state" }

    @Test("an unchanged SYNC keeps the devices as they are; a dropped one goes; a failure says the link")
    func answers() throws {
        var state = try EngineFixtures.state(withCloud: true)
        _ = state.brokerConnected(now: now)
        var published: [String: String] = [:]
        func note(_ effects: BridgeEffects) -> BridgeEffects {
            for outgoing in effects.publications {
                published[outgoing.topic] = String(decoding: outgoing.payload, as: UTF8.self)
            }
            return effects
        }
        _ = note(state.importLinkSync(Self.sync(["a", "b"]), link: "p", now: now))
        _ = note(state.applyLinkAnswer(Self.query, link: "p", now: now))
        let online = published[stateTopic("a")]
        #expect(online?.contains(#""connectivityState":"online""#) == true, "\(online ?? "none")")

        let again = note(state.importLinkSync(Self.sync(["a", "b"]), link: "p", now: now.addingTimeInterval(300)))
        #expect(
            !again.publications.contains { $0.topic == stateTopic("a") }, "nothing republished for an unchanged SYNC")
        #expect(published[stateTopic("a")] == online, "values and connectivity kept")

        let dropped = state.importLinkSync(Self.sync(["a"]), link: "p", now: now.addingTimeInterval(600))
        #expect(dropped.publications.contains { $0.topic == stateTopic("b") && $0.payload.isEmpty }, "b is cleared")
        #expect(state.linkDeviceIDs("p") == ["a"])

        let failed = state.linkFailed("p", error: "QUERY failed: connection refused", state: .offline, now: now)
        let offline = failed.publications.first { $0.topic == stateTopic("a") }
        let text = offline.map { String(decoding: $0.payload, as: UTF8.self) } ?? ""
        #expect(
            text.contains(#""connectivityState":"offline""#)
                && text.contains("link p: QUERY failed: connection refused"), "\(text)")
        #expect(failed.logs.contains { $0.message == "cloud link p: QUERY failed: connection refused" })
    }

    @Test("a device the partner's answers leave out goes unknown after the link's staleness; an answer brings it back")
    func staleness() throws {
        var state = try EngineFixtures.state(withCloud: true)
        _ = state.brokerConnected(now: now)
        _ = state.setCloudLinks(["p"], staleness: ["p": .seconds(60)], now: now)
        _ = state.importLinkSync(Self.sync(["a", "b"]), link: "p", now: now)
        let both = Array(
            #"{"payload":{"devices":{"a":{"online":true,"on":true},"b":{"online":true,"on":false}}}}"#.utf8)
        _ = state.applyLinkAnswer(both, link: "p", now: now)
        #expect(state.tick(now: now.addingTimeInterval(30)).publications.allSatisfy { $0.topic.hasSuffix("/health") })
        _ = state.applyLinkAnswer(Self.query, link: "p", now: now.addingTimeInterval(30))  // only "a"
        let swept = state.tick(now: now.addingTimeInterval(61))
        let stale = swept.publications.first { $0.topic == stateTopic("b") }.map {
            String(decoding: $0.payload, as: UTF8.self)
        }
        #expect(stale?.contains(#""connectivityState":"unknown""#) == true, "\(stale ?? "b not republished")")
        #expect(stale?.contains("stale") == true || stale?.contains("no report") == true, "\(stale ?? "")")
        #expect(!swept.publications.contains { $0.topic == stateTopic("a") }, "a was answered 31 s ago")
        #expect(state.tick(now: now.addingTimeInterval(70)).publications.isEmpty, "said once")
        let back = state.applyLinkAnswer(both, link: "p", now: now.addingTimeInterval(75))
        let online = back.publications.first { $0.topic == stateTopic("b") }.map {
            String(decoding: $0.payload, as: UTF8.self)
        }
        #expect(online?.contains(#""connectivityState":"online""#) == true, "\(online ?? "")")
    }
}
