import Foundation
import Testing
import TraitBridgeAutomation
import TraitBridgeJSON
import TraitBridgeModel

@testable import TraitBridgeEngine

/// Automations through the state machine, time as an input: "when the back door opens after
/// sunset, turn on the hall light for 2 minutes", a week of a daily timer, fires missed while
/// down, refusals, and the definition kept for a restart.
@Suite("automations in the bridge")
struct AutomationStateTests {
    static let address = ReplyAddress(topic: "app/answers", correlationData: Array("c-1".utf8))
    let hall = "z2m-0x00158d0001000001"
    let door = "z2m-0x00158d0001000006"
    let evening = try! Date("2026-11-25T18:00:00Z", strategy: .iso8601)  // after sunset in Berlin

    func home() throws -> BridgeState {
        var state = try EngineFixtures.state()
        _ = state.brokerConnected(now: evening)
        _ = state.receive("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, at: evening)
        let devices = try String(
            contentsOfFile: EngineFixtures.repository + "/examples/demo-home-zigbee2mqtt-devices.json", encoding: .utf8)
        _ = state.receive("zigbee2mqtt/bridge/devices", devices, at: evening)
        _ = state.receive("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":60}"#, at: evening)
        _ = state.receive("zigbee2mqtt/Back door", #"{"contact":true,"battery":90}"#, at: evening)
        ask(
            &state, "home-location", #"{"timeZone": "Europe/Berlin", "latitude": 52.52, "longitude": 13.405}"#,
            at: evening)
        return state
    }

    @discardableResult
    func ask(_ state: inout BridgeState, _ operation: String, _ payload: String, at now: Date) -> JSON? {
        let effects = state.handleMessage(
            topic: "traitbridge/bridge/request/\(operation)", payload: Array(payload.utf8), now: now,
            replyTo: Self.address)
        return effects.last(Self.address.topic)
    }

    var backDoor: String {
        #"""
        {"name": "Back door light", "triggers": [{"type": "attribute", "device": "\#(door)", "trait": "matter.BooleanState",
          "attribute": "stateValue", "equals": false}],
         "conditions": [{"type": "sun", "is": "down"}],
         "actions": [{"type": "command", "device": "\#(hall)", "trait": "matter.OnOff", "command": "on"}],
         "end": {"after": 120, "actions": [{"type": "command", "device": "\#(hall)", "trait": "matter.OnOff", "command": "off"}]}}
        """#
    }

    func history(_ effects: BridgeEffects, _ id: String) -> [JSON] {
        effects.last("traitbridge/automations/\(id)/history")?["runs"]?.elements ?? []
    }

    @Test(
        "the back door opens after sunset: the hall light goes on, and off again 2 minutes later; by day, the condition blocks it"
    )
    func backDoorAfterSunset() throws {
        var state = try home()
        let added = ask(&state, "automation-add", backDoor, at: evening)
        #expect(added?["status"]?.string == "ok", "\(added?["message"]?.string ?? "")")
        let opened = state.receive("zigbee2mqtt/Back door", #"{"contact":false,"battery":90}"#, at: evening)
        #expect(
            opened.publications.contains { $0.topic == "zigbee2mqtt/Hall light/set" && $0.payloadText.contains("ON") })
        let echoed = state.receive("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":60}"#, at: evening + 1)
        let run = try #require(history(echoed, "back-door-light").first)
        #expect(run["status"]?.string == "ok")
        #expect(run["reason"]?.string?.contains("stateValue becomes false") == true)
        #expect(state.tick(now: evening + 119).publications.allSatisfy { $0.topic != "zigbee2mqtt/Hall light/set" })
        let ended = state.tick(now: evening + 121)
        #expect(
            ended.publications.contains { $0.topic == "zigbee2mqtt/Hall light/set" && $0.payloadText.contains("OFF") })

        let noon = try Date("2026-11-26T11:00:00Z", strategy: .iso8601)
        _ = state.receive("zigbee2mqtt/Back door", #"{"contact":true,"battery":90}"#, at: noon)
        let byDay = state.receive("zigbee2mqtt/Back door", #"{"contact":false,"battery":90}"#, at: noon)
        #expect(!byDay.publications.contains { $0.topic == "zigbee2mqtt/Hall light/set" })
        #expect(history(byDay, "back-door-light").first?["status"]?.string == "conditionsNotMet")
        #expect(history(byDay, "back-door-light").first?["summary"]?["condition"]?.string == "the sun is down")
    }

    @Test("a week of a daily 07:00 timer through the state machine: seven runs, each at 07:00 Berlin time")
    func weekOfTimer() throws {
        var state = try home()
        let added = ask(
            &state, "automation-add",
            #"{"name": "Morning", "triggers": [{"type": "calendar", "at": "07:00"}], "actions": [{"type": "notify","#
                + #" "message": "good morning"}]}"#,
            at: evening)
        #expect(added?["automation"]?["nextFire"]?.string == "2026-11-26T06:00:00Z")
        var notes: [String] = []
        for minute in 1...(7 * 1440) {
            let effects = state.tick(now: evening + Double(minute) * 60)
            notes += effects.publications.filter { $0.topic == "traitbridge/notifications/automations" }.map(
                \.payloadText)
        }
        #expect(notes.count == 7)
        #expect(notes.first?.contains(#""at":"2026-11-26T06:00:00Z""#) == true, "\(notes.first ?? "")")
        #expect(state.automations.runs(of: AutomationID("morning")).count == 7)
    }

    @Test("fires missed while the bridge was down are recorded; the one that asks runs once when the broker is up")
    func missedAtStart() throws {
        var state = try home()
        let definition =
            #"{"name": "Morning", "runMissed": true, "triggers": [{"type": "calendar", "at": "07:00"}],"#
            + #" "actions": [{"type": "notify", "message": "hi"}]}"#
        let added = state.handleMessage(
            topic: "traitbridge/bridge/request/automation-add", payload: Array(definition.utf8), now: evening,
            replyTo: Self.address)
        var stored: [UInt8]?
        for change in added.storeChanges { if case .automation(_, let bytes) = change { stored = bytes } }
        var restarted = try EngineFixtures.state()
        let later = evening + 3 * 86400
        let logs = restarted.restoreAutomations(
            definitions: [("morning", try #require(stored))], histories: [:], clock: evening, files: [], now: later)
        #expect(logs.contains { $0.message.contains("missed 3 timer fires") }, "\(logs.map(\.message))")
        #expect(restarted.automations.runs(of: AutomationID("morning")).first?["status"] == "missed")
        #expect(!restarted.tick(now: later).publications.contains { $0.topic.hasPrefix("traitbridge/notifications/") })
        _ = restarted.brokerConnected(now: later)
        let ran = restarted.tick(now: later + 1)
        #expect(ran.publications.contains { $0.topic == "traitbridge/notifications/automations" })
    }

    @Test(
        "refusals name the problem: a past fire date, a 4-minute recurrence, an unknown device, a solar trigger without a place",
        arguments: [
            (
                #"{"name": "A", "triggers": [{"type": "timer", "fireDate": "2026-11-25T17:00:00Z"}],"#
                    + #" "actions": [{"type": "notify", "message": "x"}]}"#,
                "is not in the future"
            ),
            (
                #"{"name": "A", "triggers": [{"type": "timer", "fireDate": "2026-11-26T07:00:00Z","#
                    + #" "recurrence": {"every": 4, "unit": "minutes"}}], "actions": [{"type": "notify","#
                    + #" "message": "x"}]}"#,
                "between 5 minutes and 5 weeks"
            ),
            (
                #"{"name": "A", "triggers": [{"type": "connectivity", "device": "nobody", "state": "offline"}],"#
                    + #" "actions": [{"type": "notify", "message": "x"}]}"#,
                "no device 'nobody'"
            ),
            (
                #"{"name": "A", "triggers": [{"type": "solar", "event": "sunset"}], "actions": [{"type": "notify","#
                    + #" "message": "x"}], "home": "Cabin"}"#,
                "needs the home's place"
            ),
            (
                // RFC 3339 with a fraction and an offset is read (17:00:00.5Z), then refused for its seconds.
                #"{"name": "A", "triggers": [{"type": "timer", "fireDate": "2026-11-25T18:00:00.5+01:00"}],"#
                    + #" "actions": [{"type": "notify", "message": "x"}]}"#,
                "the fire date 2026-11-25T17:00:00Z has seconds"
            ),
            (
                #"{"name": "A", "triggers": [{"type": "timer", "fireDate": "tomorrow"}],"#
                    + #" "actions": [{"type": "notify", "message": "x"}]}"#,
                "as an RFC 3339 time"
            ),
            (
                #"{"name": "A", "triggers": [], "actions": []}"#,
                "triggers: \"triggers\" must be a list with at least one entry"
            ),
        ])
    func refusals(definition: String, message: String) throws {
        var state = try home()
        ask(&state, "home-add", #"{"name": "Cabin"}"#, at: evening)
        let answer = ask(&state, "automation-add", definition, at: evening)
        #expect(answer?["status"]?.string == "error")
        #expect(answer?["message"]?.string?.contains(message) == true, "\(answer?["message"]?.string ?? "")")
        #expect(state.automations.isEmpty)
    }
}

extension Outgoing {
    var payloadText: String { String(decoding: payload, as: UTF8.self) }
}
