public import FoundationEssentials
public import TraitBridgeModel

/// The state of one link of the chain broker → source bridge → device.
public struct LinkState: Sendable, Hashable {
    public enum Status: Sendable, Hashable { case up, down, unknown }
    public var status: Status
    public var since: Date?
    /// Where the news came from (a topic, a broker URL).
    public var origin: String
    /// `origin` is an MQTT topic (else a source's own words for where it came from).
    public var originIsTopic: Bool

    public init(status: Status = .unknown, since: Date? = nil, origin: String = "", originIsTopic: Bool = true) {
        self.status = status
        self.since = since
        self.origin = origin
        self.originIsTopic = originIsTopic
    }

    /// The reason a device's own word gives.
    func reason(isOnline: Bool) -> ConnectivityReason {
        originIsTopic ? .availability(topic: origin, isOnline: isOnline) : .reported(origin: origin, isOnline: isOnline)
    }
}

/// What is known of one device's own availability, independent of its parents: kept while a parent
/// is down, so a parent coming back restores each device's own state (LESSONS, Availability).
public struct DeviceLiveness: Sendable, Hashable {
    /// The device's availability topic: up/down, or unknown when it never said.
    public var availability: LinkState = LinkState()
    /// The last message that carried its data.
    public var lastSeen: Date?
    public var lastTopic: String?
    /// Silence longer than this makes it unknown (only when it has no availability topic).
    public var stalenessBudget: Duration

    public init(stalenessBudget: Duration) {
        self.stalenessBudget = stalenessBudget
    }
}

/// Derives a trait's connectivity from the chain, as a pure function of the links' states.
///
/// | broker | source bridge | device | trait |
/// |---|---|---|---|
/// | down or never up | – | – | unknown / unspecified, "broker … disconnected" |
/// | up | said offline | – | offline, "<bridge topic> said offline" |
/// | up | online or unknown | availability said online/offline | that, with the topic |
/// | up | online or unknown | no availability, data within budget | online, "message on …" |
/// | up | online or unknown | no availability, silent past budget | unknown, "no message since …" |
/// | up | online or unknown | nothing heard | unknown / unspecified, "nothing heard yet" |
public enum ConnectivityChain {
    public static func resolve(
        broker: LinkState,
        brokerURL: String,
        sourceBridge: LinkState,
        device: DeviceLiveness,
        locality: TraitLocality,
        now: Date
    ) -> TraitConnectivity {
        guard broker.status == .up else {
            return TraitConnectivity(
                state: .unknown, locality: .unspecified, reason: .brokerDisconnected(broker: brokerURL),
                since: broker.since)
        }
        if sourceBridge.status == .down {
            return TraitConnectivity(
                state: .offline, locality: locality, reason: .sourceBridgeOffline(topic: sourceBridge.origin),
                since: sourceBridge.since)
        }
        switch device.availability.status {
        case .up:
            return TraitConnectivity(
                state: .online, locality: locality, reason: device.availability.reason(isOnline: true),
                since: device.availability.since)
        case .down:
            return TraitConnectivity(
                state: .offline, locality: locality, reason: device.availability.reason(isOnline: false),
                since: device.availability.since)
        case .unknown:
            guard let lastSeen = device.lastSeen else {
                return TraitConnectivity(state: .unknown, locality: .unspecified, reason: .neverHeard, since: nil)
            }
            let budgetSeconds = Int(device.stalenessBudget.components.seconds)
            if now.timeIntervalSince(lastSeen) > Double(budgetSeconds) {
                return TraitConnectivity(
                    state: .unknown, locality: locality,
                    reason: .stale(lastSeen: lastSeen, budgetSeconds: budgetSeconds),
                    since: lastSeen.addingTimeInterval(Double(budgetSeconds)))
            }
            return TraitConnectivity(
                state: .online, locality: locality, reason: .messageReceived(topic: device.lastTopic ?? ""),
                since: lastSeen)
        }
    }
}
