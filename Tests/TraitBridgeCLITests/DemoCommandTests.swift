import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeSimulator
import TraitBridgeTesting

/// `traitbridge demo --once`, the README's demo command, as a user runs it: a private broker,
/// the simulated home, the bridge, the cloud import, and a status table at the end.
@Suite("traitbridge demo and simulate", .serialized)
struct DemoCommandTests {
    static let repository = CommandRunner.repository

    @Test(
        "demo --once lists every device of the scenario and the linked partner cloud, the Hall light partiallyOnline after its fault, and leaves nothing running"
    )
    func once() throws {
        try #require(MosquittoBroker.executable != nil, "mosquitto is not installed")
        let result = try CommandRunner.run([
            "demo", "--once", "--scenario", Self.repository + "/examples/demo-home.json", "--mappings",
            Self.repository + "/mappings",
            "--cloud", Self.repository + "/examples/demo-cloud-home.json", "--matter",
            Self.repository + "/examples/matter", "--automations", Self.repository + "/examples/automations",
        ])
        #expect(result.exitCode == 0, "\(result.standardError)")
        let output = result.standardOutput
        #expect(!output.contains("\u{1B}["), "no colour when standard output is not a terminal")
        let scenario = try Scenario.load(path: Self.repository + "/examples/demo-home.json")
        let table = try #require(output.components(separatedBy: "== traitbridge status").last)
        #expect(
            output.contains(
                "== Front door camera's settings come from cam2mqtt, joined into the camera "
                    + "(examples/generic-camera-settings.json): nightVision 2, speakerVolumeLevel 127"), "\(output)")
        // The camera's settings (cam2mqtt) join the camera: no line of their own.
        for device in scenario.devices where device.deviceProtocol != .cam2mqtt {
            // Shelly devices announce only their ids: the demo names them (`rename`) and puts the
            // devices of sources without rooms in the scenario's rooms (`move`); HA says its area.
            let line = try #require(
                table.split(separator: "\n").first { $0.hasPrefix(device.name + "  ") }, "\(device.name) in the table")
            let room = try #require(device.room)
            #expect(
                line.dropFirst(device.name.count).trimmingPrefix(while: { $0 == " " }).lowercased().hasPrefix(
                    room.lowercased() + " "), "\(line)")
        }
        #expect(output.contains("== named 4 and placed 11 devices as the scenario says"))
        for cloudOnly in ["Garden plug", "Living room thermostat"] { #expect(table.contains(cloudOnly)) }
        let hall = try #require(table.split(separator: "\n").first { $0.hasPrefix("Hall light ") })
        #expect(
            hall.contains("partiallyOnline") && hall.contains("mixed")
                && hall.contains("availability topic zigbee2mqtt/Hall light/availability said offline"), "\(hall)")
        // With the Matter Server installed: the example bridge's two bridged lights and the software
        // light commissioned in the network sandbox, named and placed, online through the Matter Server.
        let hasMatter = MatterServerPeer.unavailableReason(repository: Self.repository) == nil
        if hasMatter {
            for (name, type) in [
                ("Reading lamp", "OnOffLight"), ("Sofa lamp", "OnOffLight"), ("Shelf light", "DimmableLight"),
            ] {
                let line = try #require(table.split(separator: "\n").first { $0.hasPrefix(name + "  ") }, "\(name)")
                #expect(line.contains("Living room") && line.contains(type) && line.contains("online"), "\(line)")
            }
            let server = try #require(output.firstMatch(of: /python-matter-server, pid (\d+)/).flatMap { pid_t($0.1) })
            #expect(kill(server, 0) != 0, "the Matter Server (pid \(server)) is stopped")
        }
        // With aiortc installed and a sandbox possible: the camera's live view, real frames to a viewer.
        if NetworkSandbox.unavailableReason(repository: Self.repository) == nil,
            FileManager.default.isExecutableFile(atPath: CameraPeers.python)
        {
            let frames = try #require(
                output.firstMatch(of: /a viewer in the sandbox decoded (\d+) frames/).flatMap { Int($0.1) }, "\(output)"
            )
            #expect(frames > 0)
        } else {
            #expect(output.contains("== the camera has no live view:"), "the demo says why")
        }
        let summary =
            hasMatter
            ? "17 devices: 16 online, 1 partially online, 0 offline, 0 unknown"
            : "14 devices: 13 online, 1 partially online, 0 offline, 0 unknown"
        #expect(table.contains(summary), "\(table)")
        #expect(
            output.contains(
                "== linked to the partner cloud (cloud link partner): 3 devices, remote; merged with the home's: Hall light"
            ), "\(output)")
        // The home above the devices: a zone, a group, two scenes, two automations (one timer, one event).
        let layout = try #require(output.components(separatedBy: "== the home above the devices").last)
        #expect(layout.contains("zone Downstairs: Hall, Kitchen, Living room"), "\(layout)")
        #expect(layout.contains("group Downstairs lights: \(hasMatter ? 4 : 2) members, partiallyOnline"), "\(layout)")
        #expect(layout.contains("scene Movie night: 2 actions") && layout.contains("scene Good Night:"))
        #expect(
            layout.contains("automation Back door light: when Back door matter.BooleanState.stateValue becomes false"))
        #expect(layout.contains("automation Weekday mornings: when weekdays at 07:00, next 20"), "\(layout)")
        let pid = try #require(output.firstMatch(of: /private mosquitto, pid (\d+)/).flatMap { pid_t($0.1) })
        #expect(kill(pid, 0) != 0, "the private mosquitto (pid \(pid)) is stopped")
        let partner = try #require(output.firstMatch(of: /own private mosquitto \(pid (\d+)\)/).flatMap { pid_t($0.1) })
        #expect(kill(partner, 0) != 0, "the partner cloud's mosquitto (pid \(partner)) is stopped")
    }

    @Test("a scenario that cannot be read is exit 1 with the place; no broker is started")
    func badScenario() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tb-bad-\(UUID().uuidString).json")
        try Data(#"{"devices": [{"name": "A", "protocol": "zwave"}]}"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for command in [["demo", "--once"], ["simulate"]] {
            let result = try CommandRunner.run(command + ["--scenario", file.path])
            #expect(result.exitCode == 1)
            #expect(
                result.standardError.contains("\(file.path):1:40: devices[0].protocol: unknown protocol 'zwave'"),
                "\(result.standardError)")
            #expect(!result.standardOutput.contains("== broker"))
        }
    }

    @Test("simulate: the devices appear on the broker, answer a command, and the simulator stops after --duration")
    func simulate() throws {
        let broker = try MosquittoBroker()
        let observer = try TestMQTTClient(broker, subscribe: ["shellies/#", "tele/#", "stat/#", "zigbee2mqtt/#"])
        let process = try BridgeProcess([
            "simulate", "--scenario", Self.repository + "/examples/demo-home.json",
            "--broker", broker.url, "--duration", "4",
        ])
        defer { process.stop() }
        #expect(observer.waitFor("zigbee2mqtt/bridge/devices") != nil)
        #expect(observer.waitFor("tele/kitchen-plug/LWT") { $0.payloadText == "Online" } != nil)
        #expect(
            observer.waitFor("shellies/shellyswitch25-485519032A7E/roller/0/pos") { $0.payloadText == "100" } != nil)
        try observer.publish("cmnd/desk-lamp/POWER1", "ON")
        #expect(observer.waitFor("stat/desk-lamp/POWER1") { $0.payloadText == "ON" } != nil)
        #expect(process.waitForExit(within: .seconds(10)) == 0, "simulate stops by itself after --duration")
    }

    @Test(
        "the demo serves Google's fulfillment endpoint (its curl line gets the SYNC) and commands go the partner cloud's way, confirmed"
    )
    func fulfillment() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-demo-http-\(UUID().uuidString).log")
            .path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let demo = try BridgeProcess(
            [
                "demo", "--scenario", Self.repository + "/examples/demo-home.json",
                "--mappings", Self.repository + "/mappings",
                "--matter", "none",  // the Matter part is the --once test's
            ], log: log)
        defer { demo.stop() }
        var text = ""
        #expect(
            eventually(timeout: .seconds(60)) {
                text = WatchCommandTests.read(log)
                return text.contains("== traitbridge watch")
            }, "the demo reaches its watch stage: \(text)")
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("     curl -s") }, "\(text)")
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/bin/sh")
        curl.arguments = ["-c", String(line) + " --max-time 20"]
        let pipe = Pipe()
        curl.standardOutput = pipe
        try curl.run()
        let body = pipe.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        #expect(curl.terminationStatus == 0)
        let root = try #require(
            try JSONSerialization.jsonObject(with: body) as? [String: Any], "\(String(decoding: body, as: UTF8.self))")
        let payload = try #require(root["payload"] as? [String: Any])
        #expect(payload["agentUserId"] as? String == "demo-user")
        let devices = try #require(payload["devices"] as? [[String: Any]])
        #expect(devices.count >= 10, "every device of the scenario with a Google trait: \(devices.count)")
        #expect(devices.contains { ($0["name"] as? [String: Any])?["name"] as? String == "Hall light" })

        // The Hall light is off the Zigbee mesh (the scenario's fault): the command goes the
        // partner cloud's way — A → HTTP → the cloud's bridge → its zigbee2mqtt — and is confirmed.
        let broker = try #require(text.firstMatch(of: /== broker (mqtt:\/\/127\.0\.0\.1:\d+)/).map { String($0.1) })
        let command = try CommandRunner.run(["command", "Hall light", "matter.OnOff.toggle", "--broker", broker])
        #expect(command.exitCode == 0, "\(command.standardError)")
        #expect(
            command.standardOutput.hasPrefix("confirmed: Power ")
                && command.standardOutput.contains(" (cloud-light/matter.OnOff.onOff = "),
            "\(command.standardOutput)")
    }

    /// A demo (no Matter part: that is the --once test's) run until its watch stage: the process,
    /// what it printed so far, and its private broker's port.
    func runningDemo(log: String, _ extra: [String] = []) throws -> (demo: BridgeProcess, text: String, port: Int) {
        try #require(MosquittoBroker.executable != nil, "mosquitto is not installed")
        let demo = try BridgeProcess(
            [
                "demo", "--scenario", Self.repository + "/examples/demo-home.json",
                "--matter", "none",
            ] + extra, log: log)
        var text = ""
        #expect(
            eventually(timeout: .seconds(60)) {
                text = WatchCommandTests.read(log)  // POSIX reads: Foundation's one-shot read leaks under LSan here
                return text.contains("== traitbridge watch")
            }, "the demo reaches its watch stage: \(text)")
        let match = try #require(text.firstMatch(of: /mqtt:\/\/127\.0\.0\.1:(\d+) \(private mosquitto, pid (\d+)\)/))
        return (demo, text, try #require(Int(match.1)))
    }

    @Test("demo stops on SIGTERM as on Ctrl-C: exit 0, its private broker stopped")
    func terminated() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-demo-term-\(UUID().uuidString).log")
            .path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let (demo, _, port) = try runningDemo(log: log, ["--cloud", "none"])
        #expect(demo.signal(SIGTERM, waitUpTo: .seconds(30)), "the demo ends on SIGTERM")
        #expect(demo.exitStatus == 0)
        #expect(!MosquittoBroker.canConnect(port: port), "its private broker on port \(port) stopped")
    }

    @Test("demo killed with SIGKILL leaves nothing running: its private broker stops and its folders go")
    func killed() throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("tb-demo-kill-\(UUID().uuidString).log")
            .path
        defer { try? FileManager.default.removeItem(atPath: log) }
        // Folders some other run left behind are not this demo's.
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        let (demo, text, port) = try runningDemo(log: log, ["--mappings", Self.repository + "/mappings"])
        let partner = try #require(text.firstMatch(of: /own private mosquitto \(pid (\d+)\)/).flatMap { pid_t($0.1) })
        // This demo's folders: its broker's (the config names the port) and its work folder (the
        // suite is serialized, so no other demo runs now; what was there before is not its).
        let temporary = NSTemporaryDirectory()
        let entries = try FileManager.default.contentsOfDirectory(atPath: temporary)
        let brokerFolder = try #require(
            entries.first { entry in
                entry.hasPrefix("tb-mosquitto-")
                    && ((try? String(contentsOfFile: temporary + "/" + entry + "/mosquitto.conf", encoding: .utf8))?
                        .contains("listener \(port) ") ?? false)
            })
        let folders = [brokerFolder] + entries.filter { $0.hasPrefix("traitbridge-demo-") && !before.contains($0) }
        #expect(folders.count >= 2, "\(folders)")
        #expect(MosquittoBroker.canConnect(port: port))
        demo.kill()  // SIGKILL: no defer, no signal handler runs
        #expect(
            eventually(timeout: .seconds(10)) { !MosquittoBroker.canConnect(port: port) },
            "the private broker on port \(port) stopped")
        #expect(
            eventually(timeout: .seconds(10)) { kill(partner, 0) != 0 },
            "the partner cloud's broker (pid \(partner)) stopped")
        #expect(
            eventually(timeout: .seconds(10)) {
                let now = Set((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? [])
                return folders.allSatisfy { !now.contains($0) }
            }, "the demo's folders are removed: \(folders)")
    }

    @Test(
        "help for demo, status and rename is exact",
        arguments: [["demo", "--help"], ["status", "--help"], ["rename", "--help"]])
    func help(_ arguments: [String]) throws {
        let result = try CommandRunner.run(arguments, environment: ["COLUMNS": "80"])
        #expect(result.exitCode == 0)
        let expected = ["demo": Self.demoHelp, "status": Self.statusHelp, "rename": Self.renameHelp][arguments[0]]
        #expect(result.standardOutput == expected)
    }
}
