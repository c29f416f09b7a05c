import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// How a partner cloud's answers settle the commands sent over its link, in the state machine:
/// SUCCESS confirms, PENDING waits for the follow-up notification, OFFLINE / ERROR end with the
/// partner's errorCode, `challengeNeeded` asks for `--ack` / `--pin`, and a request that got no
/// answer ends with the link's reason. Other notifications become device events.
@Suite("commands over a cloud link")
struct CloudLinkCommandStateTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let lock = Array(
        #"""
        {"requestId":"s","payload":{"agentUserId":"p","devices":[
         {"id":"a","type":"action.devices.types.LIGHT","traits":["action.devices.traits.OnOff"],"name":{"name":"a"},"willReportState":true},
         {"id":"door","type":"action.devices.types.LOCK","traits":["action.devices.traits.LockUnlock"],"name":{"name":"door"},"willReportState":true}]}}
        """#.utf8)
    static let query = Array(
        #"{"payload":{"devices":{"a":{"online":true,"on":false},"door":{"online":true,"isLocked":true,"isJammed":false}}}}"#
            .utf8)

    /// A bridge holding link `p`'s light `a` and lock `door`, online.
    func linked() throws -> BridgeState {
        var state = try EngineFixtures.state(withCloud: true)
        _ = state.brokerConnected(now: now)
        _ = state.setCloudLinks(["p"], now: now)
        _ = state.importLinkSync(Self.lock, link: "p", now: now)
        _ = state.applyLinkAnswer(Self.query, link: "p", now: now)
        return state
    }

    /// Sends `command` to the device; the one link request it made.
    func send(_ state: inout BridgeState, _ id: String, _ command: String) throws -> LinkRequest {
        let effects = state.handleMessage(
            topic: "traitbridge/devices/c2c-\(id)/set", payload: Array(command.utf8), now: now)
        #expect(effects.publications.filter { $0.topic.hasSuffix("/set/result") }.isEmpty, "no result yet")
        return try #require(effects.linkRequests.first)
    }

    func result(_ effects: BridgeEffects, _ id: String) -> String? {
        effects.publications.first { $0.topic == "traitbridge/devices/c2c-\(id)/set/result" }
            .map { String(decoding: $0.payload, as: UTF8.self) }
    }

    static func answer(_ group: String) -> [UInt8] {
        Array(#"{"requestId":"x","payload":{"commands":[\#(group)]}}"#.utf8)
    }

    @Test("SUCCESS confirms (even without states); OFFLINE and ERROR end with the partner's errorCode")
    func outcomes() throws {
        var state = try linked()
        let on = try send(&state, "a", #"{"id":"c1","trait":"matter.OnOff","command":"on"}"#)
        #expect(on.link == "p")
        let body = try JSONDocument.parse(on.body).root
        #expect(body["requestId"]?.string == on.requestID)
        let success = state.applyLinkExecute(
            Self.answer(#"{"ids":["a"],"status":"SUCCESS"}"#), link: "p", requestID: on.requestID, now: now)
        #expect(result(success, "a")?.contains(#""status":"confirmed""#) == true, "\(result(success, "a") ?? "none")")

        let offline = try send(&state, "a", #"{"id":"c2","trait":"matter.OnOff","command":"off"}"#)
        let answer = state.applyLinkExecute(
            Self.answer(#"{"ids":["a"],"status":"OFFLINE"}"#), link: "p", requestID: offline.requestID, now: now)
        let text = result(answer, "a") ?? ""
        #expect(text.contains(#""code":"deviceOffline""#) && text.contains(#""errorCode":"deviceOffline""#), "\(text)")
        _ = state.applyLinkAnswer(Self.query, link: "p", now: now)  // online again

        let jammed = try send(&state, "a", #"{"id":"c3","trait":"matter.OnOff","command":"on"}"#)
        let error = state.applyLinkExecute(
            Self.answer(#"{"ids":["a"],"status":"ERROR","errorCode":"deviceJammingDetected"}"#), link: "p",
            requestID: jammed.requestID, now: now)
        let refused = result(error, "a") ?? ""
        #expect(
            refused.contains(#""code":"partnerError""#) && refused.contains(#""errorCode":"deviceJammingDetected""#)
                && refused.contains("cloud link p"), "\(refused)")
        // An answer for a request already settled changes nothing.
        let late = state.applyLinkExecute(
            Self.answer(#"{"ids":["a"],"status":"SUCCESS"}"#), link: "p", requestID: jammed.requestID, now: now)
        #expect(result(late, "a") == nil)

        let lost = try send(&state, "a", #"{"id":"c4","trait":"matter.OnOff","command":"on"}"#)
        let failed = state.linkRequestFailed(lost.requestID, link: "p", error: "connection refused", now: now)
        #expect(result(failed, "a")?.contains("cloud link p: connection refused") == true)
    }

    @Test("challengeNeeded asks for --ack or --pin; the answer travels in the next EXECUTE's challenge")
    func challenge() throws {
        var state = try linked()
        let first = try send(&state, "door", #"{"id":"u1","trait":"matter.DoorLock","command":"unlockDoor"}"#)
        let asked = state.applyLinkExecute(
            Self.answer(
                #"{"ids":["door"],"status":"ERROR","errorCode":"challengeNeeded","challengeNeeded":{"type":"pinNeeded"}}"#
            ),
            link: "p", requestID: first.requestID, now: now)
        let text = result(asked, "door") ?? ""
        #expect(
            text.contains(#""code":"challengeNeeded""#) && text.contains(#""challenge":"pinNeeded""#)
                && text.contains("--pin"), "\(text)")

        let again = try send(
            &state, "door",
            #"{"id":"u2","trait":"matter.DoorLock","command":"unlockDoor","challenge":{"pin":"4321"}}"#)
        let execution = try JSONDocument.parse(again.body).root["inputs"]?[0]?["payload"]?["commands"]?[0]?[
            "execution"]?[0]
        #expect(execution?["challenge"]?["pin"]?.string == "4321")
        #expect(
            execution?["params"]?["followUpToken"]?.string == again.requestID, "LockUnlock carries a follow-up token")

        let bad = state.handleMessage(
            topic: "traitbridge/devices/c2c-door/set",
            payload: Array(#"{"id":"u3","trait":"matter.DoorLock","command":"unlockDoor","challenge":{"pin":7}}"#.utf8),
            now: now)
        #expect(result(bad, "door")?.contains(#""challenge\" must be"#) == true, "\(result(bad, "door") ?? "none")")
    }

    @Test("PENDING waits for the follow-up: SUCCESS confirms, FAILURE refuses, none in time is assumed")
    func followUp() throws {
        var state = try linked()
        let unlock = #"{"id":"f1","trait":"matter.DoorLock","command":"unlockDoor","challenge":{"ack":true}}"#
        let first = try send(&state, "door", unlock)
        let pending = state.applyLinkExecute(
            Self.answer(#"{"ids":["door"],"status":"PENDING"}"#), link: "p", requestID: first.requestID, now: now)
        #expect(result(pending, "door")?.contains(#""status":"pending""#) == true, "PENDING is said, not an end")
        #expect(state.tick(now: now).publications.allSatisfy { !$0.topic.hasSuffix("/set/result") })
        func followUp(_ token: String, _ response: String) -> [UInt8] {
            Array(
                #"{"agentUserId":"p","payload":{"devices":{"notifications":{"door":{"LockUnlock":{"priority":0,"followUpResponse":{"followUpToken":"\#(token)",\#(response)}}}}}}}"#
                    .utf8)
        }
        let done = state.applyLinkPush(
            followUp(first.requestID, #""status":"SUCCESS","isLocked":false"#), link: "p", now: now)
        #expect(result(done, "door")?.contains(#""status":"confirmed""#) == true, "\(result(done, "door") ?? "none")")

        let second = try send(&state, "door", unlock)
        _ = state.applyLinkExecute(
            Self.answer(#"{"ids":["door"],"status":"PENDING"}"#), link: "p", requestID: second.requestID, now: now)
        let jam = state.applyLinkPush(
            followUp(second.requestID, #""status":"FAILURE","errorCode":"deviceJammingDetected""#), link: "p", now: now)
        #expect(result(jam, "door")?.contains(#""errorCode":"deviceJammingDetected""#) == true)

        var quick = try EngineFixtures.state(commandTimeout: .milliseconds(1), withCloud: true)
        _ = quick.brokerConnected(now: now)
        _ = quick.setCloudLinks(["p"], now: now)
        _ = quick.importLinkSync(Self.lock, link: "p", now: now)
        _ = quick.applyLinkAnswer(Self.query, link: "p", now: now)
        let third = try send(&quick, "door", unlock)
        _ = quick.applyLinkExecute(
            Self.answer(#"{"ids":["door"],"status":"PENDING"}"#), link: "p", requestID: third.requestID, now: now)
        // Past the command timeout (1 ms), within the follow-up time (60 s): still waiting.
        #expect(
            quick.tick(now: now.addingTimeInterval(30)).publications.allSatisfy { !$0.topic.hasSuffix("/set/result") },
            "follow-up time")
        let late = quick.tick(now: now.addingTimeInterval(61))
        #expect(result(late, "door")?.contains(#""status":"assumed""#) == true, "\(result(late, "door") ?? "none")")
    }

    @Test("a doorbell notification is a device event; a removed link takes its devices with it")
    func notificationsAndRemoval() throws {
        var state = try linked()
        let ring = Array(
            #"{"payload":{"devices":{"notifications":{"door":{"ObjectDetection":{"priority":0,"detectionTimestamp":1,"objects":{"familiar":1}}},"nobody":{"RunCycle":{"priority":0}}}}}}"#
                .utf8)
        let effects = state.applyLinkPush(ring, link: "p", now: now)
        let event = try #require(effects.publications.first { $0.topic == "traitbridge/devices/c2c-door/event" })
        #expect(!event.isRetained)
        let root = try JSONDocument.parse(event.payload).root
        #expect(root["trait"]?.string == "google.ObjectDetection" && root["link"]?.string == "p")
        #expect(root["notification"]?["objects"]?["familiar"]?.int64 == 1)
        #expect(effects.logs.contains { $0.message.contains("'nobody', never synced") })

        let waiting = try send(&state, "a", #"{"id":"w1","trait":"matter.OnOff","command":"on"}"#)
        #expect(waiting.link == "p")
        let removed = state.setCloudLinks([], now: now)
        #expect(
            result(removed, "a")?.contains("cloud link p was removed before it answered") == true,
            "a command waiting on a removed link ends at once: \(result(removed, "a") ?? "no result")")
        #expect(state.linkDeviceIDs("p").isEmpty)
        #expect(removed.publications.contains { $0.topic == "traitbridge/devices/c2c-a/state" && $0.payload.isEmpty })
    }
}
