public import FoundationEssentials

/// The connectivity state a single trait can be in: a leaf is never `partiallyOnline`.
public enum TraitConnectivityState: String, Sendable, Hashable, CaseIterable, Codable {
    case online, offline, unknown

    public var connectivityState: ConnectivityState {
        switch self {
        case .online: .online
        case .offline: .offline
        case .unknown: .unknown
        }
    }
}

/// The locality a single trait can have: a leaf is never `mixed`.
public enum TraitLocality: String, Sendable, Hashable, CaseIterable, Codable {
    case direct, localPeer, remote, unspecified

    public var dataSourceLocality: DataSourceLocality {
        switch self {
        case .direct: .direct
        case .localPeer: .localPeer
        case .remote: .remote
        case .unspecified: .unspecified
        }
    }
}

/// A trait's connectivity and locality, with **why** it is so and since when.
///
/// This is what lets `traitbridge show` answer "why is this offline?": every change of state comes
/// with a ``ConnectivityReason``. The leaf types make the impossible leaf states (`partiallyOnline`,
/// `mixed`) unrepresentable.
public struct TraitConnectivity: Sendable, Hashable, Codable {
    public var state: TraitConnectivityState
    public var locality: TraitLocality
    /// Why the trait has this state (`nil` only before anything was ever heard).
    public var reason: ConnectivityReason?
    /// When the state last changed.
    public var since: Date?

    public init(
        state: TraitConnectivityState,
        locality: TraitLocality,
        reason: ConnectivityReason? = nil,
        since: Date? = nil
    ) {
        self.state = state
        self.locality = locality
        self.reason = reason
        self.since = since
    }

    /// Nothing heard yet: unknown, unspecified.
    public static let initial = TraitConnectivity(state: .unknown, locality: .unspecified, reason: .neverHeard)

    /// The value used in aggregation and in the MQTT state payload.
    public var sourceConnectivity: SourceConnectivity {
        SourceConnectivity(connectivityState: state.connectivityState, dataSourceLocality: locality.dataSourceLocality)
    }

    /// Moves to a new state; `since` changes only when the state or locality really changes, so a
    /// repeated "online" keeps the time the trait first came online.
    public mutating func update(
        state newState: TraitConnectivityState,
        locality newLocality: TraitLocality,
        reason newReason: ConnectivityReason,
        at time: Date
    ) {
        if newState != state || newLocality != locality || since == nil {
            since = time
        }
        state = newState
        locality = newLocality
        reason = newReason
    }
}
