public import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

/// What the HTTP edge gives an EXECUTE so the bridge can answer GetCameraStream: where viewers
/// signal, the ICE servers to hand out (a JSON array as text; empty: none), and a random nonce
/// the stream tokens are made from (the engine draws no randomness of its own).
public struct CameraStreamContext: Sendable, Hashable {
    public var signalingURL: String
    public var iceServers: String
    public var nonce: String

    public init(signalingURL: String, iceServers: String, nonce: String) {
        self.signalingURL = signalingURL
        self.iceServers = iceServers
        self.nonce = nonce
    }
}

/// Google's CameraStream over WebRTC, both ways. Out: a GetCameraStream for one of our cameras is
/// answered with a signalling URL and a stream token (a grant, 5 minutes), and the offer posted
/// there runs the camera's `startLiveView` like any viewer's. In: a live view of a partner's camera
/// asks its cloud for the stream (GetCameraStream over the link), then posts the offer to the
/// signalling URL it answered. Signalling only: media goes between the viewer and the camera.
extension BridgeState {
    static let streamGrantSeconds = 300

    /// The outcome of a GetCameraStream execution on one exported device.
    mutating func grantCameraStream(
        _ executions: [ExecuteRequest.Execution], on device: Device, c2cID: String, context: CameraStreamContext?,
        at now: Date
    ) -> ExecuteOutcome {
        func refused(_ code: String, _ message: String) -> ExecuteOutcome {
            ExecuteOutcome(c2cID: c2cID, status: .error, errorCode: code, debugString: message)
        }
        guard executions.count == 1, let execution = executions.first else {
            return refused("protocolError", "GetCameraStream goes alone in its group")
        }
        guard let address = try? liveViewAddress(on: device, deviceTypeKey: nil) else {
            return refused("functionNotSupported", "\(device.name) has no live view")
        }
        guard let context else {
            return refused(
                "functionNotSupported", "GetCameraStream is answered on the HTTP fulfillment endpoint only (it signals)"
            )
        }
        if execution.params["StreamToChromecast"] == .bool(true) {
            return refused(
                "functionNotSupported", "\(device.name) streams WebRTC only, which a Chromecast does not play")
        }
        if case .list(let protocols)? = execution.params["SupportedStreamProtocols"],
            !protocols.contains(.string("webrtc"))
        {
            return refused("functionNotSupported", "\(device.name) streams WebRTC only; the target does not take it")
        }
        if let trait = device.trait(at: address), trait.connectivity.state == .offline {
            return ExecuteOutcome(
                c2cID: c2cID, status: .offline, errorCode: "deviceOffline",
                debugString: trait.connectivity.reason?.description)
        }
        if !Self.records(device) {
            return refused(
                "streamUnavailable", "\(device.name) does not record: live view is off until recording is on")
        }
        let token = commands.liveViews.grant(
            nonce: context.nonce, for: device.id, until: now.adding(.seconds(Self.streamGrantSeconds)))
        let grant = CameraStreamGrant(signalingURL: context.signalingURL, token: token, iceServers: context.iceServers)
        return ExecuteOutcome(c2cID: c2cID, status: .success, states: GoogleC2C.cameraStreamStates(grant))
    }

    /// Whether the camera records: no push transport, or one whose connection is active.
    static func records(_ device: Device) -> Bool {
        let transport = device.deviceTypes.lazy.compactMap { $0.trait(.google("PushAvStreamTransport")) }.first
        guard case .list(let items)? = transport?.attributes["currentConnections"] else { return true }
        return items.contains {
            if case .structure(let item) = $0 { item["transportStatus"] == .int(0) } else { false }
        }
    }

    /// A viewer's offer posted with a stream token: the camera's `startLiveView`, answered to the
    /// waiter like an API command; an unknown or expired token is answered at once.
    public mutating func cameraStreamOffer(_ sdp: String, token: String, waiter: Int, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        guard let grant = commands.liveViews.grant(token, at: now) else {
            let refusal: JSONValue = [
                "status": "error", "code": "deviceNotFound",
                "message": "the stream token is unknown or expired: ask for the stream again (GetCameraStream)",
            ]
            effects.answer(.waiter(waiter), refusal.serializedBytes())
            return effects
        }
        let command = UnifiedCommand(
            correlationID: "camera-stream-\(waiter)",
            actions: [
                .invoke(
                    trait: Self.liveViewTrait, deviceTypeKey: nil, command: "startLiveView",
                    arguments: ["offerSdp": .string(sdp)])
            ])
        runLiveView(command, deviceID: grant.device, sink: .waiter(waiter), grant: token, now: now, effects: &effects)
        return effects
    }

