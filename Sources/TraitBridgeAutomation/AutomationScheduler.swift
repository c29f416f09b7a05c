public import Foundation
public import TraitBridgeModel

/// What the scheduler reads of the home when it decides: values, connectivity, where a home is.
public protocol AutomationWorld {
    func value(of reference: AttributeReference) -> AttributeValue?
    func connectivity(of device: DeviceID) -> ConnectivityState
    func place(of automation: Automation) -> AutomationPlace
}

/// An automation the scheduler wants run now, and why; `blockedBy` names the condition that did
/// not hold (the run is recorded, its actions are not run).
public struct AutomationFire: Sendable, Hashable {
    public var automation: AutomationID
    public var reason: String
    public var at: Date
    public var isEnd = false
    public var blockedBy: String?

    public init(automation: AutomationID, reason: String, at: Date, isEnd: Bool = false, blockedBy: String? = nil) {
        self.automation = automation
        self.reason = reason
        self.at = at
        self.isEnd = isEnd
        self.blockedBy = blockedBy
    }
}

/// When automations fire, as a pure state machine: time is an input (``tick(now:world:)``), as
/// are device changes (``deviceChanged(_:now:world:)``), so a week of triggers runs in
/// milliseconds in a test. Event triggers are indexed by the device they watch: a message costs
/// a lookup of that device's watchers, however many automations there are. Timed triggers keep
/// their next fire; `tick` does nothing until the earliest one is due.
public struct AutomationScheduler: Sendable {
    struct TriggerKey: Hashable, Sendable {
        var automation: AutomationID
        var index: Int
    }

    public private(set) var automations: [AutomationID: Automation] = [:]
    var watchers: [DeviceID: [TriggerKey]] = [:]
    /// The last value (attribute triggers) or state (connectivity triggers) each watcher saw.
    var lastValues: [TriggerKey: AttributeValue?] = [:]
    var lastStates: [TriggerKey: ConnectivityState] = [:]
    var holds: [TriggerKey: Date] = [:]
    var nextFires: [TriggerKey: Date] = [:]
    var ends: [(at: Date, automation: AutomationID)] = []
    var nextDue: Date?

    public init() {}

    /// Adds or replaces an automation (indexed only while enabled); event watchers start from
    /// the values the home shows now, so only changes after this fire.
    public mutating func set(_ automation: Automation, now: Date, world: some AutomationWorld) {
        unindex(automation.id)
        automations[automation.id] = automation
        guard automation.isEnabled else { return recomputeDue() }
        let place = world.place(of: automation)
        for (index, trigger) in automation.triggers.enumerated() {
            let key = TriggerKey(automation: automation.id, index: index)
            switch trigger {
            case .attribute(let reference, _, _):
                watchers[reference.device, default: []].append(key)
                lastValues[key] = .some(world.value(of: reference))
            case .connectivity(let device, _, _):
                watchers[device, default: []].append(key)
                lastStates[key] = world.connectivity(of: device)
            case .timer, .calendar, .solar:
                nextFires[key] = TimerRules.nextFire(trigger, after: now, place: place)
            }
        }
        recomputeDue()
    }

    public mutating func remove(_ id: AutomationID) {
        unindex(id)
        automations.removeValue(forKey: id)
        ends.removeAll { $0.automation == id }
        recomputeDue()
    }

    public mutating func setEnabled(_ id: AutomationID, _ isEnabled: Bool, now: Date, world: some AutomationWorld) {
        guard var automation = automations[id] else { return }
        automation.isEnabled = isEnabled
        set(automation, now: now, world: world)
    }

    /// The next instant a timed trigger of the automation fires.
    public func nextFire(of id: AutomationID) -> Date? {
        nextFires.filter { $0.key.automation == id }.values.min()
    }

    /// Runs the automation's end action `afterSeconds` from now.
    public mutating func scheduleEnd(_ id: AutomationID, at date: Date) {
        ends.append((date, id))
        recomputeDue()
    }

    // MARK: Events

    /// A device's values or connectivity changed: the watchers of that device, and only those.
    public mutating func deviceChanged(_ device: DeviceID, now: Date, world: some AutomationWorld) -> [AutomationFire] {
        guard let keys = watchers[device] else { return [] }
        var fires: [AutomationFire] = []
        for key in keys {
            guard let automation = automations[key.automation] else { continue }
            switch automation.triggers[key.index] {
            case .attribute(let reference, let change, let hold):
                let new = world.value(of: reference)
                let old = lastValues[key] ?? nil
                guard new != old else { continue }
                lastValues[key] = .some(new)
                // Unknown → known is the first report (at start, or a new device), not a change.
                guard old != nil else { continue }
                if change == .changes {
                    fires.append(
                        fire(automation, "\(reference) changed to \(new.map { "\($0)" } ?? "nothing")", now, world))
                } else if change.holds(new) && !change.holds(old) {
                    startOrFire(
                        key, automation, "\(reference) \(change)", hold: hold, now: now, world: world, into: &fires)
                } else if !change.holds(new) {
                    holds.removeValue(forKey: key)  // interrupted before its hold time
                }
            case .connectivity(let device, let state, let hold):
                let new = world.connectivity(of: device)
                let old = lastStates[key]
                guard new != old else { continue }
                lastStates[key] = new
                if new == state {
                    startOrFire(
                        key, automation, "\(device.rawValue) became \(state)", hold: hold, now: now, world: world,
                        into: &fires)
                } else {
                    holds.removeValue(forKey: key)
                }
            case .timer, .calendar, .solar:
                continue
            }
        }
        return fires  // a removed hold leaves `nextDue` early: that tick finds nothing and recomputes
    }

