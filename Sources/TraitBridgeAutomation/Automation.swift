public import FoundationEssentials
public import TraitBridgeModel

/// Identifies an automation; unique in the bridge, usable in MQTT topics.
public struct AutomationID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
    public static func < (lhs: AutomationID, rhs: AutomationID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// HomeKit's trigger + predicate + action sets, as one value: when any trigger fires and every
/// condition holds, the actions run; an optional end action runs a while later ("turn it off
/// again"). Definitions come from the registry (made by requests) or from JSON files.
public struct Automation: Sendable, Hashable, Codable {
    public var id: AutomationID
    public var name: String
    /// The home whose time zone and location the timer and solar triggers use (name or id;
    /// `nil`: the primary home).
    public var home: String?
    public var isEnabled: Bool
    public var triggers: [AutomationTrigger]
    public var conditions: [AutomationCondition]
    public var actions: [AutomationAction]
    public var end: EndAction?
    /// Timer fires missed while the bridge was down are always reported; with this, the
    /// automation also runs once at start for them.
    public var runMissed: Bool
    /// Where the definition lives: `registry`, or the file it was read from (read-only).
    public var origin: String

    public init(
        id: AutomationID, name: String, home: String? = nil, isEnabled: Bool = true, triggers: [AutomationTrigger],
        conditions: [AutomationCondition] = [], actions: [AutomationAction], end: EndAction? = nil,
        runMissed: Bool = false, origin: String = "registry"
    ) {
        self.id = id
        self.name = name
        self.home = home
        self.isEnabled = isEnabled
        self.triggers = triggers
        self.conditions = conditions
        self.actions = actions
        self.end = end
        self.runMissed = runMissed
        self.origin = origin
    }
}

/// What makes an automation fire.
public enum AutomationTrigger: Sendable, Hashable, Codable, CustomStringConvertible {
    /// HomeKit's timer trigger: a first fire date (future, seconds zero) and an optional recurrence.
    case timer(fireDate: Date, recurrence: Recurrence?)
    /// Days of the week at a time of day, in the home's time zone (weekdays 1 = Sunday … 7 = Saturday).
    case calendar(weekdays: Set<Int>, minuteOfDay: Int)
    /// Sunrise or sunset at the home's location, shifted by `offsetMinutes`.
    case solar(event: SolarEvent, offsetMinutes: Int)
    /// An attribute changes, becomes equal to a value, or crosses a threshold, and stays so for
    /// `holdSeconds` (0: at once).
    case attribute(AttributeReference, AttributeChange, holdSeconds: Int)
    /// A device's connectivity becomes `state` and stays so for `holdSeconds`.
    case connectivity(device: DeviceID, state: ConnectivityState, holdSeconds: Int)

    public var description: String {
        switch self {
        case .timer(let date, let recurrence):
            return "timer at \(AutomationClock.text(date))" + (recurrence.map { ", then \($0)" } ?? "")
        case .calendar(let weekdays, let minute):
            return "\(Weekdays.text(weekdays)) at \(AutomationClock.text(minuteOfDay: minute))"
        case .solar(let event, let offset):
            return offset == 0 ? "\(event)" : "\(abs(offset)) min \(offset < 0 ? "before" : "after") \(event)"
        case .attribute(let reference, let change, let hold):
            return "\(reference) \(change)" + (hold > 0 ? " for \(hold) s" : "")
        case .connectivity(let device, let state, let hold):
            return "\(device.rawValue) \(state)" + (hold > 0 ? " for \(hold) s" : "")
        }
    }

    /// Timer, calendar and solar triggers fire at instants; the others on events.
    public var isTimed: Bool {
        switch self {
        case .timer, .calendar, .solar: true
        case .attribute, .connectivity: false
        }
    }
}

/// A timer's recurrence: every `count` units, between 5 minutes and 5 weeks (HomeKit's bounds).
public struct Recurrence: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Unit: String, Sendable, Hashable, Codable, CaseIterable {
        case minutes, hours, days, weeks
    }

    public var count: Int
    public var unit: Unit

    public init(count: Int, unit: Unit) {
        self.count = count
        self.unit = unit
    }

    /// Its length in minutes (days and weeks as calendar days, which DST does not stretch).
    public var nominalMinutes: Int {
        switch unit {
        case .minutes: count
        case .hours: count * 60
        case .days: count * 1440
        case .weeks: count * 10080
        }
    }

    public var description: String { "every \(count) \(unit.rawValue)" }
}

