import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

#if canImport(Glibc)
    import Glibc
#endif

/// `traitbridge status` against a real broker and a real `serve`.
@Suite("traitbridge status", .serialized)
struct StatusCommandTests {
    /// A broker, `serve`, and a pretend zigbee2mqtt with the three demo devices: the light online,
    /// the climate sensor never heard, the relay offline.
    func home() throws -> (MosquittoBroker, BridgeProcess, String) {  // also used by ShowCommandTests
        let broker = try MosquittoBroker()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tb-status-\(UUID().uuidString)").path
        let serve = try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--data-dir", data,
                "--mappings", CommandRunner.repository + "/mappings", "--log-level", "warning",
            ], log: data + ".log")
        let z2m = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+/state"])
        let devices = try String(
            contentsOfFile: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json", encoding: .utf8)
        #expect(
            eventually {
                (try? z2m.publish("zigbee2mqtt/bridge/devices", devices, retain: true)) != nil
                    && !z2m.topics(prefix: "traitbridge/devices/").isEmpty
            })
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#)
        try z2m.publish("zigbee2mqtt/Relay/availability", "offline", retain: true)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000003/state") {
                $0.payloadText.contains(#""connectivityState":"offline""#)
            } != nil)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") {
                $0.payloadText.contains(#""connectivityState":"online""#)
            } != nil)
        return (broker, serve, data)
    }

    @Test("a table with one line per device, reasons for those not online, and a summary")
    func table() throws {
        let (broker, serve, data) = try home()
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: data)
        }
        let result = try CommandRunner.run(["status", "--broker", broker.url])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "bridge: online (traitbridge/bridge/state)")
        #expect(
            lines[1].hasPrefix(
                "NAME        ROOM         TYPE                   STATE                CONNECTIVITY  LOCALITY     LAST UPDATE (UTC)"
            ))
        // By room, then name; STATE in people's words (the light's level 100 of 254 is 39 %).
        #expect(
            lines[2].hasPrefix(
                "Climate     Entire Home  TemperatureSensor                           unknown       unspecified  never")
        )
        #expect(lines[2].hasSuffix("nothing heard yet"))
        #expect(
            lines[3].hasPrefix(
                "Hall light  Entire Home  ColorTemperatureLight  on, brightness 39 %  online        localPeer    20"),
            "\(lines)")
        #expect(lines[4].hasSuffix("availability topic zigbee2mqtt/Relay/availability said offline"))
        #expect(lines.last == "3 devices: 1 online, 0 partially online, 1 offline, 1 unknown")
    }

    @Test("--json, a filter by name, and the exit codes for a missing device (4) and an unreachable broker (3)")
    func jsonFilterAndExitCodes() throws {
        let (broker, serve, data) = try home()
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: data)
        }
        let result = try CommandRunner.run(["status", "--broker", broker.url, "--json", "Relay"])
        #expect(result.exitCode == 0)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(object["bridge"] as? String == "online")
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 1)
        #expect(devices.first?["id"] as? String == "z2m-0x00158d0001000003")
        #expect(devices.first?["connectivityState"] as? String == "offline")
        #expect((object["summary"] as? [String: Int])?["offline"] == 1)
        let missing = try CommandRunner.run(["status", "--broker", broker.url, "Nope"])
        #expect(missing.exitCode == 4)
        #expect(missing.standardError.contains("no device 'Nope'"))
        let fromEnvironment = try CommandRunner.run(
            ["status", "Relay"], environment: ["TRAITBRIDGE_BROKER": broker.url])
        #expect(
            fromEnvironment.exitCode == 0 && fromEnvironment.standardOutput.contains("Relay"),
            "TRAITBRIDGE_BROKER stands for --broker")
        let flagWins = try CommandRunner.run(
            ["status", "Relay", "--broker", broker.url], environment: ["TRAITBRIDGE_BROKER": "mqtt://127.0.0.1:1"])
        #expect(flagWins.exitCode == 0, "--broker wins over TRAITBRIDGE_BROKER")
        let unreachable = try CommandRunner.run([
            "status", "--broker", "mqtt://127.0.0.1:\(MosquittoBroker.freeLoopbackPort())",
        ])
        #expect(unreachable.exitCode == 3)
        #expect(unreachable.standardError.contains("cannot reach the broker at mqtt://127.0.0.1:"))
    }

    @Test("after the bridge stops, status says so plainly")
    func bridgeOffline() throws {
        let (broker, serve, data) = try home()
        defer { try? FileManager.default.removeItem(atPath: data) }
        serve.stop()
        let result = try CommandRunner.run(["status", "--broker", broker.url])
        #expect(
            result.standardOutput.hasPrefix(
                "bridge: OFFLINE (traitbridge/bridge/state says offline); the devices below are as it last published them\n"
            ))
    }
}

