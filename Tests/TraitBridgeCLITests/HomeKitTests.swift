import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeTesting

@testable import TraitBridgeCLI

/// TraitBridge as a HomeKit bridge against a real controller: aiohomekit finds it by mDNS (Avahi,
/// in a network sandbox), pairs with the setup code, lists, reads, writes (confirmed by the
/// simulated devices on MQTT), gets events, sees an offline trait, lists and removes its pairing.
@Suite(
    "HomeKit bridge end to end", .serialized,
    .enabled(if: HomeKitPeers.unavailableReason == nil, "\(HomeKitPeers.unavailableReason ?? "")"))
struct HomeKitTests {
    static let code = "031-45-154"

    /// The simulated home: zigbee2mqtt's light, lock and contact sensor, Shelly's blinds.
    static func scenario(
        in folder: URL, names: [String] = ["Hall light", "Front door lock", "Back door", "Living room blinds"]
    ) throws -> String {
        let devices = folder.appendingPathComponent("z2m-devices.json")
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: CommandRunner.repository + "/examples/demo-home-zigbee2mqtt-devices.json"),
            to: devices)
        let home = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.repository + "/examples/demo-home.json")))
        let all = ((home as? [String: Any])?["devices"] as? [[String: Any]]) ?? []
        let scenario: [String: Any] = [
            "zigbee2mqtt": ["baseTopic": "zigbee2mqtt", "devicesFile": devices.path],
            "devices": all.filter { names.contains($0["name"] as? String ?? "") },
        ]
        let path = folder.appendingPathComponent("home.json").path
        try JSONSerialization.data(withJSONObject: scenario).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let light = "z2m-0x00158d0001000001", lock = "z2m-0x00158d0001000004"
    static let contact = "z2m-0x00158d0001000006", blinds = "shelly-shellyswitch25-485519032a7e"

    /// The aid of the accessory of device `id` (its serial number) and the iid of each characteristic
    /// type in it (the first of each).
    static func accessory(_ id: String, in list: [[String: Any]]) -> (aid: Int, iids: [String: Int])? {
        for accessory in list {
            let characteristics = (accessory["services"] as? [[String: Any]] ?? []).flatMap {
                $0["characteristics"] as? [[String: Any]] ?? []
            }
            guard
                characteristics.contains(where: {
                    ($0["type"] as? String)?.hasPrefix("00000030") == true
                        && $0["value"] as? String == id
                }), let aid = accessory["aid"] as? Int
            else { continue }
            var iids: [String: Int] = [:]
            for item in characteristics {
                guard let type = item["type"] as? String, let iid = item["iid"] as? Int else { continue }
                let short = String(type.prefix(8).drop { $0 == "0" })
                if iids[short] == nil { iids[short] = iid }
            }
            return (aid, iids)
        }
        return nil
    }

    @Test("aiohomekit pairs by mDNS, controls the light, lock and blinds, gets events, sees offline, unpairs")
    func endToEnd() throws {
        let bed = try HomeKitTestBed(name: "homekit")
        defer { bed.remove() }
        let broker = bed.broker
        let folder = bed.folder
        let serveLog = bed.serveLog
        let serve = try bed.serve(config: try bed.configure(["name": "TraitBridge Test"]))
        defer { serve.stop() }
        let simulator = try bed.simulate()
        defer { simulator.stop() }
        let observer = try TestMQTTClient(broker, subscribe: ["zigbee2mqtt/#", "shellies/#"])
        #expect(
            eventually(timeout: .seconds(20)) { LogFile.read(serveLog).contains("HomeKit: announced") },
            "\(LogFile.read(serveLog).suffix(1500))")
        let idLine = LogFile.read(serveLog).split(separator: "\n").first { $0.contains("HomeKit: bridge") } ?? ""
        let pairingID = idLine.split(separator: "(id ").last.map { String($0.prefix(17)) } ?? ""
        #expect(pairingID.count == 17, "\(idLine)")

        let controller = try bed.controller()
        defer { controller.stop() }
        let found = controller.send(["op": "find", "id": pairingID])
        #expect(found?["ok"] as? Bool == true, "found by mDNS: \(found ?? [:]) \(LogFile.read(controller.log))")
        #expect(found?["address"] as? String == bed.sandbox.hostAddress)
        #expect((found?["statusFlags"] as? Int ?? 0) & 1 == 1, "announced as not paired yet")

        // Wrong codes: refused; after three, tries are told to wait (HAP's backoff) for 5 s.
        for attempt in 1...3 {
            let wrong = controller.send(["op": "pair", "id": pairingID, "code": "111-22-333"])
            let error = wrong?["error"] as? String ?? ""
            #expect(error.hasPrefix("AuthenticationError"), "attempt \(attempt): \(wrong ?? [:])")
        }
        let throttled = controller.send(["op": "pair", "id": pairingID, "code": Self.code])
        let throttledError = throttled?["error"] as? String ?? ""
        #expect(throttledError.hasPrefix("BackoffError"), "\(throttled ?? [:])")
        Thread.sleep(forTimeInterval: 5.5)  // the first wait is 5 s
        let paired = controller.send(["op": "pair", "id": pairingID, "code": Self.code])
        #expect(paired?["ok"] as? Bool == true, "\(paired ?? [:]) \(LogFile.read(controller.log).suffix(2000))")
        guard paired?["ok"] as? Bool == true else { return }

        // A scene (the light off), made as a user would; it becomes a switch.
        let actions = folder.appendingPathComponent("scene.json")
        try Data(#"[{"device": "\#(Self.light)", "trait": "matter.OnOff", "command": "off"}]"#.utf8).write(to: actions)
        let added = try CommandRunner.run([
            "scene", "add", "Lights off", "--actions", actions.path, "--broker", broker.url,
        ])
        #expect(added.exitCode == 0, "\(added.standardOutput) \(added.standardError)")

        // The accessories: the bridge, each simulated device once it is discovered, and the scene.
        var list: [[String: Any]] = []
        #expect(
            eventually(timeout: .seconds(20)) {
                list = controller.send(["op": "accessories"])?["accessories"] as? [[String: Any]] ?? []
                return [Self.light, Self.lock, Self.blinds, Self.contact].allSatisfy {
                    Self.accessory($0, in: list) != nil
                } && "\(list)".contains("Lights off")
            }, "\(list.count) accessories")
        guard let light = Self.accessory(Self.light, in: list), let lock = Self.accessory(Self.lock, in: list),
            let blinds = Self.accessory(Self.blinds, in: list), let on = light.iids["25"],
            let lockTarget = lock.iids["1E"], let lockCurrent = lock.iids["1D"], let position = blinds.iids["6D"],
            let target = blinds.iids["7C"], let fault = light.iids["77"]
        else {
            Issue.record("missing services: \(list)")
            return
        }
        func value(_ aid: Int, _ iid: Int) -> Any? {
            (controller.send(["op": "get", "ids": [[aid, iid]]])?["values"] as? [String: Any])?["\(aid).\(iid)"]
                .flatMap { ($0 as? [String: Any])?["value"] }
        }
        #expect(value(light.aid, on) as? Bool == false, "the light is off")

        // Writes go through the unified command path to the devices and come back confirmed.
        let put = controller.send(["op": "put", "values": [[light.aid, on, true]]])
        #expect(put?["ok"] as? Bool == true && (put?["statuses"] as? [String: Any])?.isEmpty == true, "\(put ?? [:])")
        #expect(observer.waitFor("zigbee2mqtt/Hall light/set") { $0.payloadText.contains("ON") } != nil)
        #expect(eventually(timeout: .seconds(5)) { value(light.aid, on) as? Bool == true })
        _ = controller.send(["op": "put", "values": [[lock.aid, lockTarget, 0]]])
        #expect(observer.waitFor("zigbee2mqtt/Front door lock/set") { $0.payloadText.contains("UNLOCK") } != nil)
        #expect(eventually(timeout: .seconds(5)) { value(lock.aid, lockCurrent) as? Int == 0 }, "unsecured")
        _ = controller.send(["op": "put", "values": [[blinds.aid, target, 30]]])
        #expect(eventually(timeout: .seconds(8)) { value(blinds.aid, position) as? Int == 30 }, "the blinds at 30 %")

        // A scene of the home is a switch: turning it on runs the scene (Siri's way to it).
        let sceneSwitch = list.first { accessory in
            let items = (accessory["services"] as? [[String: Any]] ?? []).flatMap {
                $0["characteristics"] as? [[String: Any]] ?? []
            }
            return items.contains { $0["value"] as? String == "Lights off" }
        }
        let sceneAID = sceneSwitch?["aid"] as? Int ?? 0
        let sceneOn =
            ((sceneSwitch?["services"] as? [[String: Any]])?.last?["characteristics"] as? [[String: Any]])?
            .first?["iid"] as? Int ?? 0
        let ran = controller.send(["op": "put", "values": [[sceneAID, sceneOn, true]]])
        #expect((ran?["statuses"] as? [String: Any])?.isEmpty == true, "\(ran ?? [:])")
        #expect(observer.waitFor("zigbee2mqtt/Hall light/set") { $0.payloadText.contains("OFF") } != nil)
        #expect(LogFile.read(serveLog).contains("HomeKit: scene Lights off run: ok"))
        #expect(value(sceneAID, sceneOn) as? Bool == false, "a scene's switch reads off again")

        // Events: a change on MQTT reaches the subscribed controller.
        #expect(
            controller.send(["op": "subscribe", "ids": [[light.aid, on], [light.aid, fault]]])?["ok"] as? Bool == true)
        // (The scene turned the light off: the simulated light says it is on again.)
        try observer.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":60,"color_temp":370}"#)
        var events: [[Any]] = []
        #expect(
            eventually(timeout: .seconds(5)) {
                events += controller.takeEvents()
                return events.contains {
                    $0.count == 3 && $0[0] as? Int == light.aid && $0[1] as? Int == on
                        && $0[2] as? Bool == true
                }
            }, "\(events)")

        // The light's source says it is offline: its characteristics answer -70402, its StatusFault
        // is 1; the lock, another device, is unaffected.
        try observer.publish("zigbee2mqtt/Hall light/availability", #"{"state":"offline"}"#, retain: true)
        var offline: [String: Any] = [:]
        #expect(
            eventually(timeout: .seconds(5)) {
                offline =
                    (controller.send(["op": "get", "ids": [[light.aid, on]]])?["values"] as? [String: Any])?[
                        "\(light.aid).\(on)"] as? [String: Any] ?? [:]
                return offline["status"] as? Int == -70402
            }, "\(offline)")
        #expect(value(light.aid, fault) as? Int == 1)
        #expect(value(lock.aid, lockCurrent) as? Int == 0)

        // Pairings: this controller, an admin; removed, the bridge is unpaired and says so by mDNS.
        let pairings = controller.send(["op": "pairings"])?["pairings"] as? [[String: Any]] ?? []
        #expect(pairings.count == 1 && pairings.first?["controllerType"] as? String == "admin", "\(pairings)")
        #expect(controller.send(["op": "unpair"])?["ok"] as? Bool == true)
        #expect(
            eventually(timeout: .seconds(15)) {
                (controller.send(["op": "find", "id": pairingID])?["statusFlags"] as? Int ?? 0) & 1 == 1
            }, "announced as unpaired again")
        #expect(LogFile.read(serveLog).contains("was removed"))
    }
}
