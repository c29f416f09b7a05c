import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// Automations in real time through a real mosquitto and a real `serve --automations DIR`: the
/// back door opens, the hall light is sent "on", and "off" again when the end action is due; the
/// history says so. A folder with a bad definition stops `serve` with file:line:col.
@Suite("traitbridge automation and serve --automations", .serialized)
struct AutomationCommandTests {
    static let definition = #"""
        {
          "id": "door-light",
          "name": "Door light",
          "triggers": [{"type": "attribute", "device": "z2m-0x00158d0001000006", "trait": "matter.BooleanState",
                        "attribute": "stateValue", "equals": false}],
          "actions": [{"type": "command", "device": "z2m-0x00158d0001000001", "trait": "matter.OnOff", "command": "on"}],
          "end": {"after": 2, "actions": [{"type": "command", "device": "z2m-0x00158d0001000001", "trait": "matter.OnOff", "command": "off"}]}
        }
        """#

    func folder(_ files: [String: String]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tb-automations-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8) }
        return folder
    }

    @Test("the back door opens: the hall light on at once and off 2 s later, in real time; the history shows both runs")
    func realTime() throws {
        let broker = try MosquittoBroker()
        let automations = try folder(["door-light.json": Self.definition])
        let data = automations + "-data"
        defer {
            try? FileManager.default.removeItem(atPath: automations)
            try? FileManager.default.removeItem(atPath: data)
            try? FileManager.default.removeItem(atPath: data + ".log")
        }
        let serve = try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--data-dir", data, "--mappings",
                CommandRunner.repository + "/mappings", "--automations", automations, "--log-level", "warning",
            ],
            log: data + ".log")
        defer { serve.stop() }
        let z2m = try TestMQTTClient(
            broker, subscribe: ["zigbee2mqtt/+/set", "traitbridge/automations/#", "traitbridge/bridge/state"])
        #expect(z2m.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        let devices = try String(
            contentsOfFile: CommandRunner.repository + "/examples/demo-home-zigbee2mqtt-devices.json", encoding: .utf8)
        try z2m.publish("zigbee2mqtt/bridge/state", #"{"state":"online"}"#, retain: true)
        try z2m.publish("zigbee2mqtt/bridge/devices", devices, retain: true)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":60}"#)
        try z2m.publish("zigbee2mqtt/Back door", #"{"contact":true,"battery":90}"#)
        #expect(z2m.waitFor("traitbridge/automations/door-light") != nil, "the automation is published")
        Thread.sleep(forTimeInterval: 0.3)  // the door's first report primes the trigger
        let opened = ContinuousClock.now
        try z2m.publish("zigbee2mqtt/Back door", #"{"contact":false,"battery":90}"#)
        let on = z2m.waitFor("zigbee2mqtt/Hall light/set") { $0.payloadText.contains("ON") }
        #expect(on != nil, "the light is sent on")
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":60}"#)
        let off = z2m.waitFor("zigbee2mqtt/Hall light/set", timeout: .seconds(10)) { $0.payloadText.contains("OFF") }
        #expect(off != nil, "and off again by the end action")
        #expect(ContinuousClock.now - opened >= .seconds(2), "not before its 2 s")
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":60}"#)
        #expect(
            z2m.waitFor("traitbridge/automations/door-light/history") { $0.payloadText.contains(#""end":true"#) } != nil
        )

        let history = try CommandRunner.run(["automation", "history", "Door light", "--broker", broker.url])
        #expect(history.exitCode == 0, "\(history.standardError)")
        let lines = history.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("ok (end): end action") == true, "\(history.standardOutput)")
        #expect(
            lines.dropFirst().first?.contains("ok: Back door matter.BooleanState.stateValue becomes false") == true,
            "\(history.standardOutput)")
        let list = try CommandRunner.run(["automation", "list", "--broker", broker.url])
        #expect(list.standardOutput.contains("Door light  yes      on events"), "\(list.standardOutput)")
        let disable = try CommandRunner.run(["automation", "disable", "door-light", "--broker", broker.url])
        #expect(disable.exitCode == 1)
        #expect(disable.standardError.contains("is defined in \(automations)/door-light.json; change it there"))
    }

    @Test("a folder with a bad definition: serve does not start and names the file, line, column and JSON path")
    func badFolder() throws {
        let bad = Self.definition.replacingOccurrences(of: #""type": "attribute""#, with: #""type": "atribute""#)
        let automations = try folder([
            "good.json": Self.definition.replacingOccurrences(of: "door-light", with: "good"), "bad.json": bad,
        ])
        defer { try? FileManager.default.removeItem(atPath: automations) }
        let result = try CommandRunner.run(["serve", "--automations", automations, "--broker", "mqtt://127.0.0.1:1"])
        #expect(result.exitCode == 2)
        #expect(
            result.standardError.contains(
                "\(automations)/bad.json:4:25: triggers[0].type: a trigger's \"type\" is timer, calendar, solar, attribute or connectivity"
            ),
            "\(result.standardError)")
        #expect(result.standardError.contains("1 problem in automations"))
    }
}