    private mutating func startOrFire(
        _ key: TriggerKey, _ automation: Automation, _ reason: String, hold: Int, now: Date,
        world: some AutomationWorld,
        into fires: inout [AutomationFire]
    ) {
        if hold == 0 {
            fires.append(fire(automation, reason, now, world))
        } else {
            let deadline = now.addingTimeInterval(Double(hold))
            holds[key] = deadline
            nextDue = min(nextDue ?? deadline, deadline)
        }
    }

    /// Time passed: due timers, completed holds and end actions, in time order.
    public mutating func tick(now: Date, world: some AutomationWorld) -> [AutomationFire] {
        guard let due = nextDue, due <= now else { return [] }
        defer { recomputeDue() }
        var fires: [(Date, AutomationFire)] = []
        for (key, date) in nextFires where date <= now {
            guard let automation = automations[key.automation] else { continue }
            let trigger = automation.triggers[key.index]
            fires.append((date, fire(automation, "\(trigger) (\(AutomationClock.text(date)))", date, world)))
            nextFires[key] = TimerRules.nextFire(trigger, after: max(now, date), place: world.place(of: automation))
        }
        for (key, date) in holds where date <= now {
            holds.removeValue(forKey: key)
            guard let automation = automations[key.automation] else { continue }
            fires.append((date, fire(automation, "\(automation.triggers[key.index])", date, world)))
        }
        for end in ends where end.at <= now {
            guard let automation = automations[end.automation] else { continue }
            fires.append(
                (end.at, AutomationFire(automation: automation.id, reason: "end action", at: end.at, isEnd: true)))
        }
        ends.removeAll { $0.at <= now }
        return fires.sorted { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1.automation < $1.1.automation) }.map(\.1)
    }

    /// The fires of timed triggers between `since` (exclusive) and `now` (inclusive): what was
    /// missed while the bridge was down, at most `limit` per automation.
    public func missedFires(since: Date, now: Date, world: some AutomationWorld, limit: Int = 100) -> [AutomationID:
        [Date]]
    {
        var missed: [AutomationID: [Date]] = [:]
        for automation in automations.values where automation.isEnabled {
            let place = world.place(of: automation)
            var dates: [Date] = []
            for trigger in automation.triggers where trigger.isTimed {
                var after = since
                while dates.count < limit, let next = TimerRules.nextFire(trigger, after: after, place: place),
                    next <= now
                {
                    dates.append(next)
                    after = next
                }
            }
            if !dates.isEmpty { missed[automation.id] = dates.sorted() }
        }
        return missed
    }

    // MARK: Conditions

    /// A fire, with the first condition that does not hold (if any).
    func fire(_ automation: Automation, _ reason: String, _ at: Date, _ world: some AutomationWorld) -> AutomationFire {
        AutomationFire(
            automation: automation.id, reason: reason, at: at, blockedBy: Self.failing(automation, at: at, world: world)
        )
    }

    /// The first of the automation's conditions that does not hold at `at`, or `nil`.
    public static func failing(_ automation: Automation, at: Date, world: some AutomationWorld) -> String? {
        let place = world.place(of: automation)
        for condition in automation.conditions {
            let holds: Bool
            switch condition {
            case .timeOfDay(let after, let before):
                let parts = place.calendar.dateComponents([.hour, .minute], from: at)
                let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
                holds = after < before ? (after <= minute && minute < before) : (minute >= after || minute < before)
            case .sun(let isUp):
                holds = SolarCalculator.isUp(at: at, place: place) == isUp
            case .attribute(let reference, let comparison):
                holds = comparison.holds(world.value(of: reference))
            case .connectivity(let device, let state):
                holds = world.connectivity(of: device) == state
            }
            if !holds { return condition.description }
        }
        return nil
    }

    // MARK: Index

    private mutating func unindex(_ id: AutomationID) {
        guard let automation = automations[id] else { return }
        for (index, trigger) in automation.triggers.enumerated() {
            let key = TriggerKey(automation: id, index: index)
            switch trigger {
            case .attribute(let reference, _, _): watchers[reference.device]?.removeAll { $0 == key }
            case .connectivity(let device, _, _): watchers[device]?.removeAll { $0 == key }
            default: break
            }
            lastValues.removeValue(forKey: key)
            lastStates.removeValue(forKey: key)
            holds.removeValue(forKey: key)
            nextFires.removeValue(forKey: key)
        }
        for device in Set(automation.triggers.compactMap(Self.device)) where watchers[device]?.isEmpty == true {
            watchers.removeValue(forKey: device)
        }
    }

    private static func device(_ trigger: AutomationTrigger) -> DeviceID? {
        switch trigger {
        case .attribute(let reference, _, _): reference.device
        case .connectivity(let device, _, _): device
        default: nil
        }
    }

    private mutating func recomputeDue() {
        let candidates = Array(nextFires.values) + Array(holds.values) + ends.map(\.at)
        nextDue = candidates.min()
    }
}
