import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `home`, `room`, `zone`, `group` and `scene` against a real mosquitto and a real `serve`: what
/// they print, their exit codes, the `--home` and `--zone` filters, a group command and a scene
/// run answered per member, and the layout surviving a restart.
@Suite("traitbridge home, room, zone, group, scene", .serialized)
struct LayoutCommandTests {
    func run(_ arguments: [String], _ broker: MosquittoBroker) throws -> CommandRunner.Result {
        try CommandRunner.run(arguments + ["--broker", broker.url])
    }

    @Test("a zone, a group and a scene made from the CLI; commands answered per member; all kept across a restart")
    func layoutEndToEnd() throws {
        let (broker, first, data) = try StatusCommandTests().home()  // Hall light online, Relay offline, Climate unknown
        defer { try? FileManager.default.removeItem(atPath: data) }
        let z2m = try TestMQTTClient(broker, subscribe: ["zigbee2mqtt/+/set"])

        let homes = try run(["home", "list"], broker)
        #expect(homes.exitCode == 0, "\(homes.standardError)")
        #expect(homes.standardOutput.contains("* My Home") && homes.standardOutput.hasSuffix("1 home (* primary)\n"))
        #expect(try run(["room", "add", "Hall"], broker).standardOutput == "added room 'Hall' to 'My Home'\n")
        let clash = try run(["room", "add", "hall"], broker)
        #expect(clash.exitCode == 1)
        #expect(
            clash.standardError.contains("room name 'hall' is the same as the existing 'Hall'"),
            "\(clash.standardError)")
        #expect(try run(["move", "Hall light", "Hall"], broker).exitCode == 0)
        let zone = try run(["zone", "add", "Downstairs", "Hall"], broker)
        #expect(zone.standardOutput == "added zone 'Downstairs' (Hall)\n", "\(zone.standardError)")
        let zoned = try run(["status", "--zone", "downstairs"], broker)
        #expect(zoned.standardOutput.contains("Hall light") && !zoned.standardOutput.contains("Climate"))
        #expect(zoned.standardOutput.contains("1 device"), "\(zoned.standardOutput)")

        let group = try run(["group", "add", "Lamps", "Hall light", "Relay/switch_l1"], broker)
        #expect(group.standardOutput == "added group 'Lamps' with 2 members\n", "\(group.standardError)")
        let groups = try run(["group", "list"], broker)
        #expect(groups.standardOutput.contains("Lamps  My Home  2        partiallyOnline"), "\(groups.standardOutput)")
        // The light is sent the command; the offline relay is refused with its code: exit 5 (some done).
        let command = try run(["group", "command", "Lamps", "matter.OnOff.off"], broker)
        #expect(command.exitCode == 5, "\(command.standardError)")
        #expect(command.standardOutput.contains("✓ Hall light: assumed"), "\(command.standardOutput)")
        #expect(command.standardOutput.contains("✗ Relay/switch_l1: refused (deviceOffline)"))
        #expect(command.standardOutput.hasSuffix("partial: 1 assumed, 1 refused\n"))
        #expect(z2m.waitFor("zigbee2mqtt/Hall light/set") { $0.payloadText.contains("OFF") } != nil)

        let captured = try run(["scene", "capture", "Hall now", "--group", "Lamps"], broker)
        #expect(captured.exitCode == 0, "\(captured.standardError)")
        #expect(captured.standardOutput.hasPrefix("added scene 'Hall now': "), "\(captured.standardOutput)")
        let scene = try run(["scene", "run", "hall now", "--json"], broker)
        #expect(scene.exitCode == 0, "\(scene.standardOutput) \(scene.standardError)")
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data(scene.standardOutput.utf8)) as? [String: Any])
        #expect(answer["status"] as? String == "ok" && answer["scene"] as? String == "Hall now")
        let scenes = try run(["scene", "list"], broker)
        #expect(scenes.standardOutput.contains("Good Morning") && scenes.standardOutput.contains("Hall now"))
        #expect(scenes.standardOutput.contains("ok at 20"), "the last run: \(scenes.standardOutput)")

        #expect(
            try run(["home", "add", "Beach House"], broker).standardOutput == "added home 'Beach House' (beach-house)\n"
        )
        let moved = try run(["move", "Climate", "--home", "Beach House"], broker)
        #expect(
            moved.standardOutput == "Climate (z2m-0x00158d0001000002) is in Entire Home (Beach House)\n",
            "\(moved.standardError)")
        let beach = try run(["devices", "--home", "beach house"], broker)
        #expect(
            beach.standardOutput.contains("Climate") && beach.standardOutput.hasSuffix("1 device\n"),
            "\(beach.standardOutput)")

        first.stop()
        let second = try PlacementCommandTests().serve(broker, data: data)
        defer { second.stop() }
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        let zones = try run(["zone", "list"], broker)
        #expect(zones.standardOutput.contains("Downstairs  My Home  Hall"), "\(zones.standardOutput)")
        let after = try run(["devices", "--home", "Beach House"], broker)
        #expect(after.standardOutput.contains("Climate"), "the device stays in its home: \(after.standardOutput)")
        let list = try run(["home", "list"], broker)
        #expect(list.standardOutput.contains("Beach House") && list.standardOutput.hasSuffix("2 homes (* primary)\n"))
        let shown = try run(["group", "show", "lamps"], broker)
        #expect(shown.standardOutput.hasPrefix("Lamps (my-home.group.lamps) in My Home"), "\(shown.standardOutput)")
        // Shared values in people's words, then as sent: "  Power: on  (matter.OnOff.onOff = true)".
        for line in shown.standardOutput.split(separator: "\n") where line.contains(" = ") && !line.hasSuffix("mixed") {
            #expect(
                line.wholeMatch(of: #/  [A-Z][^:]*: .+  \([a-z]+\.[A-Za-z]+\.[A-Za-z0-9]+ = .+\)/#) != nil, "\(line)")
        }
        if shown.standardOutput.contains("matter.OnOff.onOff = true") {
            #expect(shown.standardOutput.contains("  Power: on  (matter.OnOff.onOff = true)"))
        }
    }
}
