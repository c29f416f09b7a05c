/// Whether the data behind a trait, device type or device can be reached right now.
///
/// The words are the Google Home APIs' `ConnectivityState`, and they appear verbatim in the MQTT
/// contract. `partiallyOnline` only ever describes an aggregate (a device type or a device).
public enum ConnectivityState: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case online
    case offline
    case partiallyOnline
    case unknown

    public var description: String { rawValue }
}

/// The route by which the data of a trait reaches TraitBridge.
///
/// The Home APIs' `LocalityType`: `direct` (the device itself is the endpoint), `localPeer` (a hub
/// on the local network, e.g. zigbee2mqtt on a local broker), `remote` (a cloud), `mixed` (only on
/// aggregates whose parts differ), `unspecified` (not known yet).
public enum DataSourceLocality: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case direct
    case localPeer
    case remote
    case mixed
    case unspecified

    public var description: String { rawValue }
}

/// Connectivity and locality of one level of the tree (trait, device type or device).
///
/// For a trait it is stored (see ``TraitConnectivity``); for a device type and a device it is always
/// computed from the level below with ``aggregate(_:)``, never stored, so it cannot drift.
public struct SourceConnectivity: Sendable, Hashable, Codable, CustomStringConvertible {
    public var connectivityState: ConnectivityState
    public var dataSourceLocality: DataSourceLocality

    public init(connectivityState: ConnectivityState, dataSourceLocality: DataSourceLocality) {
        self.connectivityState = connectivityState
        self.dataSourceLocality = dataSourceLocality
    }

    public static let unknown = SourceConnectivity(connectivityState: .unknown, dataSourceLocality: .unspecified)

    public var description: String { "\(connectivityState)/\(dataSourceLocality)" }

    /// Combines the connectivity of the parts of a device type (its traits) or of a device (its
    /// device types), by the tables of ARCHITECTURE §3:
    ///
    /// | inputs | connectivity |
    /// |---|---|
    /// | none, or all unknown | unknown |
    /// | all online | online |
    /// | at least one online, not all | partiallyOnline |
    /// | none online, at least one offline | offline |
    ///
    /// A `partiallyOnline` input counts as one online and one offline input, so a device with a
    /// partially online type is partially online. Locality ignores `unspecified` inputs; one shared
    /// value propagates, two or more different values (a `mixed` input counts as different) give `mixed`.
    public static func aggregate(_ parts: some Sequence<SourceConnectivity>) -> SourceConnectivity {
        var total = 0
        var online = 0
        var offline = 0
        var locality: DataSourceLocality?
        var isMixed = false
        for part in parts {
            total += 1
            switch part.connectivityState {
            case .online: online += 1
            case .offline: offline += 1
            case .partiallyOnline:
                online += 1
                offline += 1
            case .unknown: break
            }
            switch part.dataSourceLocality {
            case .unspecified: break
            case .mixed: isMixed = true
            case let value:
                if let seen = locality, seen != value { isMixed = true }
                locality = value
            }
        }
        let state: ConnectivityState
        if online > 0 {
            state = (online == total && offline == 0) ? .online : .partiallyOnline
        } else if offline > 0 {
            state = .offline
        } else {
            state = .unknown
        }
        let aggregateLocality: DataSourceLocality = isMixed ? .mixed : (locality ?? .unspecified)
        return SourceConnectivity(connectivityState: state, dataSourceLocality: aggregateLocality)
    }
}
