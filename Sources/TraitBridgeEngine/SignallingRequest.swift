/// Live view signalling the bridge sends to a camera's endpoint (go2rtc's WebRTC API, WHEP's
/// shape): an SDP offer whose answer comes back to the bridge with `requestID`
/// (``Bridge/signallingAnswered(_:requestID:)``), or the end of a session at the resource the
/// camera named. The bridge relays signalling only, never media.
public struct SignallingRequest: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// POST the offer (`application/sdp`) to the endpoint; the answer is the body.
        case offer(sdp: String)
        /// DELETE the session's resource; nothing waits for the answer.
        case end
        /// POST `{"action": "offer", "deviceId", "sdp"}` (JSON, bearer `token`) to a partner
        /// cloud's signalling URL (Google's CameraStream); the answer is `{"action": "answer", "sdp"}`.
        case partnerOffer(sdp: String, token: String, c2cID: String)
        /// POST `{"action": "end", "deviceId"}` there; nothing waits for the answer.
        case partnerEnd(token: String, c2cID: String)
    }

    public var requestID: String
    public var url: String
    public var kind: Kind

    public init(requestID: String, url: String, kind: Kind) {
        self.requestID = requestID
        self.url = url
        self.kind = kind
    }
}

/// What a camera's endpoint answered to an offer.
public enum SignallingAnswer: Sendable, Hashable {
    /// The SDP answer, and the session's resource when the camera named one (`Location`).
    case answer(sdp: String, resource: String?)
    /// No answer: why (refused with its status, unreachable, too large, too slow).
    case failed(String)
}
