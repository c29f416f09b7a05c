import Foundation
import Testing
import TraitBridgeAutomation
import TraitBridgeModel

func date(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

let berlin = AutomationPlace(timeZone: TimeZone(identifier: "Europe/Berlin")!, latitude: 52.52, longitude: 13.405)

/// HomeKit's timer rules at their edges, and timed triggers across DST changes, in the home's zone.
@Suite("Timer rules and DST")
struct TimerRulesTests {
    let now = date("2026-11-25T10:00:00Z")

    @Test(
        "a fire date in the past or with seconds, and recurrences of 4 minutes and 6 weeks are refused; 5 minutes and 5 weeks are not",
        arguments: [
            ("2026-11-25T09:00:00Z", nil, "is not in the future"),
            ("2026-11-25T10:00:00Z", nil, "is not in the future"),
            ("2026-11-26T07:00:30Z", nil, "has seconds"),
            ("2026-11-26T07:00:00Z", Recurrence(count: 4, unit: .minutes), "between 5 minutes and 5 weeks"),
            ("2026-11-26T07:00:00Z", Recurrence(count: 6, unit: .weeks), "between 5 minutes and 5 weeks"),
            ("2026-11-26T07:00:00Z", Recurrence(count: 36, unit: .days), "between 5 minutes and 5 weeks"),
            ("2026-11-26T07:00:00Z", Recurrence(count: 5, unit: .minutes), nil),
            ("2026-11-26T07:00:00Z", Recurrence(count: 5, unit: .weeks), nil),
            ("2026-11-26T07:00:00Z", Recurrence(count: 35, unit: .days), nil),
            ("2026-11-25T10:01:00Z", nil, nil),
        ] as [(String, Recurrence?, String?)])
    func homeKitRules(fireDate: String, recurrence: Recurrence?, problem: String?) {
        let found = TimerRules.problem(fireDate: date(fireDate), recurrence: recurrence, now: now)
        if let problem {
            #expect(found?.contains(problem) == true, "\(found ?? "accepted")")
        } else {
            #expect(found == nil, "\(found ?? "")")
        }
    }

    /// The fires of a trigger from `start`, `count` of them.
    func fires(_ trigger: AutomationTrigger, from start: String, count: Int, place: AutomationPlace = berlin)
        -> [String]
    {
        var after = date(start)
        var result: [String] = []
        for _ in 0..<count {
            guard let next = TimerRules.nextFire(trigger, after: after, place: place) else { break }
            result.append(AutomationClock.text(next))
            after = next
        }
        return result
    }

    @Test("07:00 every day stays 07:00 local across spring-forward and fall-back (06:00Z, then 05:00Z, then 06:00Z)")
    func calendarAcrossDST() {
        let daily = AutomationTrigger.calendar(weekdays: [], minuteOfDay: 7 * 60)
        #expect(
            fires(daily, from: "2026-03-28T00:00:00Z", count: 3) == [
                "2026-03-28T06:00:00Z", "2026-03-29T05:00:00Z", "2026-03-30T05:00:00Z",
            ])
        #expect(
            fires(daily, from: "2026-10-24T12:00:00Z", count: 2) == ["2026-10-25T06:00:00Z", "2026-10-26T06:00:00Z"])
        let weekdays = AutomationTrigger.calendar(weekdays: [2, 3, 4, 5, 6], minuteOfDay: 7 * 60)
        #expect(
            fires(weekdays, from: "2026-11-27T07:00:00Z", count: 2) == [
                "2026-11-30T06:00:00Z", "2026-12-01T06:00:00Z",
            ],
            "Friday's has passed; Saturday and Sunday are skipped")
    }

    @Test(
        "a daily timer at 02:30: on spring-forward day it fires at 03:00, the first instant after the gap, and 02:30 again after"
    )
    func springForward() {
        let timer = AutomationTrigger.timer(
            fireDate: date("2026-03-27T01:30:00Z"), recurrence: Recurrence(count: 1, unit: .days))  // 02:30 CET
        #expect(
            fires(timer, from: "2026-03-27T12:00:00Z", count: 3) == [
                "2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z",
            ])
    }

    @Test("a daily timer at 02:30 fires once on fall-back day, though 02:30 happens twice")
    func fallBack() {
        let timer = AutomationTrigger.timer(
            fireDate: date("2026-10-23T00:30:00Z"), recurrence: Recurrence(count: 1, unit: .days))  // 02:30 CEST
        let found = fires(timer, from: "2026-10-24T12:00:00Z", count: 2)
        #expect(found == ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"], "\(found)")
    }

    @Test("every 2 hours is elapsed time (DST does not stretch it); a one-off timer fires once")
    func elapsed() {
        let timer = AutomationTrigger.timer(
            fireDate: date("2026-03-29T00:00:00Z"), recurrence: Recurrence(count: 2, unit: .hours))
        #expect(
            fires(timer, from: "2026-03-28T23:00:00Z", count: 3) == [
                "2026-03-29T00:00:00Z", "2026-03-29T02:00:00Z", "2026-03-29T04:00:00Z",
            ])
        let once = AutomationTrigger.timer(fireDate: date("2026-12-01T07:00:00Z"), recurrence: nil)
        #expect(fires(once, from: "2026-11-30T00:00:00Z", count: 3) == ["2026-12-01T07:00:00Z"])
        // Years later the next fire of a 5-minute timer is found without walking every fire.
        let fast = AutomationTrigger.timer(
            fireDate: date("2026-01-01T00:00:00Z"), recurrence: Recurrence(count: 5, unit: .minutes))
        #expect(fires(fast, from: "2036-01-01T00:02:00Z", count: 1) == ["2036-01-01T00:05:00Z"])
    }

    @Test("time-of-day conditions across midnight, in the home's zone")
    func timeOfDay() {
        let night = AutomationCondition.timeOfDay(afterMinute: 22 * 60, beforeMinute: 6 * 60)
        let automation = Automation(
            id: AutomationID("a"), name: "a", triggers: [], conditions: [night], actions: [])
        struct Nowhere: AutomationWorld {
            func value(of reference: AttributeReference) -> AttributeValue? { nil }
            func connectivity(of device: DeviceID) -> ConnectivityState { .unknown }
            func place(of automation: Automation) -> AutomationPlace { berlin }
        }
        for (time, holds) in [
            ("2026-11-25T21:30:00Z", true), ("2026-11-25T04:59:00Z", true), ("2026-11-25T05:00:00Z", false),
            ("2026-11-25T20:59:00Z", false), ("2026-11-25T23:00:00Z", true),
        ] {
            let failing = AutomationScheduler.failing(automation, at: date(time), world: Nowhere())
            #expect((failing == nil) == holds, "\(time) (22:00–06:00 Berlin)")
        }
    }
}
