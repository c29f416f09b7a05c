import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// A partner cloud's camera in the state machine: its live view asks the partner for the stream
/// (GetCameraStream over the link), the held offer then goes to the signalling URL the partner gave;
/// what the partner cannot give ends the command with why; an answer that never comes times out
/// saying who was waited for.
@Suite("a partner's camera stream")
struct CameraStreamStateTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let sync = Array(
        #"""
        {"requestId":"s","payload":{"agentUserId":"p","devices":[{"id":"cam","type":"action.devices.types.CAMERA",
         "traits":["action.devices.traits.CameraStream"],"name":{"name":"Gate"},"willReportState":false,
         "attributes":{"cameraStreamSupportedProtocols":["webrtc"],"cameraStreamNeedAuthToken":true}}]}}
        """#.utf8)
    static let offer = "v=0\\r\\no=- 1 1 IN IP4 0.0.0.0\\r\\ns=-\\r\\nt=0 0\\r\\nm=video 9 UDP/TLS/RTP/SAVPF 96\\r\\n"
    static let live =
        #"{"id":"v","trait":"google.WebRtcLiveView","command":"startLiveView","arguments":{"offerSdp":"\#(offer)"}}"#

    func linked() throws -> (BridgeState, LinkRequest) {
        var state = try EngineFixtures.state(withCloud: true)
        _ = state.brokerConnected(now: now)
        _ = state.setCloudLinks(["p"], now: now)
        _ = state.importLinkSync(Self.sync, link: "p", now: now)
        let asked = state.handleMessage(
            topic: "traitbridge/devices/c2c-cam/set", payload: Array(Self.live.utf8), now: now)
        let request = try #require(asked.linkRequests.first, "\(asked.logs)")
        let body = String(decoding: request.body, as: UTF8.self)
        #expect(body.contains("action.devices.commands.GetCameraStream") && body.contains(#"["webrtc"]"#), "\(body)")
        return (state, request)
    }

    static func result(_ effects: BridgeEffects) -> String {
        effects.publications.first { $0.topic == "traitbridge/devices/c2c-cam/set/result" }
            .map { String(decoding: $0.payload, as: UTF8.self) } ?? "none"
    }

    @Test("the partner's stream: the offer goes to its URL with its token; the answer ends the command")
    func granted() throws {
        var (state, request) = try linked()
        let answer = Array(
            #"""
            {"requestId":"x","payload":{"commands":[{"ids":["cam"],"status":"SUCCESS","states":{
             "cameraStreamProtocol":"webrtc","cameraStreamSignalingUrl":"https://partner.example/sig",
             "cameraStreamAuthToken":"tok-1"}}]}}
            """#.utf8)
        let granted = state.applyLinkExecute(answer, link: "p", requestID: request.requestID, now: now)
        let signal = try #require(granted.signalling.first)
        #expect(signal.url == "https://partner.example/sig")
        guard case .partnerOffer(let sdp, let token, let c2cID) = signal.kind else {
            Issue.record("a partner offer, not \(signal.kind)")
            return
        }
        #expect(sdp.hasPrefix("v=0") && token == "tok-1" && c2cID == "cam")
        let done = state.signallingAnswered(
            .answer(sdp: "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n", resource: nil), requestID: signal.requestID,
            now: now)
        #expect(Self.result(done).contains(#""status":"confirmed""#), "\(Self.result(done))")
        let session = try #require(Self.result(done).firstMatch(of: /"mediaSessionId":"([^"]+)"/).map { String($0.1) })
        let stop =
            #"{"id":"s","trait":"google.WebRtcLiveView","command":"stopLiveView","#
            + #""arguments":{"mediaSessionId":"\#(session)"}}"#
        let stopped = state.handleMessage(
            topic: "traitbridge/devices/c2c-cam/set", payload: Array(stop.utf8), now: now)
        guard case .partnerEnd(let endToken, "cam")? = stopped.signalling.first?.kind else {
            Issue.record("stop posts end to the partner: \(stopped.signalling)")
            return
        }
        #expect(endToken == "tok-1")
    }

    @Test("refused with why: HLS only, the partner's error, no answer in time")
    func refusals() throws {
        var (state, request) = try linked()
        let hls =
            Array(
                #"{"payload":{"commands":[{"ids":["cam"],"status":"SUCCESS","states":{"cameraStreamProtocol":"hls","#
                    .utf8)
            + Array(#""cameraStreamAccessUrl":"https://partner.example/a.m3u8"}}]}}"#.utf8)
        let refused = state.applyLinkExecute(hls, link: "p", requestID: request.requestID, now: now)
        #expect(Self.result(refused).contains("streams 'hls', not webrtc"), "\(Self.result(refused))")

        (state, request) = try linked()
        let error = Array(
            #"{"payload":{"commands":[{"ids":["cam"],"status":"ERROR","errorCode":"streamUnavailable"}]}}"#.utf8)
        let failed = state.applyLinkExecute(error, link: "p", requestID: request.requestID, now: now)
        #expect(Self.result(failed).contains("streamUnavailable"), "\(Self.result(failed))")

        (state, _) = try linked()
        let late = state.tick(now: now.addingTimeInterval(11))
        #expect(
            Self.result(late).contains("the camera's partner cloud gave no stream (GetCameraStream) within 10 s"),
            "\(Self.result(late))")
    }
}
