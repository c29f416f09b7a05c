import Foundation
import Testing
import TraitBridgeCloud
import TraitBridgeModel

@testable import TraitBridgeEngine

@Suite("Command tracker: waiting commands, jobs under one counter, the PIN guard")
struct CommandTrackerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func command(_ device: String, _ id: String, deadline: Date, link: String? = nil) throws -> PendingCommand {
        var command = PendingCommand(
            deviceID: try DeviceID(device), correlationID: id, expected: [:], deadline: deadline,
            sink: .resultTopic("t/\(id)"))
        if let link { command.openLinkRequests["req-\(id)"] = (link, []) }
        return command
    }

    @Test("commands expire at their deadline, in the order they were sent, and only then")
    func expiry() throws {
        var tracker = CommandTracker()
        tracker.track(try command("d1", "late", deadline: start.addingTimeInterval(5)))
        tracker.track(try command("d1", "a", deadline: start.addingTimeInterval(1)))
        tracker.track(try command("d2", "b", deadline: start.addingTimeInterval(1)))
        let early = tracker.expire(at: start.addingTimeInterval(0.999))
        let due = tracker.expire(at: start.addingTimeInterval(1))
        #expect(early.isEmpty)
        #expect(due.map(\.correlationID) == ["a", "b"])
        #expect(tracker.waitingCount == 1)
        let settled = tracker.settle { $0.deviceID.rawValue == "d1" }
        #expect(settled.map(\.correlationID) == ["late"])
        #expect(tracker.waitingCount == 0)
    }

    @Test("a link request's command is found by its request id, kept or taken out as the update says")
    func linkRequests() throws {
        var tracker = CommandTracker()
        tracker.track(try command("d1", "x", deadline: start, link: "p"))
        tracker.track(try command("d2", "y", deadline: start, link: "q"))
        #expect(tracker.openRequests(to: "p") == ["req-x"])
        let kept = tracker.updateCommand(sentRequest: "req-x") {
            $0.awaitsFollowUp = true
            return true
        }
        #expect(kept?.awaitsFollowUp == true && tracker.waitingCount == 2)
        let nobody = tracker.updateCommand(sentRequest: "nobody") { _ in false }
        #expect(nobody == nil)
        let taken = tracker.updateCommand(sentRequest: "req-x") { _ in false }
        #expect(taken?.correlationID == "x" && tracker.waitingCount == 1 && tracker.openRequests(to: "p").isEmpty)
    }

    @Test("EXECUTE and fan-out jobs share one counter; each is handed back once, when its last outcome is known")
    func jobs() {
        var tracker = CommandTracker()
        let execute = tracker.startExecute(ExecuteJob(requestID: "r", reply: .waiter(1), order: ["a", "b"]))
        let fanOut = tracker.startFanOut(
            FanOutJob(
                kind: "group", id: "g", name: "G", entries: [FanOutEntry(), FanOutEntry()], commands: [[0], [1]],
                started: start),
            open: 2)
        #expect(execute != fanOut, "one counter: no two jobs share a number")
        let first = tracker.record(ExecuteOutcome(c2cID: "a", status: .success), job: execute)
        #expect(first == nil)
        #expect(tracker.hasOutcome(job: execute, for: "a") && !tracker.hasOutcome(job: execute, for: "b"))
        #expect(tracker.waitingExecutes.map(\.id) == [execute])
        let done = tracker.record(ExecuteOutcome(c2cID: "b", status: .pending), job: execute)
        #expect(done?.outcomes.count == 2 && tracker.waitingExecutes.isEmpty)
        let again = tracker.record(nil, job: execute)
        #expect(again == nil, "answered once")

        let refusal = CommandFailure(.deviceOffline, "offline")
        let one = tracker.settle(fanOut: fanOut, command: 1, status: "x", failure: refusal, note: nil)
        let outOfRange = tracker.settle(fanOut: fanOut, command: 7, status: "confirmed", failure: nil, note: nil)
        #expect(one == nil && outOfRange == nil)
        let finished = tracker.settle(fanOut: fanOut, command: 0, status: "confirmed", failure: nil, note: "n")
        #expect(finished?.entries.map(\.status) == ["confirmed", "refused"])
        #expect(finished?.entries[1].code == "deviceOffline" && finished?.entries[0].message == "n")
        let taken = tracker.takeFanOut(fanOut)
        #expect(taken == nil, "taken out when it finished")
    }

    @Test("wrong PINs are counted within the lockout, at most the bound kept, a bound of 0 or less keeps none")
    func pinGuard() {
        var tracker = CommandTracker()
        for second in 0..<7 { tracker.recordWrongPin(now: start.addingTimeInterval(Double(second)), keeping: 5) }
        let counts = [10.0, 903, 2_000].map {
            tracker.recentWrongPins(now: start.addingTimeInterval($0), lockoutSeconds: 900)
        }
        #expect(counts == [5, 3, 0], "the 5 newest kept; those 900 s old or more forgotten")
        tracker.recordWrongPin(now: start, keeping: -3)
        let none = tracker.recentWrongPins(now: start, lockoutSeconds: 900)
        #expect(none == 0)
    }
}