@Suite("traitbridge show", .serialized)
struct ShowCommandTests {
    @Test("the tree answers why a device is offline: per trait state, source, reason, values with units")
    func tree() throws {
        let (broker, serve, data) = try StatusCommandTests().home()
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: data)
        }
        let result = try CommandRunner.run(["show", "Relay", "--broker", broker.url])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first == "Relay  (z2m-0x00158d0001000003)")
        #expect(lines.contains("  switch_l1: matter.OnOffPlugInUnit *  [offline / localPeer]"))
        #expect(
            lines.contains(
                "    On/off (matter.OnOff)  offline / localPeer  via zigbee2mqtt[default]:0x00158d0001000003"))
        #expect(lines.contains("      commands: on, off, toggle"), "\(lines)")
        #expect(
            lines.contains {
                $0.hasPrefix("      why: availability topic zigbee2mqtt/Relay/availability said offline (since 20")
            })
        let light = try CommandRunner.run(["show", "z2m-0x00158d0001000001", "--broker", broker.url])
        #expect(
            light.standardOutput.contains("      Brightness  39 %  (currentLevel = 100)\n"), "\(light.standardOutput)")
        #expect(
            light.standardOutput.contains(
                "      commands: moveToLevel(level, transitionTime, optionsMask, optionsOverride)\n"))
        let misspelt = try CommandRunner.run(["show", "Hal light", "--broker", broker.url])
        #expect(misspelt.exitCode == 4)
        #expect(
            misspelt.standardError.contains(
                "no device 'Hal light' on traitbridge/devices/ (did you mean 'Hall light'?)"))
        let missing = try CommandRunner.run(["show", "Nope", "--broker", broker.url])
        #expect(missing.exitCode == 4)
        let json = try CommandRunner.run(["show", "Relay", "--broker", broker.url, "--json"])
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect((object["state"] as? [String: Any])?["connectivityState"] as? String == "offline")
        #expect((object["description"] as? [String: Any])?["name"] as? String == "Relay")
    }
}

