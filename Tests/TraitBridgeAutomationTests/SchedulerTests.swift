import Foundation
import Testing
import TraitBridgeAutomation
import TraitBridgeModel

/// A home in memory: values and connectivity the test sets (pure logic may use a fake).
struct FakeWorld: AutomationWorld {
    var values: [AttributeReference: AttributeValue] = [:]
    var states: [DeviceID: ConnectivityState] = [:]
    var place = berlin

    func value(of reference: AttributeReference) -> AttributeValue? { values[reference] }
    func connectivity(of device: DeviceID) -> ConnectivityState { states[device] ?? .unknown }
    func place(of automation: Automation) -> AutomationPlace { place }
}

/// The scheduler with time as an input: a week of triggers in milliseconds, holds that are
/// interrupted, thresholds crossed, conditions that block, fires missed while down.
@Suite("Automation scheduler")
struct SchedulerTests {
    let door = try! DeviceID("z2m-door")
    var contact: AttributeReference {
        AttributeReference(device: door, trait: .matter("BooleanState"), attribute: "stateValue")
    }
    let light = SceneAction(
        device: try! DeviceID("z2m-light"), trait: .matter("OnOff"), operation: .invoke(command: "on", arguments: [:]))

    func automation(_ id: String, _ triggers: [AutomationTrigger], conditions: [AutomationCondition] = []) -> Automation
    {
        Automation(
            id: AutomationID(id), name: id, triggers: triggers, conditions: conditions, actions: [.device(light)])
    }

    @Test("a week of a weekday 07:00 trigger and a sunset trigger, ticked every minute: 5 + 7 fires, in order")
    func week() {
        var scheduler = AutomationScheduler()
        let world = FakeWorld()
        let start = date("2026-11-23T00:00:00Z")  // a Monday
        scheduler.set(
            automation("morning", [.calendar(weekdays: [2, 3, 4, 5, 6], minuteOfDay: 420)]), now: start, world: world)
        scheduler.set(automation("dusk", [.solar(event: .sunset, offsetMinutes: 0)]), now: start, world: world)
        var fires: [AutomationFire] = []
        for minute in 1...(7 * 1440) {
            fires += scheduler.tick(now: start.addingTimeInterval(Double(minute) * 60), world: world)
        }
        #expect(fires.filter { $0.automation.rawValue == "morning" }.count == 5)
        #expect(fires.filter { $0.automation.rawValue == "dusk" }.count == 7)
        #expect(fires.map(\.at) == fires.map(\.at).sorted())
        let first = fires.first { $0.automation.rawValue == "morning" }
        #expect(first.map { AutomationClock.text($0.at) } == "2026-11-23T06:00:00Z", "07:00 in Berlin")
    }

    @Test("an event trigger with a hold time: interrupted before it is up, it does not fire; held, it fires once")
    func interruptedHold() {
        var scheduler = AutomationScheduler()
        var world = FakeWorld()
        let t0 = date("2026-11-25T18:00:00Z")
        world.values[contact] = .bool(true)
        scheduler.set(
            automation("door-open", [.attribute(contact, .equals(.bool(false)), holdSeconds: 10)]), now: t0,
            world: world)
        world.values[contact] = .bool(false)
        #expect(scheduler.deviceChanged(door, now: t0, world: world).isEmpty, "the hold starts")
        world.values[contact] = .bool(true)
        #expect(scheduler.deviceChanged(door, now: t0 + 5, world: world).isEmpty)
        #expect(scheduler.tick(now: t0 + 20, world: world).isEmpty, "interrupted after 5 s: no fire")
        world.values[contact] = .bool(false)
        _ = scheduler.deviceChanged(door, now: t0 + 30, world: world)
        #expect(scheduler.tick(now: t0 + 39, world: world).isEmpty)
        let fired = scheduler.tick(now: t0 + 40, world: world)
        #expect(fired.map(\.automation.rawValue) == ["door-open"])
        #expect(fired.first?.at == t0 + 40)
        #expect(scheduler.tick(now: t0 + 100, world: world).isEmpty, "once")
    }