    /// `{"action": "end"}` with a stream token: the sessions it opened end, the token with them.
    /// How many ended; `nil` for an unknown or expired token.
    public mutating func cameraStreamEnd(token: String, now: Date) -> (ended: Int?, effects: BridgeEffects) {
        var effects = BridgeEffects()
        guard commands.liveViews.grant(token, at: now) != nil else { return (nil, effects) }
        let closed = commands.liveViews.close(grant: token)
        for (id, session) in closed {
            effects.log(.info, "live view \(id) ended by its viewer", ["tb.device.id": session.device.rawValue])
            endCameraSide(id, session, effects: &effects)
        }
        commands.liveViews.revoke(token)
        return (closed.count, effects)
    }

    /// The `camera-sessions` request (`{"device": id or name}`): the live views open on it, each
    /// with its id, when it expires, talkback, and whether Google's viewer opened it.
    func cameraSessionsAnswer(_ payload: [UInt8], now: Date) -> JSONValue {
        guard let root = try? JSONDocument.parse(payload).root, let name = root["device"]?.string else {
            return ["status": "error", "message": #"expected {"device": "<id or name>"}"#]
        }
        guard let id = deviceID(named: name) else {
            return ["status": "error", "message": .string("no device '\(name.prefix(80))'")]
        }
        let sessions: [JSONValue] = commands.liveViews.sessions(of: id, at: now).map { id, session in
            [
                "mediaSessionId": .string(id), "expires": .string(session.expires.formatted(.iso8601)),
                "talkback": .bool(session.talkback), "viewer": session.grant == nil ? "command" : "cameraStream",
            ]
        }
        return ["status": "ok", "device": .string(id.rawValue), "sessions": .array(sessions)]
    }

    // MARK: A partner's camera

    /// Asks the partner cloud of an imported camera for its stream; the offer waits for the answer.
    mutating func askPartnerForStream(
        _ device: Device, at address: TraitAddress, offer: String, grant: String?, effects: inout BridgeEffects
    ) throws(CommandFailure) -> String {
        let source = device.trait(at: address)?.source
        guard let cloud, let runtime = cloudImport.devices.runtime(for: source), let link = source?.instance,
            cloudImport.links.contains(link)
        else {
            throw CommandFailure(
                .notSupported,
                "\(device.name)'s live view is its partner cloud's CameraStream, reached through a cloud link only "
                    + "(this one comes by an MQTT relay)")
        }
        let requestID = commands.liveViews.sendOffer(for: device.id, grant: grant)
        let linkRequest = cloudImport.links.nextRequestID()
        let body = cloud.relayRequest(
            origin: runtime.origin, command: "GetCameraStream",
            params: ["StreamToChromecast": .bool(false), "SupportedStreamProtocols": .list([.string("webrtc")])],
            requestID: linkRequest)
        effects.linkRequests.append(LinkRequest(link: link, requestID: linkRequest, body: body.serializedBytes()))
        commands.liveViews.awaitPartner(
            requestID, linkRequest: linkRequest, holding: offer, partnerID: runtime.origin.c2cID)
        return requestID
    }

    /// A link's answer to a GetCameraStream this bridge asked for: the held offer goes to the
    /// partner's signalling URL, or the live view ends with the reason. `false`: not such a request.
    mutating func partnerStreamAnswered(
        _ body: [UInt8]?, failure: String?, link: String, requestID: String, now: Date, effects: inout BridgeEffects
    ) -> Bool {
        guard let (offerID, offer) = commands.liveViews.offer(forLinkRequest: requestID) else { return false }
        let result: Result<CameraStreamGrant, CameraStreamProblem> =
            if let body {
                switch Self.executeOutcome(body, link: link) {
                case .failure(let failure): .failure(CameraStreamProblem(message: failure.message))
                case .pending, .success: GoogleC2C.cameraStreamGrant(fromExecuteAnswer: body, link: link)
                }
            } else {
                .failure(CameraStreamProblem(message: "cloud link \(link): \(failure ?? "no answer")"))
            }
        switch result {
        case .success(let grant):
            guard let sdp = offer.heldSDP, let c2cID = offer.partnerID else { return true }
            let partner = CameraSessions.PartnerStream(
                signalingURL: grant.signalingURL, token: grant.token, c2cID: c2cID)
            commands.liveViews.partnerGranted(offerID, partner)
            effects.signalling.append(
                SignallingRequest(
                    requestID: offerID, url: grant.signalingURL,
                    kind: .partnerOffer(sdp: sdp, token: grant.token, c2cID: c2cID)))
        case .failure(let problem):
            effects.append(contentsOf: signallingAnswered(.failed(problem.message), requestID: offerID, now: now))
        }
        return true
    }
}
