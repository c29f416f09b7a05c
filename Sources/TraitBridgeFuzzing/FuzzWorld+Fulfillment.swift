import Foundation
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeHTTP
import TraitBridgeJSON
import TraitBridgeModel

extension FuzzWorld {
    /// A cloud link's SYNC and then QUERY answers (the same bytes as both) into a copy of the
    /// prepared bridge: whatever a partner answers, every publication stays JSON and the link's
    /// failure marks only its own devices.
    func linkAnswer(_ bytes: [UInt8]) {
        var state = prepared
        Self.check(state.importLinkSync(bytes, link: "fuzz", now: start))
        Self.check(state.applyLinkAnswer(bytes, link: "fuzz", now: start))
        Self.check(state.linkFailed("fuzz", error: "fuzz", state: .offline, now: start))

        // The same bytes as a partner's answer to a command sent over the link, then as a push
        // (notifications, follow-ups), and as a registry row of a link's settings.
        var linked = prepared
        Self.check(linked.setCloudLinks(["fuzz"], now: start))
        _ = linked.importLinkSync(Self.linkSync, link: "fuzz", now: start)
        _ = linked.applyLinkAnswer(Self.linkQuery, link: "fuzz", now: start)
        for command in [#"{"id":"f","trait":"matter.DoorLock","command":"unlockDoor","challenge":{"ack":true}}"#] {
            let sent = linked.handleMessage(
                topic: "traitbridge/devices/c2c-fuzz-lock/set", payload: Array(command.utf8), now: start)
            precondition(sent.linkRequests.count == 1, "a command on a link's lock is one EXECUTE request")
            for request in sent.linkRequests {
                Self.check(linked.applyLinkExecute(bytes, link: "fuzz", requestID: request.requestID, now: start))
            }
        }
        // The same bytes as the partner's answer to the GetCameraStream a live view of its camera asks.
        let live =
            #"{"id":"v","trait":"google.WebRtcLiveView","command":"startLiveView","arguments":{"offerSdp":"#
            + #""v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"}}"#
        let asked = linked.handleMessage(
            topic: "traitbridge/devices/c2c-fuzz-cam/set", payload: Array(live.utf8), now: start)
        precondition(asked.linkRequests.count == 1, "a partner camera's live view asks its cloud for the stream")
        for request in asked.linkRequests {
            let answered = linked.applyLinkExecute(bytes, link: "fuzz", requestID: request.requestID, now: start)
            Self.check(answered)
            for offer in answered.signalling {
                Self.check(
                    linked.signallingAnswered(
                        .answer(sdp: "v=0", resource: nil), requestID: offer.requestID, now: start))
            }
        }
        _ = GoogleC2C.cameraStreamGrant(fromExecuteAnswer: bytes, link: "fuzz")
        Self.check(linked.applyLinkPush(bytes, link: "fuzz", now: start))
        Self.check(linked.setCloudLinks([], now: start))
        precondition(linked.linkDeviceIDs("fuzz").isEmpty, "a removed link leaves no device behind")
        _ = try? CloudLinkSettings(name: "fuzz", stored: bytes)
    }

