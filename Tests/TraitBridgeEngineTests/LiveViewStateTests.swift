import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// A camera's live view in the state machine alone, time driven by the test: the offer goes out as
/// an effect to the camera's go2rtc, its answer ends the command with the session; sessions expire,
/// extend, stop; what is refused says why.
@Suite("Live view sessions")
struct LiveViewStateTests {
    static let camera = "traitbridge/devices/frigate-front_door/set"
    static let offer = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"

    static func ready(recording: String = "ON", at now: Date) throws -> BridgeState {
        var state = try EngineFixtures.state(withFrigate: true)
        _ = state.brokerConnected(now: now)
        _ = state.receive("frigate/stats", SourceConformanceTests.frigateStats(fps: 5), at: now)
        _ = state.receive("frigate/front_door/recordings/state", recording, at: now)
        return state
    }

    static func command(_ name: String, _ arguments: JSONObject) -> String {
        let command: JSONValue = [
            "id": "c", "trait": "google.WebRtcLiveView", "command": .string(name), "arguments": .object(arguments),
        ]
        return command.serialized()
    }

    /// Starts a session answered by the camera at `now`: its id.
    static func start(_ state: inout BridgeState, at now: Date) throws -> String {
        let sent = state.receive(camera, command("startLiveView", ["offerSdp": .string(offer)]), at: now)
        let request = try #require(sent.signalling.first, "\(sent.last(camera + "/result")?.value.serialized() ?? "")")
        #expect(request.url == "http://198.18.0.2:1984/api/webrtc?src=front_door")
        #expect(request.kind == .offer(sdp: offer))
        #expect(!sent.published(camera + "/result"), "the command waits for the camera's answer")
        let answered = state.signallingAnswered(
            .answer(sdp: offer, resource: "http://198.18.0.2:1984/api/webrtc/session/1"), requestID: request.requestID,
            now: now)
        let result = try #require(answered.last(camera + "/result"))
        #expect(result["status"]?.string == "confirmed")
        #expect(result["response"]?["answerSdp"]?.string == offer)
        #expect(result["response"]?["liveSessionDurationSeconds"]?.int64 == 300)
        return try #require(result["response"]?["mediaSessionId"]?.string)
    }

    @Test("start: the offer goes to go2rtc, the answer ends the command with the session; it expires on its own")
    func startAndExpire() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var state = try Self.ready(at: now)
        let id = try Self.start(&state, at: now)
        let extended = state.receive(
            Self.camera, Self.command("extendLiveView", ["mediaSessionId": .string(id)]),
            at: now.addingTimeInterval(200))
        #expect(extended.last(Self.camera + "/result")?["response"]?["liveSessionDurationSeconds"]?.int64 == 300)
        // Extended at 200 s: it holds until 500 s; at 499 s still there, at 501 s gone (and the camera told).
        _ = state.tick(now: now.addingTimeInterval(499))
        let talk = state.receive(
            Self.camera, Self.command("startTalkback", ["mediaSessionId": .string(id)]), at: now.addingTimeInterval(499)
        )
        #expect(talk.last(Self.camera + "/result")?["response"]?["talkback"]?.bool == true)
        let tick = state.tick(now: now.addingTimeInterval(501))
        #expect(tick.signalling.contains { $0.kind == .end && $0.url.hasSuffix("/session/1") })
        let late = state.receive(
            Self.camera, Self.command("extendLiveView", ["mediaSessionId": .string(id)]),
            at: now.addingTimeInterval(502))
        let refused = try #require(late.last(Self.camera + "/result"))
        #expect(refused["code"]?.string == "invalidValue")
        #expect(refused["message"]?.string?.contains("start a new one with startLiveView") == true, "\(refused)")
    }

    @Test("stop ends the session and tells the camera; an unknown id is refused at once, never waited on")
    func stopAndUnknown() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var state = try Self.ready(at: now)
        let id = try Self.start(&state, at: now)
        // The camera gets no frames now (offline): nothing new starts, the open session still ends.
        _ = state.receive("frigate/stats", SourceConformanceTests.frigateStats(fps: 0), at: now)
        let offline = state.receive(
            Self.camera, Self.command("startLiveView", ["offerSdp": .string(Self.offer)]), at: now)
        #expect(offline.last(Self.camera + "/result")?["code"]?.string == "deviceOffline")
        #expect(offline.signalling.isEmpty)
        let stopped = state.receive(Self.camera, Self.command("stopLiveView", ["mediaSessionId": .string(id)]), at: now)
        #expect(stopped.last(Self.camera + "/result")?["status"]?.string == "confirmed")
        #expect(
            stopped.signalling == [
                SignallingRequest(requestID: id, url: "http://198.18.0.2:1984/api/webrtc/session/1", kind: .end)
            ])
        for unknown in [id, "live-0-0", ""] {
            let again = state.receive(
                Self.camera, Self.command("stopLiveView", ["mediaSessionId": .string(unknown)]), at: now)
            #expect(again.last(Self.camera + "/result")?["status"]?.string == "error", "\(unknown)")
        }
    }

    @Test("refused with the reason: not recording (failedPrecondition), hostile SDP, no answer in time")
    func refusals() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var off = try Self.ready(recording: "OFF", at: now)
        let notRecording = off.receive(
            Self.camera, Self.command("startLiveView", ["offerSdp": .string(Self.offer)]), at: now)
        #expect(notRecording.signalling.isEmpty)
        #expect(notRecording.last(Self.camera + "/result")?["code"]?.string == "failedPrecondition")
        var state = try Self.ready(at: now)
        let hostile: [(String, String)] = [
            ("hello", "is not SDP"), (Self.offer + String(repeating: "a=x\r\n", count: 14_000), "at most 65536"),
            ("v=0\r\n\u{0}\u{1}m=video", "control characters"), ("v=0\r\ns=-\r\n", "no media section"),
        ]
        for (sdp, reason) in hostile {
            let effects = state.receive(Self.camera, Self.command("startLiveView", ["offerSdp": .string(sdp)]), at: now)
            #expect(effects.signalling.isEmpty)
            let result = try #require(effects.last(Self.camera + "/result"))
            #expect(
                result["code"]?.string == "invalidValue" && result["message"]?.string?.contains(reason) == true,
                "\(result)")
        }
        let sent = state.receive(Self.camera, Self.command("startLiveView", ["offerSdp": .string(Self.offer)]), at: now)
        #expect(sent.signalling.count == 1)
        let expired = state.tick(now: now.addingTimeInterval(11))
        let result = try #require(expired.last(Self.camera + "/result"))
        #expect(result["code"]?.string == "deviceOffline")
        #expect(result["message"]?.string?.contains("no answer within 10 s") == true, "\(result)")
        // The camera's late answer finds no command waiting: nothing published.
        let late = state.signallingAnswered(
            .answer(sdp: Self.offer, resource: nil), requestID: sent.signalling[0].requestID,
            now: now.addingTimeInterval(12))
        #expect(late.publications.isEmpty)
        let failed = state.receive(
            Self.camera, Self.command("startLiveView", ["offerSdp": .string(Self.offer)]), at: now)
        let unreachable = state.signallingAnswered(
            .failed("it answered HTTP 404"), requestID: failed.signalling[0].requestID, now: now)
        #expect(unreachable.last(Self.camera + "/result")?["message"]?.string?.contains("HTTP 404") == true)
    }
}
