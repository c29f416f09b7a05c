import FoundationEssentials
import TraitBridgeModel

/// Cameras' live views: where each camera takes an SDP offer (its source says: Frigate's go2rtc),
/// the offers sent and not answered yet, the sessions open (each until it expires), and the
/// stream grants handed to Google (a GetCameraStream answer's token, good for a few minutes).
///
/// The one owner of that state: sessions are opened, extended, ended and expired only here, with
/// times the events bring. The bridge relays signalling only, never media: a session is the
/// bridge's own bookkeeping of an answer given (for how long it holds, whether talkback is on), so
/// an expired or unknown id is refused at once, never waited on.
struct CameraSessions: Sendable {
    /// How the camera's side of a session is ended.
    enum Ending: Sendable, Hashable {
        /// DELETE the session's resource (WHEP's `Location`, go2rtc).
        case resource(String)
        /// POST `{"action": "end"}` to a partner's signalling URL (Google's CameraStream).
        case partner(PartnerStream)
    }

    /// A partner cloud's camera stream: where to signal, with which token, for which of its ids.
    struct PartnerStream: Sendable, Hashable {
        var signalingURL: String
        var token: String
        var c2cID: String
    }

    struct Session: Sendable, Hashable {
        var device: DeviceID
        var expires: Date
        var talkback = false
        var ending: Ending?
        /// The grant (Google's stream token) the session was opened with, if any.
        var grant: String?
    }

    /// An offer on its way: the camera it is for, the grant it came with, and while a partner's
    /// stream is asked for (GetCameraStream over the link), the link request and the offer itself.
    struct Offer: Sendable, Hashable {
        var device: DeviceID
        var grant: String?
        var linkRequest: String?
        var heldSDP: String?
        /// The partner's id of the camera, while its stream is asked for.
        var partnerID: String?
        var partner: PartnerStream?
    }

    /// A stream token given to Google for one camera.
    struct Grant: Sendable, Hashable {
        var device: DeviceID
        var expires: Date
    }

    static let maxGrants = 256

    private var endpoints: [DeviceID: String] = [:]
    private var sessions: [String: Session] = [:]
    private var offers: [String: Offer] = [:]
    private var grants: [String: Grant] = [:]
    private var counter = 0
    /// Milliseconds since 1970 when the bridge started: session ids of a restarted bridge differ.
    private let epoch: Int64

    init(now: Date) {
        epoch = FiniteNumber.int64(rounding: now.timeIntervalSince1970 * 1000) ?? 0
    }

    /// A camera's signalling endpoint as its source describes it (`nil`: it has none).
    mutating func setEndpoint(_ url: String?, for device: DeviceID) { endpoints[device] = url }
    func endpoint(of device: DeviceID) -> String? { endpoints[device] }

    /// Sessions open and offers waiting: what the session bound counts.
    var count: Int { sessions.count + offers.count }

    /// An offer goes to `device`'s camera: its request id.
    mutating func sendOffer(for device: DeviceID, grant: String? = nil) -> String {
        counter += 1
        let id = "offer-\(epoch)-\(counter)"
        offers[id] = Offer(device: device, grant: grant)
        return id
    }

    /// The offer `id` waits for the partner's stream (link request `linkRequest`), holding `sdp`.
    mutating func awaitPartner(_ id: String, linkRequest: String, holding sdp: String, partnerID: String) {
        offers[id]?.linkRequest = linkRequest
        offers[id]?.heldSDP = sdp
        offers[id]?.partnerID = partnerID
    }

    /// The offer waiting for the partner's answer to `linkRequest`, if one does.
    func offer(forLinkRequest linkRequest: String) -> (id: String, offer: Offer)? {
        offers.first { $0.value.linkRequest == linkRequest }.map { ($0.key, $0.value) }
    }

    /// The partner gave its stream: the offer now goes to its signalling URL.
    mutating func partnerGranted(_ id: String, _ partner: PartnerStream) {
        offers[id]?.linkRequest = nil
        offers[id]?.heldSDP = nil
        offers[id]?.partner = partner
    }

    /// The camera answered (or failed to): the offer is no longer waiting.
    mutating func offerSettled(_ requestID: String) -> Offer? { offers.removeValue(forKey: requestID) }

    /// A session opens on `device` until `expires`: its media session id.
    mutating func open(on device: DeviceID, until expires: Date, ending: Ending?, grant: String?) -> String {
        counter += 1
        let id = "live-\(epoch)-\(counter)"
        sessions[id] = Session(device: device, expires: expires, ending: ending, grant: grant)
        return id
    }

    /// The session `id` of `device`, if it is open at `now` (an expired one is gone).
    mutating func session(_ id: String, of device: DeviceID, at now: Date) -> Session? {
        guard let session = sessions[id], session.device == device else { return nil }
        guard session.expires > now else {
            sessions[id] = nil
            return nil
        }
        return session
    }

    /// The sessions open on `device` at `now`, in id order.
    func sessions(of device: DeviceID, at now: Date) -> [(id: String, session: Session)] {
        sessions.filter { $0.value.device == device && $0.value.expires > now }.sorted { $0.key < $1.key }
            .map { ($0.key, $0.value) }
    }

    mutating func extend(_ id: String, until expires: Date) { sessions[id]?.expires = expires }
    mutating func setTalkback(_ id: String, _ isOn: Bool) { sessions[id]?.talkback = isOn }
    mutating func close(_ id: String) -> Session? { sessions.removeValue(forKey: id) }

    /// Closes every session opened with `grant`, in id order.
    mutating func close(grant: String) -> [(id: String, session: Session)] {
        let closing = sessions.filter { $0.value.grant == grant }.sorted { $0.key < $1.key }
        for (id, _) in closing { sessions[id] = nil }
        return closing.map { ($0.key, $0.value) }
    }

    /// Takes out the sessions that expired at or before `now`, in id order (and forgets expired grants).
    mutating func expire(at now: Date) -> [(id: String, session: Session)] {
        grants = grants.filter { $0.value.expires > now }
        let gone = sessions.filter { $0.value.expires <= now }.sorted { $0.key < $1.key }
        for (id, _) in gone { sessions[id] = nil }
        return gone.map { ($0.key, $0.value) }
    }

    // MARK: Grants

    /// Gives a token (`nonce` and a count) for `device` until `expires`; at the bound, the grant
    /// closest to expiring goes first (its holder asks again: GetCameraStream is cheap).
    mutating func grant(nonce: String, for device: DeviceID, until expires: Date) -> String {
        counter += 1
        let token = "\(nonce).\(counter)"
        if grants.count >= Self.maxGrants,
            let first = grants.min(by: { ($0.value.expires, $0.key) < ($1.value.expires, $1.key) })
        {
            grants[first.key] = nil
        }
        grants[token] = Grant(device: device, expires: expires)
        return token
    }

    /// The grant of `token` if it still holds at `now`.
    func grant(_ token: String, at now: Date) -> Grant? {
        guard let grant = grants[token], grant.expires > now else { return nil }
        return grant
    }

    mutating func revoke(_ token: String) { grants[token] = nil }
}
