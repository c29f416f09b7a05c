public import FoundationEssentials
public import TraitBridgeModel

/// One change the history keeps: a value a device reported, a trait's connectivity moving, or a
/// notification (a camera's motion, a button's press) as its event topic carried it.
///
/// Made by the engine where a value or a connectivity changes, written by the history's own
/// thread in batches (never on the message path), read back by `history` requests.
public struct HistoryRecord: Sendable, Hashable {
    /// What changed.
    public enum Change: Sendable, Hashable {
        case value(AttributeValue)
        case connectivity(HistoryConnectivity)
        /// The notification's JSON text (at most 4 KB: a larger one is only its size). Every one is
        /// kept, even one equal to the last (a second press is a press).
        case notification(String)
    }

    /// The attribute name of a trait's notifications' series.
    public static let notificationAttribute = "notification"

    public var device: DeviceID
    public var address: TraitAddress
    /// The attribute whose value changed; empty for a connectivity change, ``notificationAttribute``
    /// for a notification.
    public var attribute: String
    public var at: Date
    public var change: Change

    public init(device: DeviceID, address: TraitAddress, attribute: String, at: Date, change: Change) {
        self.device = device
        self.address = address
        self.attribute = attribute
        self.at = at
        self.change = change
    }

    /// The series a record belongs to: one device's trait's attribute (or its connectivity).
    public var series: HistorySeries { HistorySeries(device: device, address: address, attribute: attribute) }
}

/// A trait's connectivity as the history keeps it: its state, locality and reason in words (the
/// reason's code and its description), as the state payload gives them.
public struct HistoryConnectivity: Sendable, Hashable, Codable {
    public var state: TraitConnectivityState
    public var locality: TraitLocality
    public var reasonCode: String
    public var reason: String

    public init(state: TraitConnectivityState, locality: TraitLocality, reasonCode: String, reason: String) {
        self.state = state
        self.locality = locality
        self.reasonCode = reasonCode
        self.reason = reason
    }

    public init(_ connectivity: TraitConnectivity) {
        let reason = connectivity.reason ?? .neverHeard
        self.init(
            state: connectivity.state, locality: connectivity.locality, reasonCode: reason.code,
            reason: reason.description)
    }
}

/// One device's trait's attribute, or its connectivity (attribute empty): what a timeline draws.
public struct HistorySeries: Sendable, Hashable {
    public var device: DeviceID
    public var address: TraitAddress
    public var attribute: String

    public init(device: DeviceID, address: TraitAddress, attribute: String) {
        self.device = device
        self.address = address
        self.attribute = attribute
    }
}

/// What a `history` request asks for: one device's records in a time range, perhaps of one trait
/// or one attribute, at most `limit` of them (the newest when there are more).
public struct HistoryFilter: Sendable, Hashable {
    public var device: DeviceID
    /// `deviceTypeKey/traitID`, or a trait id alone (that trait in any of the device's types).
    public var trait: String?
    /// An attribute's name, or `connectivity` for the connectivity series alone.
    public var attribute: String?
    public var from: Date
    public var to: Date
    public var limit: Int

    public init(device: DeviceID, trait: String?, attribute: String?, from: Date, to: Date, limit: Int) {
        self.device = device
        self.trait = trait
        self.attribute = attribute
        self.from = from
        self.to = to
        self.limit = limit
    }
}

/// A `history` request's records, oldest first, with each series' last record before the range
/// (the state or value it began with).
public struct HistoryPage: Sendable, Hashable {
    public var records: [HistoryRecord]
    /// For each matching series, its last record before `from` (what held at the range's start).
    public var before: [HistoryRecord]
    /// More records matched than `limit`: these are the newest; ask again with `to` at the first.
    public var truncated: Bool

    public init(records: [HistoryRecord], before: [HistoryRecord], truncated: Bool) {
        self.records = records
        self.before = before
        self.truncated = truncated
    }
}
