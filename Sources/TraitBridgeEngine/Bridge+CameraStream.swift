import FoundationEssentials
import Synchronization
import TraitBridgeJSON

/// What the camera-stream signalling endpoint answers a viewer (Google, or another bridge).
public enum CameraStreamReply: Sendable, Equatable {
    /// The camera's SDP answer and the live view session it opened.
    case answer(sdp: String, mediaSessionID: String)
    /// `{"action": "end"}` ended this many sessions.
    case ended(Int)
    /// Refused: the HTTP status it deserves (401 token, 409 not now, 502/504 camera) and why.
    case refused(status: Int, message: String)
}

/// The camera-stream signalling endpoint's way in: a viewer's offer, with the stream token a
/// GetCameraStream answer gave, runs the camera's live view through the command path.
extension Bridge {
    /// Answers a viewer's offer once the camera answered (bounded by the offer's own timeout).
    public func cameraStream(offer sdp: String, token: String) async -> CameraStreamReply {
        let now = Date()
        let stopped: JSONValue = ["status": "error", "code": "deviceOffline", "message": "the bridge is not running"]
        let bytes = await answered(ifStopped: stopped.serializedBytes()) { state, id in
            state.cameraStreamOffer(sdp, token: token, waiter: id, now: now)
        }
        guard let root = try? JSONDocument.parse(bytes).root else {
            return .refused(status: 502, message: "the bridge gave no readable answer")
        }
        if root["status"]?.string == "confirmed", let answer = root["response"]?["answerSdp"]?.string,
            let session = root["response"]?["mediaSessionId"]?.string
        {
            return .answer(sdp: answer, mediaSessionID: session)
        }
        let message = root["message"]?.string ?? "the live view did not start"
        let status =
            switch root["code"]?.string {
            case "deviceNotFound": 401
            case "failedPrecondition", "resourceExhausted": 409
            case "invalidValue", "protocolError": 400
            case "deviceOffline": 504
            default: 502
            }
        return .refused(status: status, message: message)
    }

    /// Ends the sessions a stream token opened (and the token).
    public func cameraStreamEnd(token: String) -> CameraStreamReply {
        state.withLock { state in
            let (ended, effects) = state.cameraStreamEnd(token: token, now: Date())
            perform(effects)
            guard let ended else {
                return .refused(status: 401, message: "the stream token is unknown or expired")
            }
            return .ended(ended)
        }
    }
}
