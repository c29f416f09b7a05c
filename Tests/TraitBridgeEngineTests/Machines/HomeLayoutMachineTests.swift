import Foundation
import Testing
import TraitBridgeAutomation
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

@testable import TraitBridgeEngine

@Suite("Home layout state: placements, groups by device, topics published on change")
struct HomeLayoutMachineTests {
    @Test("an empty placement is none; topics publish on change and those that went are cleared once")
    func placementsAndTopics() throws {
        var layout = HomeLayoutState()
        let lamp = try DeviceID("lamp")
        layout.setPlacement(UserPlacement(name: "Desk"), of: lamp)
        #expect(layout.placement(of: lamp)?.name == "Desk")
        layout.setPlacement(UserPlacement(), of: lamp)
        #expect(layout.placement(of: lamp) == nil)

        let first = [
            layout.publish("homes/a", hash: 1), layout.publish("homes/a", hash: 1), layout.publish("g/b", hash: 2),
        ]
        #expect(first == [true, false, true])
        let gone = layout.removeTopics(notIn: ["homes/a": []])
        #expect(gone == ["g/b"])
        let goneAgain = layout.removeTopics(notIn: ["homes/a": []])
        #expect(goneAgain.isEmpty, "cleared once")
        layout.forgetEverythingPublished()
        let again = layout.publish("homes/a", hash: 1)
        #expect(again, "after a reconnect: published again")
    }

    @Test("groups by device and scene runs")
    func groupsAndRuns() throws {
        var layout = HomeLayoutState()
        let lamp = try DeviceID("lamp")
        let group = GroupID("home.group.lights")
        #expect(!layout.hasGroups && layout.groups(of: lamp).isEmpty)
        layout.setGroups([lamp: [group]])
        #expect(layout.hasGroups && layout.groups(of: lamp) == [group])
        let scene = SceneID("home.scene.evening")
        layout.setLastRun(["status": "ok"], of: scene)
        #expect(layout.lastRun(of: scene) == ["status": "ok"])
        layout.setLastRun(nil, of: scene)
        #expect(layout.lastRun(of: scene) == nil)
    }
}

@Suite("Automation state: runs kept bounded, fires that wait, the clock written once a minute")
struct AutomationMachineTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("runs newest first, at most historyLength; a restore is bounded too")
    func runs() {
        var automations = AutomationState()
        let id = AutomationID("morning")
        for index in 0..<(AutomationState.historyLength + 5) { automations.record(.int(Int64(index)), of: id) }
        let runs = automations.runs(of: id)
        #expect(runs.count == AutomationState.historyLength)
        #expect(runs.first == .int(Int64(AutomationState.historyLength + 4)), "newest first")
        automations.restoreRuns(Array(repeating: .null, count: 50), of: id)
        #expect(automations.runs(of: id).count == AutomationState.historyLength)
    }

    @Test("waiting fires are taken once; no clock write without automations")
    func waitingAndClock() {
        var automations = AutomationState()
        automations.wait(AutomationFire(automation: AutomationID("a"), reason: "missed", at: now))
        let first = automations.takeWaiting()
        let second = automations.takeWaiting()
        #expect(first.count == 1 && second.isEmpty)
        let due = automations.takeClockWrite(now: now)
        #expect(!due, "nothing to keep a clock for")
        let topics = [automations.publish("a", hash: 1), automations.publish("a", hash: 1), automations.unpublish("a")]
        #expect(topics == [true, false, true])
    }
}
