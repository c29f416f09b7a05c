public import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeModel

/// A camera's live view (Google's `WebRtcLiveView`: start, extend, stop, talkback): the offer goes
/// to the camera's signalling endpoint as an effect, its answer comes back as an event and ends the
/// command with `answerSdp`, `mediaSessionId` and `liveSessionDurationSeconds`; sessions expire on
/// their own. The bridge relays signalling only, never media.
extension BridgeState {
    static let liveViewTrait = TraitID.google("WebRtcLiveView")
    /// A partner cloud's camera (imported from its SYNC): its live view is Google's CameraStream.
    static let partnerStreamTrait = TraitID.google("CameraStream")
    static let liveViewSeconds = 300
    static let liveViewLimit = 100
    static let offerAnswerSeconds = 10

    /// Whether `command` is a live view command (then this path answers it).
    static func isLiveView(_ command: UnifiedCommand) -> Bool {
        command.actions.contains {
            if case .invoke(let trait, _, let name, _) = $0 {
                trait == liveViewTrait || (trait == partnerStreamTrait && name != "GetCameraStream")
            } else {
                false
            }
        }
    }

    mutating func runLiveView(
        _ command: UnifiedCommand, deviceID: DeviceID, sink: CommandSink, grant: String? = nil, now: Date,
        effects: inout BridgeEffects
    ) {
        let refuse = { (failure: CommandFailure, state: inout BridgeState, effects: inout BridgeEffects) in
            state.finish(
                sink, deviceID: deviceID, correlationID: command.correlationID, failure: failure, now: now,
                effects: &effects)
        }
        guard command.actions.count == 1, case .invoke(_, let key, let name, let arguments) = command.actions[0] else {
            return refuse(
                CommandFailure(.protocolError, "a live view command goes alone, one per message"), &self, &effects)
        }
        do throws(CommandFailure) {
            guard let device = graph.devices[deviceID] else {
                throw CommandFailure(.deviceNotFound, "no device with id '\(deviceID)'")
            }
            let address = try liveViewAddress(on: device, deviceTypeKey: key)
            // An offline camera starts nothing; a session already open can still be extended or ended.
            if name == "startLiveView" { try refuseIfOffline(device, address) }
            func sessionID() throws(CommandFailure) -> String {
                guard case .string(let id)? = arguments["mediaSessionId"], !id.isEmpty else {
                    throw CommandFailure(.protocolError, "\(name) needs argument 'mediaSessionId'")
                }
                guard commands.liveViews.session(id, of: deviceID, at: now) != nil else {
                    throw CommandFailure(
                        .invalidValue,
                        "no live view session '\(id.prefix(80))' on \(device.name): it ended, expired or never was; "
                            + "start a new one with startLiveView")
                }
                return id
            }
            var response = JSONObject()
            switch name {
            case "startLiveView":
                try startLiveView(
                    device, at: address, arguments: arguments, command: command, sink: sink, grant: grant, now: now,
                    effects: &effects)
                return
            case "extendLiveView":
                let id = try sessionID()
                var seconds = Self.liveViewSeconds
                if case .int(let asked)? = arguments["extendedDurationSeconds"] {
                    seconds = Int(clamping: min(max(asked, 1), Int64(Self.liveViewSeconds)))
                }
                commands.liveViews.extend(id, until: now.adding(.seconds(seconds)))
                response["mediaSessionId"] = .string(id)
                response["liveSessionDurationSeconds"] = .int(Int64(seconds))
            case "stopLiveView":
                let id = try sessionID()
                if let session = commands.liveViews.close(id) { endCameraSide(id, session, effects: &effects) }
                response["mediaSessionId"] = .string(id)
                effects.log(.info, "live view \(id) of \(device.name) stopped", ["tb.device.id": deviceID.rawValue])
            case "startTalkback", "stopTalkback":
                let id = try sessionID()
                commands.liveViews.setTalkback(id, name == "startTalkback")
                response["mediaSessionId"] = .string(id)
                response["talkback"] = .bool(name == "startTalkback")
            default:
                throw CommandFailure(.notSupported, "\(Self.liveViewTrait) has no command '\(name)'")
            }
            var answered = PendingCommand(
                deviceID: deviceID, correlationID: command.correlationID, expected: [:], deadline: now, sink: sink,
                sent: now)
            answered.response = response
            finish(answered, status: "confirmed", device: device, now: now, effects: &effects)
        } catch {
            refuse(error, &self, &effects)
        }
    }

    /// The offer checked (SDP, at most 64 KB), the camera checked (a signalling endpoint, recording
    /// on, a session free), then sent: the command waits for the camera's answer.
    private mutating func startLiveView(
        _ device: Device, at address: TraitAddress, arguments: [String: AttributeValue], command: UnifiedCommand,
        sink: CommandSink, grant: String?, now: Date, effects: inout BridgeEffects
    ) throws(CommandFailure) {
        guard case .string(let offer)? = arguments["offerSdp"] else {
            throw CommandFailure(.protocolError, "startLiveView needs argument 'offerSdp' (the viewer's SDP offer)")
        }
        if let problem = SessionDescription.problem(offer, what: "offerSdp") {
            throw CommandFailure(.invalidValue, problem)
        }
        guard commands.liveViews.count < Self.liveViewLimit else {
            throw CommandFailure(
                .resourceExhausted,
                "\(Self.liveViewLimit) live views are open or starting (the bridge's bound): stop one first")
        }
        var pending = PendingCommand(
            deviceID: device.id, correlationID: command.correlationID, expected: [:],
            deadline: now.adding(.seconds(Self.offerAnswerSeconds)), sink: sink, sent: now)
        if address.traitID == Self.partnerStreamTrait {
            // A partner's camera: ask its cloud for the stream first (GetCameraStream over the link).
            pending.openOffer = try askPartnerForStream(
                device, at: address, offer: offer, grant: grant, effects: &effects)
            commands.track(pending)
            return
        }
        guard let endpoint = commands.liveViews.endpoint(of: device.id) else {
            throw CommandFailure(
                .notSupported,
                "\(device.name) has no live view endpoint: its source names none (for Frigate, give the frigate "
                    + "section's go2rtc URL)")
        }
        if !Self.records(device) {
            throw CommandFailure(
                .failedPrecondition,
                "\(device.name) does not record (its push transport is inactive): live view is refused until "
                    + "recording is on (setTransportStatus transportStatus=0)")
        }
        let requestID = commands.liveViews.sendOffer(for: device.id, grant: grant)
        effects.signalling.append(SignallingRequest(requestID: requestID, url: endpoint, kind: .offer(sdp: offer)))
        pending.openOffer = requestID
        commands.track(pending)
    }

