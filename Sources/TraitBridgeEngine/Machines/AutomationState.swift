import FoundationEssentials
import TraitBridgeAutomation
import TraitBridgeJSON
import TraitBridgeModel

/// The automations as the engine runs them: the scheduler (triggers, timers, holds, end
/// actions), each automation's recent runs, the fires that wait for the broker, when the bridge's
/// clock was last written, and a hash of what each automation topic last carried.
///
/// The one owner of that state; what a fire does (scenes, commands, notifications) is the
/// engine's, which hands back the run to record.
struct AutomationState: Sendable {
    /// Runs kept per automation (newest first).
    static let historyLength = 20
    /// The least time between two writes of the bridge's clock to the registry.
    static let clockWriteInterval: TimeInterval = 60

    private var scheduler = AutomationScheduler()
    private var history: [AutomationID: [JSONValue]] = [:]
    private var waiting: [AutomationFire] = []
    private var lastClockWrite: Date?
    private var published: [String: Int] = [:]

    // MARK: Definitions

    subscript(id: AutomationID) -> Automation? { scheduler.automations[id] }
    var count: Int { scheduler.automations.count }
    var isEmpty: Bool { scheduler.automations.isEmpty }
    /// Every automation, by id.
    var all: [Automation] { scheduler.automations.values.sorted { $0.id < $1.id } }

    /// Adds or replaces an automation (its timers from `now`, in `world`'s clocks).
    mutating func set(_ automation: Automation, now: Date, world: some AutomationWorld) {
        scheduler.set(automation, now: now, world: world)
    }

    /// An automation goes, with its runs.
    mutating func remove(_ id: AutomationID) {
        scheduler.remove(id)
        history.removeValue(forKey: id)
    }

    mutating func setEnabled(_ id: AutomationID, _ isEnabled: Bool, now: Date, world: some AutomationWorld) {
        scheduler.setEnabled(id, isEnabled, now: now, world: world)
    }

    func nextFire(of id: AutomationID) -> Date? { scheduler.nextFire(of: id) }

    mutating func scheduleEnd(_ id: AutomationID, at date: Date) {
        scheduler.scheduleEnd(id, at: date)
    }

    // MARK: Fires

    /// The fires a device's change triggers.
    mutating func deviceChanged(_ id: DeviceID, now: Date, world: some AutomationWorld) -> [AutomationFire] {
        scheduler.deviceChanged(id, now: now, world: world)
    }

    /// The fires due at `now` (timers, holds, end actions).
    mutating func tick(now: Date, world: some AutomationWorld) -> [AutomationFire] {
        scheduler.tick(now: now, world: world)
    }

    /// The timer fires missed between `clock` (the bridge's last clock) and `now`.
    func missedFires(since clock: Date, now: Date, world: some AutomationWorld) -> [AutomationID: [Date]] {
        scheduler.missedFires(since: clock, now: now, world: world)
    }

    /// A fire that runs once the broker is up.
    mutating func wait(_ fire: AutomationFire) {
        waiting.append(fire)
    }

    /// The fires that waited for the broker, taken.
    mutating func takeWaiting() -> [AutomationFire] {
        defer { waiting = [] }
        return waiting
    }

    /// Whether the bridge's clock is due in the registry at `now` (with automations, once a
    /// ``clockWriteInterval``); if so `now` counts as written.
    mutating func takeClockWrite(now: Date) -> Bool {
        guard !isEmpty, lastClockWrite.map({ now.timeIntervalSince($0) >= Self.clockWriteInterval }) ?? true else {
            return false
        }
        lastClockWrite = now
        return true
    }

    // MARK: Runs

    /// An automation's runs, newest first.
    func runs(of id: AutomationID) -> [JSONValue] { history[id] ?? [] }

    /// The runs the registry kept (at most ``historyLength``).
    mutating func restoreRuns(_ runs: [JSONValue], of id: AutomationID) {
        history[id] = Array(runs.prefix(Self.historyLength))
    }

    /// A run, newest first (the oldest beyond ``historyLength`` goes): the runs now kept.
    @discardableResult
    mutating func record(_ run: JSONValue, of id: AutomationID) -> [JSONValue] {
        var runs = history[id] ?? []
        runs.insert(run, at: 0)
        if runs.count > Self.historyLength { runs.removeLast(runs.count - Self.historyLength) }
        history[id] = runs
        return runs
    }

    // MARK: Topics

    /// An automation topic is to carry a payload with this hash: `false` when it carries it already.
    mutating func publish(_ topic: String, hash: Int) -> Bool {
        guard published[topic] != hash else { return false }
        published[topic] = hash
        return true
    }

    /// A topic that went: `true` when it had been published (it is to be cleared).
    mutating func unpublish(_ topic: String) -> Bool {
        published.removeValue(forKey: topic) != nil
    }

    /// The broker may have lost them: every known topic is published again.
    mutating func forgetEverythingPublished() {
        for topic in published.keys { published[topic] = 0 }
    }
}
