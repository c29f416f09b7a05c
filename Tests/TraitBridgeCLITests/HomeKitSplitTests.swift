import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeTesting

@testable import TraitBridgeCLI

/// More devices than one bridge holds: serve starts a second bridge, its own accessory with its own
/// id, pairing and announcement; aiohomekit pairs with each and finds every device on exactly one;
/// after a restart the bridges are back at once with the ids they had.
@Suite(
    "HomeKit bridges: more devices than one bridge holds", .serialized,
    .enabled(if: HomeKitPeers.unavailableReason == nil, "\(HomeKitPeers.unavailableReason ?? "")"))
struct HomeKitSplitTests {
    /// The pairing id of bridge `name` from serve's log (its "HomeKit: bridge" line), or nil.
    static func pairingID(of name: String, in log: String) -> String? {
        let line = log.split(separator: "\n").last { $0.contains("HomeKit: bridge \"\(name)\" (id ") }
        return line?.split(separator: "(id ").last.map { String($0.prefix(17)) }
    }

    /// The pairing ids of the bridges "Split", "Split 2"… serve's log names, in order.
    static func bridgeIDs(in log: String) -> [String] {
        var ids: [String] = []
        for slot in 1...16 {
            guard let id = pairingID(of: slot == 1 ? "Split" : "Split \(slot)", in: log) else { break }
            ids.append(id)
        }
        return ids
    }

    /// Subscribes to the StatusFault of `device` (its accessory in `list`), publishes the device's
    /// zigbee2mqtt availability offline, and tells whether the event with 1 arrived (bounded).
    static func faultEvent(
        of device: String, in list: [[String: Any]], controller: HomeKitController, bed: HomeKitTestBed
    ) throws -> Bool {
        guard let accessory = HomeKitTests.accessory(device, in: list), let fault = accessory.iids["77"],
            let name = list.first(where: { $0["aid"] as? Int == accessory.aid }).flatMap(Self.name(of:))
        else { return false }
        guard controller.send(["op": "subscribe", "ids": [[accessory.aid, fault]]])?["ok"] as? Bool == true else {
            return false
        }
        let publisher = try TestMQTTClient(bed.broker, subscribe: [])
        try publisher.publish("zigbee2mqtt/\(name)/availability", #"{"state":"offline"}"#, retain: true)
        var events: [[Any]] = []
        return eventually(timeout: .seconds(8)) {
            events += controller.takeEvents()
            return events.contains { $0.count == 3 && $0[0] as? Int == accessory.aid && $0[2] as? Int == 1 }
        }
    }

    /// The accessory's name (its Accessory Information's Name: the device's name).
    static func name(of accessory: [String: Any]) -> String? {
        (accessory["services"] as? [[String: Any]] ?? []).first.flatMap { $0["characteristics"] as? [[String: Any]] }?
            .first { ($0["type"] as? String)?.hasPrefix("00000023") == true }?["value"] as? String
    }

    /// The serial numbers (device or scene ids) of the bridged accessories in aiohomekit's list.
    static func serials(in list: [[String: Any]]) -> [String] {
        list.filter { $0["aid"] as? Int != 1 }.compactMap { accessory in
            (accessory["services"] as? [[String: Any]] ?? []).flatMap {
                $0["characteristics"] as? [[String: Any]] ?? []
            }
            .first { ($0["type"] as? String)?.hasPrefix("00000030") == true }?["value"] as? String
        }
    }

    @Test("three accessories per bridge: bridges start as devices come, each paired, none shared; back after a restart")
    func split() throws {
        let bed = try HomeKitTestBed(name: "hk-split")
        defer { bed.remove() }
        let config = try bed.configure(["name": "Split", "accessoriesPerBridge": 3])
        let serveLog = bed.serveLog
        var running = try bed.serve(config: config)
        defer { running.stop() }
        let simulator = try bed.simulate()
        defer { simulator.stop() }
        // The simulated home's devices and scenes arrive one after another: each new one that does not
        // fit starts a bridge. Waited for until no bridge has started for 3 s.
        let devices = [HomeKitTests.light, HomeKitTests.lock, HomeKitTests.blinds, HomeKitTests.contact]
        var bridges: [String] = []
        var stableSince = ContinuousClock.now
        #expect(
            eventually(timeout: .seconds(30)) {
                let log = LogFile.read(serveLog)
                let now = Self.bridgeIDs(in: log)
                if now != bridges { (bridges, stableSince) = (now, .now) }
                return devices.allSatisfy { log.contains("tb.device.id=\($0) ") }
                    && ContinuousClock.now - stableSince > .seconds(3)
            }, "\(LogFile.read(serveLog).suffix(2000))")
        #expect(bridges.count >= 2, "\(bridges)")
        #expect(LogFile.read(serveLog).contains("bridge 2 \"Split 2\" starts; add it in the Home app too"))

        let controller = try bed.controller()
        defer { controller.stop() }
        // Each bridge paired on its own, with the same setup code: at most three accessories on each,
        // none on two, the named devices among them.
        var offered: [String] = []
        var eventSeen = false
        for (index, id) in bridges.enumerated() {
            let paired = controller.send(["op": "pair", "id": id, "code": HomeKitTests.code])
            #expect(paired?["ok"] as? Bool == true, "pairing \(id): \(paired ?? [:]) \(LogFile.read(controller.log))")
            let list = controller.send(["op": "accessories"])?["accessories"] as? [[String: Any]] ?? []
            let serials = Self.serials(in: list)
            #expect(!serials.isEmpty && serials.count <= 3, "\(id): \(serials)")
            offered += serials
            // On a bridge started while serve ran, a zigbee2mqtt device going offline on MQTT reaches
            // the controller as its StatusFault's event.
            if index > 0, !eventSeen, let device = serials.first(where: { $0.hasPrefix("z2m-") }) {
                eventSeen = try Self.faultEvent(of: device, in: list, controller: controller, bed: bed)
                #expect(eventSeen, "StatusFault event of \(device) on bridge \(index + 1)")
            }
        }
        #expect(eventSeen, "a zigbee2mqtt device on a bridge started later: \(offered)")
        #expect(Set(offered).count == offered.count, "each accessory on one bridge: \(offered)")
        #expect(Set(devices).isSubset(of: Set(offered)), "\(offered)")
        #expect(bridges.count == (offered.count + 2) / 3, "as few bridges as hold \(offered.count): \(bridges)")

        // A restart: every bridge starts from the registry at once, with its id, and stays paired.
        running.stop()
        try Data().write(to: URL(fileURLWithPath: serveLog))
        running = try bed.serve(config: config)
        #expect(
            eventually(timeout: .seconds(20)) { Self.bridgeIDs(in: LogFile.read(serveLog)) == bridges },
            "\(LogFile.read(serveLog).suffix(2000))")
        #expect(!LogFile.read(serveLog).contains("starts; add it in the Home app too"), "not a new bridge")
        #expect(
            eventually(timeout: .seconds(15)) {
                (controller.send(["op": "find", "id": bridges.last ?? ""])?["statusFlags"] as? Int ?? 1) & 1 == 0
            }, "the last bridge announced as paired")
    }
}