public enum SolarEvent: String, Sendable, Hashable, Codable, CustomStringConvertible {
    case sunrise, sunset
    public var description: String { rawValue }
}

/// One attribute of one device's trait (in one device type when given).
public struct AttributeReference: Sendable, Hashable, Codable, CustomStringConvertible {
    public var device: DeviceID
    public var deviceTypeKey: String?
    public var trait: TraitID
    public var attribute: String

    public init(device: DeviceID, deviceTypeKey: String? = nil, trait: TraitID, attribute: String) {
        self.device = device
        self.deviceTypeKey = deviceTypeKey
        self.trait = trait
        self.attribute = attribute
    }

    public var description: String {
        "\(device.rawValue)\(deviceTypeKey.map { "/\($0)" } ?? "") \(trait).\(attribute)"
    }
}

/// How an attribute trigger reads a new value against the last one.
public enum AttributeChange: Sendable, Hashable, Codable, CustomStringConvertible {
    case changes
    case equals(AttributeValue)
    /// Crosses upwards: from at most the threshold to above it.
    case above(Double)
    /// Crosses downwards: from at least the threshold to below it.
    case below(Double)

    public var description: String {
        switch self {
        case .changes: "changes"
        case .equals(let value): "becomes \(value)"
        case .above(let threshold): "rises above \(threshold)"
        case .below(let threshold): "falls below \(threshold)"
        }
    }

    /// Whether a value satisfies the change's state (for equals, above, below); `changes` has none.
    func holds(_ value: AttributeValue?) -> Bool {
        switch self {
        case .changes: return false
        case .equals(let wanted): return value == wanted
        case .above(let threshold): return value?.numericValue.map { $0 > threshold } ?? false
        case .below(let threshold): return value?.numericValue.map { $0 < threshold } ?? false
        }
    }
}

/// HomeKit's predicates: all must hold when a trigger fires.
public enum AutomationCondition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The home's local time of day is in [after, before); after > before spans midnight.
    case timeOfDay(afterMinute: Int, beforeMinute: Int)
    case sun(isUp: Bool)
    case attribute(AttributeReference, AttributeComparison)
    case connectivity(device: DeviceID, state: ConnectivityState)

    public var description: String {
        switch self {
        case .timeOfDay(let after, let before):
            "between \(AutomationClock.text(minuteOfDay: after)) and \(AutomationClock.text(minuteOfDay: before))"
        case .sun(let isUp): isUp ? "the sun is up" : "the sun is down"
        case .attribute(let reference, let comparison): "\(reference) \(comparison)"
        case .connectivity(let device, let state): "\(device.rawValue) is \(state)"
        }
    }
}

public enum AttributeComparison: Sendable, Hashable, Codable, CustomStringConvertible {
    case equals(AttributeValue)
    case notEquals(AttributeValue)
    case above(Double)
    case below(Double)

    public var description: String {
        switch self {
        case .equals(let value): "is \(value)"
        case .notEquals(let value): "is not \(value)"
        case .above(let threshold): "is above \(threshold)"
        case .below(let threshold): "is below \(threshold)"
        }
    }

    public func holds(_ value: AttributeValue?) -> Bool {
        switch self {
        case .equals(let wanted): value == wanted
        case .notEquals(let wanted): value != wanted
        case .above(let threshold): value?.numericValue.map { $0 > threshold } ?? false
        case .below(let threshold): value?.numericValue.map { $0 < threshold } ?? false
        }
    }
}

/// What an automation does.
public enum AutomationAction: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Runs a scene of the automation's home (by name or id).
    case scene(String)
    /// A trait command or attribute write on a device (a scene's action).
    case device(SceneAction)
    /// Publishes `{"automation", "message", "at"}` on `<prefix>/notifications/<topic>`.
    case notify(topic: String, message: String)

    public var description: String {
        switch self {
        case .scene(let name): "run scene '\(name)'"
        case .device(let action): action.description
        case .notify(let topic, let message): "notify \(topic): \(message)"
        }
    }
}

/// "Turn it off again": actions a fixed time after the automation ran.
public struct EndAction: Sendable, Hashable, Codable {
    public var afterSeconds: Int
    public var actions: [AutomationAction]

    public init(afterSeconds: Int, actions: [AutomationAction]) {
        self.afterSeconds = afterSeconds
        self.actions = actions
    }
}