    static let linkSync =
        Array(
            #"{"payload":{"agentUserId":"p","devices":[{"id":"fuzz-lock","type":"action.devices.types.LOCK","#
                .utf8)
        + Array(
            #""traits":["action.devices.traits.LockUnlock"],"name":{"name":"lock"},"willReportState":true},"#.utf8)
        + Array(
            #"{"id":"fuzz-cam","type":"action.devices.types.CAMERA","traits":["action.devices.traits.CameraStream"],"#
                .utf8)
        + Array(
            #""attributes":{"cameraStreamSupportedProtocols":["webrtc"],"cameraStreamNeedAuthToken":true},"#.utf8)
        + Array(#""name":{"name":"cam"},"willReportState":false}]}}"#.utf8)
    static let linkQuery = Array(#"{"payload":{"devices":{"fuzz-lock":{"online":true,"isLocked":true}}}}"#.utf8)

    static let oauth = OAuthSettings(
        clientID: "google", clientSecret: "secret",
        redirectURIs: ["https://oauth-redirect.googleusercontent.com/r/p"], user: "alice", password: "pw")

    /// A `POST /smarthome` body answered by a copy of the prepared bridge: every answer is JSON
    /// that echoes the request id, and an EXECUTE is answered exactly once by the time its
    /// commands time out. The same bytes also go through the account-linking readers.
    func fulfill(_ bytes: [UInt8]) {
        // A JWT a partner presents at the local Home Graph's /token.
        _ = LinkHomeGraph.parseJWT(String(decoding: bytes, as: UTF8.self))
        let fields = FormFields(bytes)
        precondition(fields.pairs.count <= FormFields.maxFields, "form fields are bounded")
        let linking = AccountLinking(oauth: Self.oauth, staticTokens: StaticTokens(), store: nil)
        _ = linking.authorizeRequest(fields)
        _ = linking.login(fields, client: "198.51.100.7", now: start)
        _ = try? StaticTokens(text: String(decoding: bytes, as: UTF8.self), path: "fuzz", defaultAgentUserID: "u")

        guard let request = try? SmartHomeRequest.parse(bytes, source: "fuzz") else { return }
        var state = prepared
        var answers: [[UInt8]] = []
        switch request.intent {
        case .sync: answers.append(state.smartHomeSync(requestID: request.requestID, agentUserID: "u"))
        case .query: answers.append(state.smartHomeQuery(bytes, requestID: request.requestID, source: "fuzz"))
        case .disconnect: return
        case .execute:
            var effects = state.smartHomeExecute(
                bytes, requestID: request.requestID, source: "fuzz", waiter: 7, stream: Self.stream, now: start)
            Self.check(effects)
            let later = state.tick(now: start.addingTimeInterval(3_600))
            Self.check(later)
            effects.answers += later.answers
            effects.answers += state.abandonWaiters(now: start.addingTimeInterval(3_600)).answers
            precondition(
                effects.answers.count == 1, "an EXECUTE is answered exactly once, got \(effects.answers.count)")
            answers = effects.answers.map(\.payload)
        }
        cameraStreamOffer(bytes)
        for answer in answers {
            guard let root = try? JSONDocument.parse(answer).root else {
                preconditionFailure(
                    "a fulfillment answer is not JSON: " + String(decoding: answer.prefix(300), as: UTF8.self))
            }
            precondition(root["requestId"]?.string == request.requestID, "the answer echoes the request id")
        }
    }

    static let stream = CameraStreamContext(
        signalingURL: "http://127.0.0.1:9/camera-stream", iceServers: "[]", nonce: "fuzz")

    /// The bytes as a viewer's offer at the camera-stream signalling URL, with a token a
    /// GetCameraStream gave: answered exactly once (refused, or sent to the camera and timed out).
    func cameraStreamOffer(_ bytes: [UInt8]) {
        var state = prepared
        let ask =
            #"{"requestId":"g","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"#
            + #""devices":[{"id":"frigate-front_door"}],"execution":[{"command":"#
            + #""action.devices.commands.GetCameraStream","params":{"StreamToChromecast":false,"#
            + #""SupportedStreamProtocols":["webrtc"]}}]}]}}]}"#
        let granted = state.smartHomeExecute(
            Array(ask.utf8), requestID: "g", source: "fuzz", waiter: 1, stream: Self.stream, now: start)
        let token =
            granted.answers.first.flatMap { try? JSONDocument.parse($0.payload).root }?["payload"]?["commands"]?
            .elements.first?["states"]?["cameraStreamAuthToken"]?.string ?? "fuzz.1"
        var effects = state.cameraStreamOffer(
            String(decoding: bytes, as: UTF8.self), token: token, waiter: 2, now: start)
        Self.check(effects)
        effects.answers += state.tick(now: start.addingTimeInterval(3_600)).answers
        precondition(effects.answers.count == 1, "an offer is answered exactly once, got \(effects.answers.count)")
        Self.check(state.cameraStreamEnd(token: token, now: start).effects)
    }
}