@Suite("traitbridge command and set", .serialized)
struct CommandCommandTests {
    @Test("command: confirmed when the device echoes; set: a refusal prints the code and the allowed range, exit 1")
    func roundTrip() throws {
        let (broker, serve, data) = try StatusCommandTests().home()
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: data)
        }
        let z2m = try Zigbee2MQTTEcho(broker, device: "Hall light", once: true)
        let on = try CommandRunner.run([
            "command", "Hall light", "matter.LevelControl.moveToLevel", "level=200", "--broker", broker.url,
        ])
        #expect(on.exitCode == 0, "\(on.standardError)")
        #expect(on.standardOutput == "confirmed: Brightness 79 % (light/matter.LevelControl.currentLevel = 200)\n")
        #expect(z2m.received.first?.payloadText == #"{"brightness":200}"#)
        let refused = try CommandRunner.run([
            "set", "Hall light", "matter.LevelControl.currentLevel=255", "--broker", broker.url,
        ])
        #expect(refused.exitCode == 1)
        #expect(
            refused.standardError
                == "valueOutOfRange: 255 (as sent) is not allowed for Brightness; allowed: 0…100 % (1…254 as sent)\n")
        // A person's form: a level in %, refused in %; a command typed wrong is answered with the near one.
        let half = try CommandRunner.run([
            "set", "Hall light", "matter.LevelControl.currentLevel=50%", "--broker", broker.url,
        ])
        #expect(half.exitCode == 0, "\(half.standardError)")
        #expect(
            half.standardOutput.contains("(light/matter.LevelControl.currentLevel = 127)"), "\(half.standardOutput)")
        let over = try CommandRunner.run([
            "set", "Hall light", "matter.LevelControl.currentLevel=120 %", "--broker", broker.url,
        ])
        #expect(over.exitCode == 1)
        #expect(over.standardError == "valueOutOfRange: 120 % is not allowed for Brightness; allowed: 0…100 %\n")
        let typo = try CommandRunner.run(["command", "Hall light", "matter.OnOff.togle", "--broker", broker.url])
        #expect(typo.exitCode == 1)
        #expect(
            typo.standardError == "notSupported: trait matter.OnOff has no command 'togle' (did you mean 'toggle'?); "
                + "its commands: off, on, toggle\n")
        // A command's argument in a person's form too (the catalog's field: a level in %, a mode's word).
        let level = try CommandRunner.run(
            ["command", "Hall light", "matter.LevelControl.moveToLevel", "level=50%", "--broker", broker.url])
        #expect(level.exitCode == 0 && level.standardOutput.contains("currentLevel = 127)"), "\(level.standardOutput)")
        let tooBright = try CommandRunner.run(
            ["command", "Hall light", "matter.LevelControl.moveToLevel", "level=120%", "--broker", broker.url])
        #expect(tooBright.exitCode == 1)
        #expect(tooBright.standardError == "valueOutOfRange: 120 % is not allowed for Level; allowed: 0…100 %\n")
        let usage = try CommandRunner.run(["set", "Hall light", "currentLevel", "--broker", broker.url])
        #expect(usage.exitCode == 2)
    }
}

