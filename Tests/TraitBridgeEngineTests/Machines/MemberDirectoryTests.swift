import Foundation
import Testing
import TraitBridgeModel
import TraitBridgeSources

@testable import TraitBridgeEngine

@Suite("Member directory: members, targets, joins, waits and references kept in step")
struct MemberDirectoryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func member(
        _ id: String, references: [String], joining: SourceDevice.Joining = .owns
    ) throws -> SourceDevice {
        let sources = references.map { SourceReference(family: "test", instance: "default", nativeID: $0) }
        return SourceDevice(
            device: try Device(id: try DeviceID(id), name: id, sources: sources), stalenessBudget: .seconds(60),
            joining: joining)
    }

    static func reference(_ native: String) -> SourceReference {
        SourceReference(family: "test", instance: "default", nativeID: native)
    }

    @Test("a joined member is listed on its target until it moves, and a new target forgets its keys")
    func joins() throws {
        var directory = MemberDirectory()
        let plug = try DeviceID("plug")
        let meter = try DeviceID("meter")
        directory.record(try Self.member("plug", references: ["p"]), plugin: 0, locality: .localPeer)
        directory.record(
            try Self.member("meter", references: ["m"], joining: .sameIdentity), plugin: 1, locality: .remote)
        directory.setTarget(plug, plug)
        directory.setTarget(meter, plug)
        directory.setKeyMap(meter, ["power": "meter-power"])
        #expect(directory.joined(to: plug) == [meter])
        #expect(directory.target(of: Self.reference("m")) == plug, "a reference resolves through its member")
        #expect(directory[Self.reference("m")]?.locality == .remote)

        directory.setTarget(meter, meter)  // it stands alone again
        #expect(directory.joined(to: plug).isEmpty)
        #expect(directory[meter]?.keyMap.isEmpty == true, "keys on the old target are forgotten")
    }

    @Test("a member waiting for its mergeWith target is listed as waiting, and no longer once placed or removed")
    func waits() throws {
        var directory = MemberDirectory()
        let hub = try DeviceID("hub")
        let sensor = try DeviceID("sensor")
        directory.record(
            try Self.member("sensor", references: ["s"], joining: .device(hub)), plugin: 0, locality: .remote)
        directory.setTarget(sensor, nil)
        directory.keepWaiting("t/sensor", for: sensor)
        #expect(directory.waiting(for: hub) == [sensor])
        directory.setTarget(sensor, hub)
        #expect(directory.waiting(for: hub).isEmpty && directory.joined(to: hub) == [sensor])
        #expect(directory.takeWaitingTopics(of: sensor) == ["t/sensor"])
        #expect(directory.takeWaitingTopics(of: sensor) == nil, "taken once")

        directory.setTarget(sensor, nil)
        directory.keepWaiting("t/sensor", for: sensor)
        let removed = directory.remove(sensor)
        #expect(removed?.id == sensor)
        #expect(directory.waiting(for: hub).isEmpty && directory[sensor] == nil)
        #expect(directory.takeWaitingTopics(of: sensor) == nil, "a removed member's topics go with it")
        #expect(directory[Self.reference("s")] == nil, "and its references")
    }

    @Test("described again without a reference: that reference is forgotten; a removed owner releases its joiners")
    func referencesAndRelease() throws {
        var directory = MemberDirectory()
        let plug = try DeviceID("plug")
        directory.record(try Self.member("plug", references: ["a", "b"]), plugin: 0, locality: .localPeer)
        directory.heard(Self.reference("a"), topic: "t/a", now: now)
        directory.record(try Self.member("plug", references: ["a"]), plugin: 0, locality: .localPeer)
        #expect(directory[Self.reference("b")] == nil)
        #expect(directory[Self.reference("a")]?.liveness.lastSeen == now, "what it said of itself stays")

        directory.setTarget(plug, plug)
        let meter = try DeviceID("meter")
        directory.record(
            try Self.member("meter", references: ["m"], joining: .sameIdentity), plugin: 1, locality: .remote)
        directory.setTarget(meter, plug)
        #expect(directory.release(joinedTo: plug) == [meter])
        #expect(directory.target(of: meter) == nil && directory.joined(to: plug).isEmpty)
    }

    @Test("an availability word before the device is described is kept; the same word twice is no news")
    func availability() {
        var directory = MemberDirectory()
        let online = LinkState(status: .up, since: now, origin: "shellies/x/online")
        let first = directory.setAvailability(
            Self.reference("x"), online, plugin: 2, locality: .localPeer, staleness: .seconds(900))
        let again = directory.setAvailability(
            Self.reference("x"), online, plugin: 2, locality: .localPeer, staleness: .seconds(900))
        #expect(first && !again)
        #expect(directory[Self.reference("x")]?.owner == nil && directory[Self.reference("x")]?.plugin == 2)
        #expect(directory.target(of: Self.reference("x")) == nil)
    }
}
