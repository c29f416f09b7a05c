public import FoundationEssentials

/// Why a trait has its connectivity state: the answer to "why is this offline?".
///
/// The chain is broker connection → source bridge → device availability → trait. Each case names
/// the link that decided, with the topic or source it came from, so `show` can print it and a
/// script can match on ``code``.
public enum ConnectivityReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Nothing has been heard about this trait yet.
    case neverHeard
    /// The bridge lost (or never had) its broker connection.
    case brokerDisconnected(broker: String)
    /// The source bridge (its LWT or state topic) said it is offline, e.g. `zigbee2mqtt/bridge/state`.
    case sourceBridgeOffline(topic: String)
    /// An availability topic of the device said online or offline.
    case availability(topic: String, isOnline: Bool)
    /// The device's source said so where there is no topic (a Matter node's `available`, a bridged
    /// endpoint's `Reachable`); `origin` names it. Its code is `availability`, like a topic's.
    case reported(origin: String, isOnline: Bool)
    /// A message carrying the trait's data arrived.
    case messageReceived(topic: String)
    /// No message within the staleness budget.
    case stale(lastSeen: Date, budgetSeconds: Int)
    /// A Cloud-to-cloud QUERY (or state report) said so; `errorCode` is Google's, when given.
    case cloudReported(isOnline: Bool, status: String, errorCode: String?)
    /// A Cloud-to-cloud SYNC imported the trait; nothing is known of its state yet.
    case cloudImported
    /// A cloud link's requests fail (connection refused, TLS, timeout, 5xx, token rejected).
    case linkFailed(link: String, error: String, since: Date)
    /// Set by hand or by a test.
    case manual(String)

    /// A stable word for scripts and the MQTT contract.
    public var code: String {
        switch self {
        case .neverHeard: "neverHeard"
        case .brokerDisconnected: "brokerDisconnected"
        case .sourceBridgeOffline: "sourceBridgeOffline"
        case .availability, .reported: "availability"
        case .messageReceived: "messageReceived"
        case .stale: "stale"
        case .cloudReported: "cloudReported"
        case .cloudImported: "cloudImported"
        case .linkFailed: "linkFailed"
        case .manual: "manual"
        }
    }

    /// A sentence for people.
    public var description: String {
        switch self {
        case .neverHeard: "nothing heard yet"
        case .brokerDisconnected(let broker): "broker \(broker) disconnected"
        case .sourceBridgeOffline(let topic): "\(topic) said offline"
        case .reported(let origin, let isOnline): "\(origin) said \(isOnline ? "online" : "offline")"
        case .availability(let topic, let isOnline):
            "availability topic \(topic) said \(isOnline ? "online" : "offline")"
        case .messageReceived(let topic): "message on \(topic)"
        case .stale(let lastSeen, let budget):
            "no message since \(lastSeen.formatted(.iso8601)), budget \(Self.formatDuration(budget))"
        case .cloudReported(let isOnline, let status, let errorCode):
            "QUERY said online:\(isOnline) status \(status)" + (errorCode.map { " errorCode \($0)" } ?? "")
        case .cloudImported: "imported by SYNC; no QUERY yet"
        case .linkFailed(let link, let error, let since): "link \(link): \(error) since \(since.formatted(.iso8601))"
        case .manual(let text): text
        }
    }

    static func formatDuration(_ seconds: Int) -> String {
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        return "\(seconds) s"
    }
}