    /// A camera answered an offer (or could not): the command that sent it ends, with the session
    /// it opened.
    public mutating func signallingAnswered(_ answer: SignallingAnswer, requestID: String, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        guard let offer = commands.liveViews.offerSettled(requestID),
            var pending = commands.settle(where: { $0.openOffer == requestID }).first
        else {
            effects.log(.debug, "a camera's answer to offer \(requestID), which no command waits for any more")
            return effects
        }
        let deviceID = offer.device
        let name = graph.devices[deviceID]?.name ?? deviceID.rawValue
        let failure: CommandFailure
        switch answer {
        case .answer(let sdp, let resource):
            if let problem = SessionDescription.problem(sdp, what: "the camera's answer") {
                failure = CommandFailure(.protocolError, "\(name): \(problem)")
            } else {
                let ending = offer.partner.map { CameraSessions.Ending.partner($0) } ?? resource.map { .resource($0) }
                let id = commands.liveViews.open(
                    on: deviceID, until: now.adding(.seconds(Self.liveViewSeconds)), ending: ending, grant: offer.grant)
                pending.response = [
                    "answerSdp": .string(sdp), "mediaSessionId": .string(id),
                    "liveSessionDurationSeconds": .int(Int64(Self.liveViewSeconds)),
                ]
                effects.log(.info, "live view \(id) of \(name) started", ["tb.device.id": deviceID.rawValue])
                finish(pending, status: "confirmed", device: graph.devices[deviceID], now: now, effects: &effects)
                return effects
            }
        case .failed(let reason):
            failure = CommandFailure(.deviceOffline, "\(name)'s live view endpoint did not answer the offer: \(reason)")
        }
        finish(
            pending.sink, deviceID: deviceID, correlationID: pending.correlationID, failure: failure, now: now,
            effects: &effects)
        return effects
    }

    /// Sessions whose time is up end (a tick).
    mutating func expireLiveViews(now: Date, effects: inout BridgeEffects) {
        for (id, session) in commands.liveViews.expire(at: now) {
            effects.log(.info, "live view \(id) expired", ["tb.device.id": session.device.rawValue])
            endCameraSide(id, session, effects: &effects)
        }
    }

    /// Ends the camera's side of a closed session where it said it can be ended.
    func endCameraSide(_ id: String, _ session: CameraSessions.Session, effects: inout BridgeEffects) {
        switch session.ending {
        case .resource(let url):
            effects.signalling.append(SignallingRequest(requestID: id, url: url, kind: .end))
        case .partner(let partner):
            effects.signalling.append(
                SignallingRequest(
                    requestID: id, url: partner.signalingURL,
                    kind: .partnerEnd(token: partner.token, c2cID: partner.c2cID)))
        case nil: break
        }
    }

    /// The trait a live view command addresses: the camera's WebRtcLiveView, or for a partner's
    /// camera (imported, fed by a cloud link) its CameraStream.
    func liveViewAddress(on device: Device, deviceTypeKey key: String?) throws(CommandFailure) -> TraitAddress {
        if (try? device.resolve(Self.liveViewTrait, deviceTypeKey: key)) == nil,
            let address = try? device.resolve(Self.partnerStreamTrait, deviceTypeKey: key),
            CloudImport.feeds(device.trait(at: address)?.source)
        {
            return address
        }
        return try CommandRouting.address(on: device, Self.liveViewTrait, deviceTypeKey: key)
    }
}

/// The checks an SDP text passes before the bridge relays it (an offer from a viewer, an answer
/// from a camera): bounded, text, SDP's first line, at least one media section.
enum SessionDescription {
    static let maxBytes = 65_536

    /// Why `text` is not passed on, or `nil`.
    static func problem(_ text: String, what: String) -> String? {
        let size = text.utf8.count
        if size > maxBytes { return "\(what) is \(size) bytes; an SDP is at most \(maxBytes)" }
        if !text.hasPrefix("v=0") { return "\(what) is not SDP: it must begin with the line v=0 (RFC 8866)" }
        let control = text.unicodeScalars.contains { scalar in
            (scalar.value < 0x20 && scalar != "\r" && scalar != "\n" && scalar != "\t") || scalar.value == 0x7F
        }
        if control { return "\(what) holds control characters; SDP is text lines" }
        // By bytes: "\r\n" is one Character, so a search for "\nm=" among Characters finds none.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"))
        if !lines.contains(where: { $0.starts(with: "m=".utf8) }) {
            return "\(what) has no media section (an m= line)"
        }
        return nil
    }
}