    @Test("a threshold fires when crossed upwards, not while it stays above; changes fires on every change")
    func thresholds() {
        var scheduler = AutomationScheduler()
        var world = FakeWorld()
        let t0 = date("2026-11-25T12:00:00Z")
        let temperature = AttributeReference(
            device: door, trait: .matter("TemperatureMeasurement"), attribute: "measuredValue")
        world.values[temperature] = .int(2400)
        scheduler.set(automation("hot", [.attribute(temperature, .above(2500), holdSeconds: 0)]), now: t0, world: world)
        scheduler.set(automation("any", [.attribute(temperature, .changes, holdSeconds: 0)]), now: t0, world: world)
        var names: [[String]] = []
        for value in [2600, 2700, 2000, 2600, 2600] {
            world.values[temperature] = .int(Int64(value))
            names.append(scheduler.deviceChanged(door, now: t0, world: world).map(\.automation.rawValue).sorted())
        }
        #expect(names == [["any", "hot"], ["any"], ["any"], ["any", "hot"], []])
    }

    @Test("offline for 10 minutes: a connectivity trigger with a hold; back online in time, nothing")
    func connectivity() {
        var scheduler = AutomationScheduler()
        var world = FakeWorld()
        let t0 = date("2026-11-25T12:00:00Z")
        world.states[door] = .online
        scheduler.set(
            automation("lost", [.connectivity(device: door, state: .offline, holdSeconds: 600)]), now: t0, world: world)
        world.states[door] = .offline
        _ = scheduler.deviceChanged(door, now: t0, world: world)
        world.states[door] = .online
        _ = scheduler.deviceChanged(door, now: t0 + 300, world: world)
        #expect(scheduler.tick(now: t0 + 700, world: world).isEmpty)
        world.states[door] = .offline
        _ = scheduler.deviceChanged(door, now: t0 + 800, world: world)
        #expect(scheduler.tick(now: t0 + 1400, world: world).map(\.reason) == ["z2m-door offline for 600 s"])
    }

    @Test("conditions: a fire when the sun is up is blocked by \"the sun is down\", and says so")
    func blocked() {
        var scheduler = AutomationScheduler()
        var world = FakeWorld()
        let noon = date("2026-11-25T11:00:00Z")
        world.values[contact] = .bool(true)
        scheduler.set(
            automation(
                "night", [.attribute(contact, .equals(.bool(false)), holdSeconds: 0)], conditions: [.sun(isUp: false)]),
            now: noon, world: world)
        world.values[contact] = .bool(false)
        let fire = scheduler.deviceChanged(door, now: noon, world: world)
        #expect(fire.first?.blockedBy == "the sun is down")
        world.values[contact] = .bool(true)
        _ = scheduler.deviceChanged(door, now: noon, world: world)
        world.values[contact] = .bool(false)
        let evening = date("2026-11-25T18:00:00Z")
        #expect(scheduler.deviceChanged(door, now: evening, world: world).first?.blockedBy == nil)
    }

    @Test("fires missed while the bridge was down are listed; a disabled automation fires nothing")
    func missed() {
        var scheduler = AutomationScheduler()
        let world = FakeWorld()
        let down = date("2026-11-23T00:00:00Z")
        scheduler.set(automation("morning", [.calendar(weekdays: [], minuteOfDay: 420)]), now: down, world: world)
        let missed = scheduler.missedFires(since: down, now: date("2026-11-25T12:00:00Z"), world: world)
        #expect(
            missed[AutomationID("morning")]?.map(AutomationClock.text) == [
                "2026-11-23T06:00:00Z", "2026-11-24T06:00:00Z", "2026-11-25T06:00:00Z",
            ])
        scheduler.setEnabled(AutomationID("morning"), false, now: down, world: world)
        #expect(scheduler.tick(now: date("2026-11-30T00:00:00Z"), world: world).isEmpty)
        #expect(scheduler.missedFires(since: down, now: date("2026-11-25T12:00:00Z"), world: world).isEmpty)
    }
}
