public import TraitBridgeJSON
public import TraitBridgeModel

/// Google's `CameraStream` over WebRTC, both ways: what a GetCameraStream answer carries for one
/// of our cameras (where to signal, with which token, through which ICE servers), and what a
/// partner's answer gave us for one of its cameras. Signalling only: media never passes the bridge.
public struct CameraStreamGrant: Sendable, Hashable {
    /// Where the viewer posts `{"action": "offer", "sdp": …}` (and `{"action": "end"}`).
    public var signalingURL: String
    /// The bearer token the signalling requests carry (`cameraStreamAuthToken`).
    public var token: String
    /// `cameraStreamIceServers`: a JSON array of RTCIceServer, as text; empty means none given.
    public var iceServers: String
    /// The camera's own offer when it makes one (`cameraStreamOffer`); TraitBridge's never do.
    public var offer: String?

    public init(signalingURL: String, token: String, iceServers: String, offer: String? = nil) {
        self.signalingURL = signalingURL
        self.token = token
        self.iceServers = iceServers
        self.offer = offer
    }
}

extension GoogleC2C {
    /// The command name and the trait a camera's live view is exported as.
    public static let getCameraStream = commandPrefix + "GetCameraStream"
    public static let cameraStreamTrait = TraitID.google("WebRtcLiveView")

    /// The states of a SUCCESS answer to GetCameraStream (`cameraStreamProtocol` webrtc).
    public static func cameraStreamStates(_ grant: CameraStreamGrant) -> JSONObject {
        var states = JSONObject()
        states.append("online", .bool(true))
        states.append("cameraStreamProtocol", .string("webrtc"))
        states.append("cameraStreamSignalingUrl", .string(grant.signalingURL))
        states.append("cameraStreamAuthToken", .string(grant.token))
        if !grant.iceServers.isEmpty { states.append("cameraStreamIceServers", .string(grant.iceServers)) }
        if let offer = grant.offer { states.append("cameraStreamOffer", .string(offer)) }
        return states
    }

    /// A partner's GetCameraStream answer read for its first SUCCESS group: the grant, or why
    /// there is none (another protocol, no signalling URL, not an http(s) URL).
    public static func cameraStreamGrant(fromExecuteAnswer body: [UInt8], link: String) -> Result<
        CameraStreamGrant, CameraStreamProblem
    > {
        let problem = { (text: String) in
            Result<CameraStreamGrant, CameraStreamProblem>.failure(CameraStreamProblem(message: text))
        }
        guard let root = try? JSONDocument.parse(body).root, let groups = root["payload"]?["commands"],
            groups.kind == .array
        else { return problem("cloud link \(link): the GetCameraStream answer has no payload.commands") }
        guard let states = groups.elements.prefix(100).first(where: { $0["status"]?.string == "SUCCESS" })?["states"]
        else { return problem("cloud link \(link): the GetCameraStream answer has no SUCCESS with states") }
        let streamProtocol = states["cameraStreamProtocol"]?.string ?? ""
        guard streamProtocol == "webrtc" else {
            return problem(
                "cloud link \(link): the partner streams '\(streamProtocol.prefix(40))', not webrtc; "
                    + "TraitBridge relays WebRTC live views only")
        }
        guard let url = states["cameraStreamSignalingUrl"]?.string, url.utf8.count <= 2048,
            url.hasPrefix("https://") || url.hasPrefix("http://"), !url.contains(where: \.isWhitespace)
        else {
            return problem("cloud link \(link): the GetCameraStream answer has no http(s) cameraStreamSignalingUrl")
        }
        let token = states["cameraStreamAuthToken"]?.string ?? ""
        guard token.utf8.count <= 4096, !token.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            return problem("cloud link \(link): the GetCameraStream answer's cameraStreamAuthToken is not a token")
        }
        let offer = states["cameraStreamOffer"]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return .success(
            CameraStreamGrant(
                signalingURL: url, token: token, iceServers: states["cameraStreamIceServers"]?.string ?? "",
                offer: offer))
    }
}

/// Why a partner's GetCameraStream answer gives no WebRTC live view.
public struct CameraStreamProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
