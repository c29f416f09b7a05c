import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `traitbridge rename` and `move` against a real mosquitto and a real `serve`: what they print,
/// their exit codes, that the names and rooms survive a restart of the bridge, and that any MQTT 5
/// client (`mosquitto_rr`) gets answers the same way.
@Suite("traitbridge rename and move", .serialized)
struct PlacementCommandTests {
    func serve(_ broker: MosquittoBroker, data: String) throws -> BridgeProcess {
        try BridgeProcess(
            ["serve", "--broker", broker.url, "--data-dir", data,
             "--mappings", CommandRunner.repository + "/mappings", "--log-level", "warning"], log: data + ".log")
    }

    @Test("rename and move print the result, show in status, and survive a restart; refusals and unknown devices exit 1 and 4")
    func renameMoveRestart() throws {
        let (broker, first, data) = try StatusCommandTests().home()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let renamed = try CommandRunner.run(["rename", "z2m-0x00158d0001000003", "Stair switch", "--broker", broker.url])
        #expect(renamed.exitCode == 0, "\(renamed.standardError)")
        #expect(renamed.standardOutput == "Stair switch (z2m-0x00158d0001000003) is in Entire Home\n")
        let moved = try CommandRunner.run(["move", "stair SWITCH", "Hallway", "--broker", broker.url])  // names match loosely
        #expect(moved.standardOutput == "Stair switch (z2m-0x00158d0001000003) is in Hallway\n", "\(moved.standardError)")
        let clash = try CommandRunner.run(["rename", "Stair switch", "Hall light", "--broker", broker.url])
        #expect(clash.exitCode == 1)
        #expect(clash.standardError == "error: rename: another device (z2m-0x00158d0001000001) is already called 'Hall light'; names must tell devices apart\n")
        let missing = try CommandRunner.run(["move", "Nobody", "Attic", "--broker", broker.url])
        #expect(missing.exitCode == 4)
        let usage = try CommandRunner.run(["rename", "Stair switch", "--broker", broker.url])
        #expect(usage.exitCode == 2)
        #expect(usage.standardError.contains("give a NAME, or --reset (not both)"))

        first.stop()
        let second = try serve(broker, data: data)
        defer { second.stop() }
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state", "traitbridge/devices/+/state"])
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        // zigbee2mqtt describes the relay again as "Relay" and it reports: the user's name stays.
        let devices = try String(contentsOfFile: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json", encoding: .utf8)
        try watcher.publish("zigbee2mqtt/bridge/devices", devices, retain: true)
        try watcher.publish("zigbee2mqtt/Relay", #"{"state_l1":"ON","state_l2":"OFF"}"#)
        let reported = watcher.waitFor("traitbridge/devices/z2m-0x00158d0001000003/state") { $0.payloadText.contains(#""onOff":true"#) }
        #expect(reported?.payloadText.contains(#""name":"Stair switch""#) == true, "\(reported?.payloadText ?? "no state")")
        let status = try CommandRunner.run(["status", "--broker", broker.url])
        let lines = status.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count > 2 && lines[2].hasPrefix("Stair switch  Hallway      OnOffPlugInUnit"), "the user's name and room first (rooms before the default room): \(status.standardOutput)")
        let json = try CommandRunner.run(["rename", "Stair switch", "--reset", "--json", "--broker", broker.url])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect(answer["status"] as? String == "ok")
        #expect(answer["name"] as? String == "Relay", "zigbee2mqtt's friendly_name again")
        #expect(answer["room"] as? String == "Hallway")
    }

    @Test("requests are MQTT 5 request/response: mosquitto_rr gets its answer on its response topic; a 3.1.1 client uses the topic form")
    func anyClient() throws {
        let rr = try #require(["/usr/bin/mosquitto_rr", "/usr/local/bin/mosquitto_rr"].first { FileManager.default.isExecutableFile(atPath: $0) },
                              "mosquitto_rr (package mosquitto-clients) is not installed")
        let (broker, serve, data) = try StatusCommandTests().home()
        defer { serve.stop(); try? FileManager.default.removeItem(atPath: data) }
        let port = try #require(broker.url.split(separator: ":").last.map(String.init))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: rr)
        process.arguments = ["-h", "127.0.0.1", "-p", port, "-V", "5", "-t", "traitbridge/bridge/request/move", "-e", "my-app/answers",
                             "-D", "publish", "correlation-data", "q-17", "-W", "10",
                             "-m", #"{"device": "z2m-0x00158d0001000002", "room": "Attic"}"#]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"status":"ok","device":"z2m-0x00158d0001000002","name":"Climate","room":"Attic"}"# + "\n")

        let app = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/response/#"])  // MQTT 3.1.1
        try app.publish("traitbridge/bridge/request/move/c-3", #"{"device": "z2m-0x00158d0001000002", "room": null}"#)
        let reply = try #require(app.waitFor("traitbridge/bridge/response/move/c-3"))
        #expect(reply.payloadText == #"{"status":"ok","device":"z2m-0x00158d0001000002","name":"Climate","room":"Entire Home"}"#)
    }

    @Test("with no broker, rename exits 3 and says which broker")
    func unreachable() throws {
        let result = try CommandRunner.run(["rename", "x", "y", "--broker", "mqtt://127.0.0.1:\(MosquittoBroker.freeLoopbackPort())", "--timeout", "2"])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot reach the broker at mqtt://127.0.0.1:"))
    }
}
