import FoundationEssentials
import TraitBridgeModel

/// Cameras' live views: where each camera takes an SDP offer (its source says: Frigate's go2rtc),
/// the offers sent and not answered yet, and the sessions open, each until it expires.
///
/// The one owner of that state: sessions are opened, extended, ended and expired only here, with
/// times the events bring. The bridge relays signalling only, never media: a session is the
/// bridge's own bookkeeping of an answer given (for how long it holds, whether talkback is on), so
/// an expired or unknown id is refused at once, never waited on.
struct CameraSessions: Sendable {
    struct Session: Sendable, Hashable {
        var device: DeviceID
        var expires: Date
        var talkback = false
        /// Where the camera's side of the session can be ended (a WHEP resource), when it said.
        var resource: String?
    }

    private var endpoints: [DeviceID: String] = [:]
    private var sessions: [String: Session] = [:]
    /// Offers sent, by request id: the device each is for.
    private var offers: [String: DeviceID] = [:]
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
    mutating func sendOffer(for device: DeviceID) -> String {
        counter += 1
        let id = "offer-\(epoch)-\(counter)"
        offers[id] = device
        return id
    }

    /// The camera answered (or failed to): the offer is no longer waiting.
    mutating func offerSettled(_ requestID: String) -> DeviceID? { offers.removeValue(forKey: requestID) }

    /// A session opens on `device` until `expires`: its media session id.
    mutating func open(on device: DeviceID, until expires: Date, resource: String?) -> String {
        counter += 1
        let id = "live-\(epoch)-\(counter)"
        sessions[id] = Session(device: device, expires: expires, resource: resource)
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

    mutating func extend(_ id: String, until expires: Date) { sessions[id]?.expires = expires }
    mutating func setTalkback(_ id: String, _ isOn: Bool) { sessions[id]?.talkback = isOn }
    mutating func close(_ id: String) -> Session? { sessions.removeValue(forKey: id) }

    /// Takes out the sessions that expired at or before `now`, in id order.
    mutating func expire(at now: Date) -> [(id: String, session: Session)] {
        let gone = sessions.filter { $0.value.expires <= now }.sorted { $0.key < $1.key }
        for (id, _) in gone { sessions[id] = nil }
        return gone.map { ($0.key, $0.value) }
    }
}