@Suite("traitbridge watch", .serialized)
struct WatchCommandTests {
    /// Reads a file with POSIX calls: Foundation's readers leak their buffer when the file is empty
    /// (FoundationEssentials readBytesFromFile, seen with LeakSanitizer, Swift 6.3.1).
    static func read(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("a scripted sequence of changes comes out as added / changed / removed lines, and as JSON Lines")
    func sequence() throws {
        let (broker, serve, data) = try StatusCommandTests().home()
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: data)
        }
        let output = data + ".watch"
        let watch = try BridgeProcess(
            ["watch", "--broker", broker.url, "--count", "5", "--duration", "20"], log: output)
        defer { watch.stop() }
        // The same as JSON Lines, for one device named loosely: a first line, then its change.
        let jsonOutput = data + ".watch-json"
        let jsonWatch = try BridgeProcess(
            ["watch", "hall LIGHT", "--json", "--broker", broker.url, "--count", "1", "--duration", "20"],
            log: jsonOutput)
        defer { jsonWatch.stop() }
        #expect(eventually { WatchCommandTests.read(output).contains("changes follow") })
        #expect(eventually { WatchCommandTests.read(jsonOutput).contains(#""event":"watching""#) })
        let z2m = try TestMQTTClient(broker)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":100}"#)
        Thread.sleep(forTimeInterval: 0.2)
        try z2m.publish("zigbee2mqtt/Relay/availability", "online", retain: true)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try CommandRunner.run(["rename", "Climate", "Hall climate", "--broker", broker.url]).exitCode == 0)
        Thread.sleep(forTimeInterval: 0.2)
        let porch =
            #"{"ieee_address":"0x00158d0001000009","type":"Router","friendly_name":"Porch light","definition":{"exposes":[{"type":"light","features":[{"type":"binary","name":"state","property":"state","access":7,"value_on":"ON","value_off":"OFF"}]}]}}"#
        let file = try Data(
            contentsOf: URL(fileURLWithPath: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json"))
        var list = try #require(try JSONSerialization.jsonObject(with: file) as? [[String: Any]])
        list.removeAll { $0["friendly_name"] as? String == "Climate" }
        list.append(try #require(try JSONSerialization.jsonObject(with: Data(porch.utf8)) as? [String: Any]))
        try z2m.publish(
            "zigbee2mqtt/bridge/devices", bytes: [UInt8](try JSONSerialization.data(withJSONObject: list)), retain: true
        )
        #expect(watch.waitForExit(within: .seconds(15)) == 0, "watch stops after --count changes")
        let lines = WatchCommandTests.read(output).split(separator: "\n").map(String.init)
        #expect(lines.first == "watching 3 devices on traitbridge; changes follow")
        let events = lines.dropFirst().map { String($0.dropFirst(10)) }  // without the clock
        #expect(events.contains("changed  Hall light (z2m-0x00158d0001000001)  Power on → off"), "\(lines)")
        #expect(
            events.contains { $0.hasPrefix("changed  Relay (z2m-0x00158d0001000003)  connectivity offline → online") },
            "\(lines)")
        #expect(events.contains("added    Porch light (z2m-0x00158d0001000009)  unknown/unspecified"), "\(lines)")
        #expect(
            events.contains(#"changed  Hall climate (z2m-0x00158d0001000002)  name "Climate" → "Hall climate""#),
            "\(lines)")
        #expect(events.contains("removed  Hall climate (z2m-0x00158d0001000002)"), "\(lines)")
        #expect(jsonWatch.waitForExit(within: .seconds(15)) == 0)
        let jsonLines = WatchCommandTests.read(jsonOutput).split(separator: "\n").map(String.init)
        #expect(jsonLines.first == #"{"event":"watching","prefix":"traitbridge","devices":1}"#, "\(jsonLines)")
        #expect(
            jsonLines.dropFirst().first == #"{"event":"changed","id":"z2m-0x00158d0001000001","name":"Hall light","#
                + #""changes":["light/matter.OnOff.onOff true → false"],"display":["Power on → off"]}"#, "\(jsonLines)")
    }
}

@Suite("traitbridge devices", .serialized)
struct DevicesCommandTests {
    @Test("filters by type, trait, connectivity and source; --json; a bad filter value is a usage error")
    func filters() throws {
        let (broker, serve, data) = try StatusCommandTests().home()
        defer {
            serve.stop()
            try? FileManager.default.removeItem(atPath: data)
        }
        let all = try CommandRunner.run(["devices", "--broker", broker.url])
        let header: String =
            "ID                      NAME        ROOM         TYPES                                         "
            + "STATE                SOURCES      CONNECTIVITY"
        #expect(all.standardOutput.split(separator: "\n").first.map(String.init) == header)
        #expect(
            all.standardOutput.contains("  on, brightness 39 %  "), "STATE in people's words: \(all.standardOutput)")
        #expect(all.standardOutput.hasSuffix("3 devices\n"))
        let onOff = try CommandRunner.run(["devices", "--trait", "matter.OnOff", "--broker", broker.url])
        #expect(
            onOff.standardOutput.contains("Hall light") && onOff.standardOutput.contains("Relay")
                && !onOff.standardOutput.contains("Climate"))
        let sensors = try CommandRunner.run([
            "devices", "--type", "TemperatureSensor", "--source", "zigbee2mqtt", "--broker", broker.url, "--json",
        ])
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(sensors.standardOutput.utf8)) as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["Climate"])
        let offline = try CommandRunner.run(["devices", "--connectivity", "offline", "--broker", broker.url])
        #expect(offline.standardOutput.hasSuffix("1 device\n") && offline.standardOutput.contains("Relay"))
        let bad = try CommandRunner.run(["devices", "--connectivity", "down", "--broker", broker.url])
        #expect(bad.exitCode == 2)
        #expect(
            bad.standardError.contains("--connectivity 'down' is not one of online, offline, partiallyOnline, unknown"))
    }
}
