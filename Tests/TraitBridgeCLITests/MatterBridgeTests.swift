import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeMatterCommissioning
import TraitBridgeTesting

/// TraitBridge as a Matter bridge against a real controller: `serve` with a `matterBridge` section
/// announces itself by DNS-SD (Avahi, in a network sandbox); the Matter Server commissions it there
/// and finds a bridge (the aggregator on endpoint 1) with the simulated zigbee2mqtt light as a bridged
/// endpoint (its NodeLabel, a UniqueID, Reachable), the climate sensor composed, the lock, a Shelly roller;
/// it toggles and dims the light, unlocks the lock and moves the blinds (each reaches its device's command
/// topic, answered after the echo),
/// hears the light's own change, sees Reachable follow the light's availability (a command to it offline
/// answered FAILURE), finds a device paired while serving as a new endpoint, renames the light through its
/// NodeLabel, and writes the bridge's NodeLabel and Location; then serve restarts on the same registry and the
/// Matter Server reaches the node again over a resumed CASE session (Sigma2_Resume: the fabric and its
/// resumption record were kept): same endpoint, same UniqueID, the labels kept.
@Suite(
    "Matter bridge end to end", .serialized,
    .enabled(
        if: MatterBridgePeers.unavailableReason == nil, "\(MatterBridgePeers.unavailableReason ?? "")"))
struct MatterBridgeTests {
    static let passcode = 34_971_225
    static let light = "z2m-0x00158d0001000001"

    /// The simulated home: zigbee2mqtt's Hall light (on at the start) and the `others` of the demo home.
    static func scenario(in folder: URL, others: [String] = []) throws -> String {
        let devices = folder.appendingPathComponent("z2m-devices.json")
        try FileManager.default.copyItem(
            at: URL(fileURLWithPath: CommandRunner.repository + "/examples/demo-home-zigbee2mqtt-devices.json"),
            to: devices)
        let home = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: CommandRunner.repository + "/examples/demo-home.json")))
        var light = try #require(
            ((home as? [String: Any])?["devices"] as? [[String: Any]])?.first { $0["name"] as? String == "Hall light" })
        light["state"] = ["state": "ON", "brightness": 60, "color_temp": 370, "linkquality": 120]
        let all = ((home as? [String: Any])?["devices"] as? [[String: Any]]) ?? []
        let more = others.compactMap { name in all.first { $0["name"] as? String == name } }
        let scenario: [String: Any] = [
            "zigbee2mqtt": ["baseTopic": "zigbee2mqtt", "devicesFile": devices.path], "devices": [light] + more,
        ]
        let path = folder.appendingPathComponent("home.json").path
        try JSONSerialization.data(withJSONObject: scenario).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Sends one command to the Matter Server (polled: no thread held); its answer.
    static func ask(_ server: MatterServerPeer, _ command: String, _ args: String) async throws -> String {
        let text = #"{"message_id":"\#(command)","command":"\#(command)","args":\#(args)}"#
        return try await server.sendPolled([text]).first ?? ""
    }

    /// Asks `get_node` until `condition` holds of its answer (every 500 ms, for at most `time`); the last answer.
    static func pollNode(
        _ server: MatterServerPeer, within time: Duration, until condition: (String) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + time
        var answer = try await ask(server, "get_node", #"{"node_id":1}"#)
        while !condition(answer), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            answer = try await ask(server, "get_node", #"{"node_id":1}"#)
        }
        return answer
    }

    static func says(_ answer: String, _ key: String, _ value: String) -> Bool {
        answer.contains(#""\#(key)": \#(value)"#) || answer.contains(#""\#(key)":\#(value)"#)
    }

    /// The node's attributes ("endpoint/cluster/attribute" → value) in a `get_node` or commissioning answer.
    static func attributes(_ answer: String) -> [String: Any] {
        let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
        return ((object?["result"] as? [String: Any])?["attributes"] as? [String: Any]) ?? [:]
    }

    /// The device types of `endpoint` in a node's attributes.
    static func deviceTypes(of endpoint: Int, in attributes: [String: Any]) -> [Int] {
        (attributes["\(endpoint)/29/0"] as? [[String: Any]] ?? []).compactMap { $0["0"] as? Int }
    }

    /// Each endpoint with its device types and NodeLabel, for the log.
    static func summary(_ attributes: [String: Any]) -> String {
        let endpoints = Set(attributes.keys.compactMap { Int($0.prefix { $0 != "/" }) }).sorted()
        return endpoints.map { endpoint in
            let types = deviceTypes(of: endpoint, in: attributes).map { String($0, radix: 16) }
            let label = attributes["\(endpoint)/57/5"] as? String
            return "\(endpoint) [\(types.joined(separator: ","))]" + (label.map { " \"\($0)\"" } ?? "")
        }.joined(separator: "; ")
    }

    /// The bridged endpoint whose Bridged Device Basic Information NodeLabel is `name`.
    static func endpoint(named name: String, in attributes: [String: Any]) -> Int? {
        attributes.first { $0.key.hasSuffix("/57/5") && $0.value as? String == name }
            .flatMap { Int($0.key.prefix { $0 != "/" }) }
    }

    @Test("commissioned by DNS-SD, follows the light both ways, and is reached again after a restart")
    func endToEnd() throws {
        // Off the cooperative pool: this test holds the machine's Matter Server lock while synchronous tests
        // of other suites may wait for it on both of the pool's threads (two cores).
        try runOffThePool("matter-bridge-test", within: .seconds(900)) { try await Self.endToEndBody() }
    }

    static func endToEndBody() async throws {
        let bed = try HomeKitTestBed(name: "matter-bridge")
        defer { bed.remove() }
        let paa = bed.folder.appendingPathComponent("paa")
        try FileManager.default.createDirectory(at: paa, withIntermediateDirectories: true)
        try Data(DeviceAttestation.sdkTestPAACertificate).write(
            to: paa.appendingPathComponent("Chip-Test-PAA-FFF1-Cert.der"))
        let matterServer = try MatterServerPeer(
            repository: CommandRunner.repository, sandbox: bed.sandbox, paaDirectory: paa.path)
        defer { matterServer.stop() }
        let simulator = try BridgeProcess(
            [
                "simulate", "--scenario",
                try Self.scenario(in: bed.folder, others: ["Climate", "Front door lock", "Living room blinds"]),
                "--broker", bed.broker.url,
                "--duration", "600",
            ], log: bed.folder.appendingPathComponent("simulate.log").path)
        defer { simulator.stop() }
        let observer = try TestMQTTClient(
            bed.broker,
            subscribe: [
                "zigbee2mqtt/Hall light/set", "zigbee2mqtt/Front door lock/set",
                "traitbridge/devices/\(Self.light)/state", "shellies/shellyswitch25-485519032A7E/roller/0/command/#",
                "traitbridge/devices/\(Self.garden)/state", "garden/lamp/set",
            ])
        try Self.publishGarden(observer)

        func configure(port: Int, devicesPerBridge: Int = 149) throws -> String {
            let config = bed.folder.appendingPathComponent("config.json").path
            let section: [String: Any] = [
                "listen": bed.sandbox.hostAddress, "port": port, "mdns": [bed.sandbox.hostInterface],
                "passcode": Self.passcode, "discriminator": 1234, "name": "Hall bridge",
                "devicesPerBridge": devicesPerBridge,
            ]
            // The same Matter Server is a source too: the bridge's own node must not come back as devices.
            let configuration: [String: Any] = ["matterBridge": section, "matter": [["url": matterServer.url]]]
            try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: config))
            return config
        }
        var serveLog = bed.serveLog
        var serve = try bed.serve(config: try configure(port: 0))
        defer { serve.stop() }
        func diagnostics() -> String {
            let server = LogFile.read(matterServer.directory.appendingPathComponent("server.log").path)
            return "--- serve:\n\(BridgeProcess.tail(LogFile.read(serveLog), lines: 40))\n--- Matter Server:\n"
                + server.suffix(3000)
        }
        #expect(
            eventually(timeout: .seconds(20)) { LogFile.read(bed.serveLog).contains("Matter: device listening on") },
            "\(diagnostics())")
        let listening = LogFile.read(bed.serveLog).split(separator: "\n").first { $0.contains("device listening on") }
        let address = listening?.range(of: bed.sandbox.hostAddress + ":")
        let port = try #require(
            address.flatMap { Int(listening?[$0.upperBound...].prefix { $0.isNumber } ?? "") }, "\(listening ?? "")")
        #expect(listening?.contains("QR MT:") == true, "the codes line: \(listening ?? "")")
        // The simulated light is on: the bridge knows it before the controller reads it.
        #expect(
            observer.waitFor("traitbridge/devices/\(Self.light)/state", timeout: .seconds(20)) {
                $0.payloadText.contains(#""onOff":true"#)
            } != nil, "\(diagnostics())")

        let commissioned =
            try await matterServer.sendPolled([
                MatterServerPeer.commissionCommand(passcode: Self.passcode, address: nil)
            ]).first ?? ""
        print("Matter Server commission_on_network: \(commissioned.prefix(200))")
        #expect(Self.says(commissioned, "node_id", "1"), "\(commissioned.prefix(600))\n\(diagnostics())")
        #expect(
            Self.says(commissioned, "is_bridge", "true"), "endpoint 1 is the aggregator: \(commissioned.prefix(600))")
        #expect(commissioned.contains(#""Hall bridge""#), "the name is the NodeLabel")
        let found = Self.attributes(commissioned)
        let light = try #require(
            Self.endpoint(named: "Hall light", in: found), "no bridged Hall light: \(found.keys.sorted())")
        #expect(light >= 2, "0 is the root's, 1 the aggregator's")
        let rootParts = found["0/29/3"] as? [Int] ?? []
        let aggregatorParts = found["1/29/3"] as? [Int] ?? []
        #expect(rootParts.contains(1) && rootParts.contains(light) && aggregatorParts.contains(light), "\(rootParts)")
        #expect(Self.deviceTypes(of: light, in: found).contains(0x13), "a Bridged Node")
        let rootUniqueID = found["0/40/18"] as? String ?? ""
        #expect(rootUniqueID.hasPrefix("TRAITBRIDGE-") && rootUniqueID.utf8.count <= 32, "\(rootUniqueID)")
        #expect(
            eventually(timeout: .seconds(20)) {
                LogFile.read(bed.serveLog).contains("is a TraitBridge Matter bridge (UniqueID \(rootUniqueID))")
            }, "the Matter source saw the bridge's own node and left it out: \(diagnostics())")
        let listed = try CommandRunner.run(["devices", "--broker", bed.broker.url]).standardOutput
        #expect(!listed.contains("matter-1"), "no device imported from the bridge's own node: \(listed)")
        #expect(found["\(light)/57/17"] as? Bool == true, "Reachable")
        let uniqueID = found["\(light)/57/18"] as? String ?? ""
        #expect(uniqueID.count == 32 && uniqueID.allSatisfy(\.isHexDigit), "UniqueID: \(uniqueID)")
        #expect(found["\(light)/6/0"] as? Bool == true, "the light follows the device")
        print("Matter Server's node: \(Self.summary(found))")
        // The composed climate sensor: a Bridged Node whose parts are a temperature and a humidity sensor.
        let climate = try #require(Self.endpoint(named: "Climate", in: found), "no Climate: \(Self.summary(found))")
        let climateParts = found["\(climate)/29/3"] as? [Int] ?? []
        let partTypes = Set(climateParts.flatMap { Self.deviceTypes(of: $0, in: found) })
        #expect(partTypes.isSuperset(of: [0x0302, 0x0307]), "Climate's parts: \(climateParts) \(partTypes)")
        #expect(climateParts.allSatisfy { found["\($0)/57/18"] == nil }, "no Bridged Device Basic Information on parts")
        #expect(climateParts.allSatisfy(aggregatorParts.contains), "the aggregator lists the parts too")
        let lock = try #require(Self.endpoint(named: "Front door lock", in: found), "\(Self.summary(found))")
        #expect(Self.deviceTypes(of: lock, in: found).contains(0x000A), "a Door Lock")
        #expect(
            eventually(timeout: .seconds(10)) {
                LogFile.read(bed.serveLog).contains("the commissioning state is kept (1 fabric(s), ")
            }, "\(diagnostics())")

        // A controller's Toggle goes through the unified command path to the light's set topic.
        let toggle = #"{"node_id":1,"endpoint_id":\#(light),"cluster_id":6,"command_name":"Toggle","payload":{}}"#
        let toggled = try await Self.ask(matterServer, "device_command", toggle)
        #expect(!toggled.contains("error_code"), "\(toggled)\n\(diagnostics())")
        #expect(
            observer.waitFor("zigbee2mqtt/Hall light/set", timeout: .seconds(10)) { $0.payloadText.contains("OFF") }
                != nil, "\(diagnostics())")
        // The light switched at the device (on MQTT): the Matter Server's subscription hears of it.
        let onOff = "\(light)/6/0"
        let off = try await Self.pollNode(matterServer, within: .seconds(15)) { Self.says($0, onOff, "false") }
        #expect(Self.says(off, onOff, "false"), "the simulated light echoed OFF: \(off.prefix(300))")
        try observer.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":60,"color_temp":370}"#)
        let on = try await Self.pollNode(matterServer, within: .seconds(15)) { Self.says($0, onOff, "true") }
        #expect(Self.says(on, onOff, "true"), "\(on.prefix(300))\n\(diagnostics())")

        // Dimmed (MoveToLevelWithOnOff) and the lock unlocked: each reaches its device's set topic.
        let dim =
            #"{"node_id":1,"endpoint_id":\#(light),"cluster_id":8,"command_name":"MoveToLevelWithOnOff","#
            + #""payload":{"level":200,"transitionTime":0,"optionsMask":0,"optionsOverride":0}}"#
        let dimmed = try await Self.ask(matterServer, "device_command", dim)
        #expect(!dimmed.contains("error_code"), "\(dimmed)\n\(diagnostics())")
        #expect(
            observer.waitFor("zigbee2mqtt/Hall light/set", timeout: .seconds(10)) { $0.payloadText.contains("200") }
                != nil, "the level reaches the light: \(diagnostics())")
        let unlock =
            #"{"node_id":1,"endpoint_id":\#(lock),"cluster_id":257,"command_name":"UnlockDoor","payload":{},"#
            + #""timed_request_timeout_ms":1000}"#
        let unlocked = try await Self.ask(matterServer, "device_command", unlock)
        #expect(!unlocked.contains("error_code"), "\(unlocked)\n\(diagnostics())")
        #expect(
            observer.waitFor("zigbee2mqtt/Front door lock/set", timeout: .seconds(10)) {
                $0.payloadText.contains("UNLOCK")
            } != nil, "the lock is told to unlock: \(diagnostics())")

        // The Shelly blinds moved to half (GoToLiftPercentage 50.00 %): the roller is told position 50.
        // (A Shelly is named by its id until a rename: the simulated one announces no name of its own.)
        let blinds = try #require(
            Self.endpoint(named: "shellyswitch25-485519032A7E", in: found), "\(Self.summary(found))")
        #expect(Self.deviceTypes(of: blinds, in: found).contains(0x0202), "a Window Covering")
        let move =
            #"{"node_id":1,"endpoint_id":\#(blinds),"cluster_id":258,"command_name":"GoToLiftPercentage","#
            + #""payload":{"liftPercent100thsValue":5000}}"#
        let moved = try await Self.ask(matterServer, "device_command", move)
        print("Matter Server GoToLiftPercentage: \(moved.prefix(200))")
        #expect(
            observer.waitFor("shellies/shellyswitch25-485519032A7E/roller/0/command/pos", timeout: .seconds(10)) {
                $0.payloadText == "50"
            } != nil, "the roller is told: \(observer.messages.all.map(\.topic).suffix(8))\n\(diagnostics())")

        // The light's availability: offline makes Reachable false, online true again.
        let reachable = "\(light)/57/17"
        try observer.publish("zigbee2mqtt/Hall light/availability", #"{"state":"offline"}"#)
        let unreachable = try await Self.pollNode(matterServer, within: .seconds(15)) {
            Self.says($0, reachable, "false")
        }
        #expect(Self.says(unreachable, reachable, "false"), "offline: \(unreachable.prefix(300))\n\(diagnostics())")
        // A command to the offline light is refused with a status, never a silent success.
        let refused = try await Self.ask(matterServer, "device_command", toggle)
        print("Matter Server device_command to the offline light: \(refused.prefix(300))")
        #expect(refused.contains("error_code"), "\(refused)\n\(diagnostics())")
        #expect(
            LogFile.read(bed.serveLog).contains("refused matter.OnOff.toggle (FAILURE)"),
            "the log says why: \(diagnostics())")
        try observer.publish("zigbee2mqtt/Hall light/availability", #"{"state":"online"}"#)
        let back = try await Self.pollNode(matterServer, within: .seconds(15)) { Self.says($0, reachable, "true") }
        #expect(Self.says(back, reachable, "true"), "online again: \(back.prefix(300))\n\(diagnostics())")

        try await Self.partiallyOnline(matterServer, found: found, observer: observer, diagnostics)

        // A device paired on zigbee2mqtt while serving (a second Back door sensor, "Side door"): a new endpoint in
        // the root's PartsList; the Matter Server interviews the node again and finds it. The others keep theirs.
        var list =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: bed.folder.appendingPathComponent("z2m-devices.json"))) as? [[String: Any]] ?? []
        var side = try #require(list.first { $0["friendly_name"] as? String == "Back door" })
        side["friendly_name"] = "Side door"
        side["ieee_address"] = "0x00158d0001000099"
        list.append(side)
        let published = String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self)
        try observer.publish("zigbee2mqtt/bridge/devices", published, retain: true)
        // (The server's node settles over its re-interview: the new endpoint's values and the root's PartsList
        // may arrive apart.)
        let grown = try await Self.pollNode(matterServer, within: .seconds(60)) { answer in
            let attributes = Self.attributes(answer)
            guard let side = Self.endpoint(named: "Side door", in: attributes) else { return false }
            return (attributes["0/29/3"] as? [Int] ?? []).contains(side)
        }
        let after = Self.attributes(grown)
        let sideDoor = try #require(
            Self.endpoint(named: "Side door", in: after), "\(Self.summary(after))\n\(diagnostics())")
        #expect((after["0/29/3"] as? [Int] ?? []).contains(sideDoor), "in the root's PartsList")
        #expect(Self.endpoint(named: "Hall light", in: after) == light, "the light keeps its endpoint")
        #expect(Self.deviceTypes(of: sideDoor, in: after).contains(0x0015), "a Contact Sensor")

        // A controller names the light (its NodeLabel): the unified device is renamed, as `traitbridge rename` does.
        let named = try await Self.ask(
            matterServer, "write_attribute",
            #"{"node_id":1,"attribute_path":"\#(light)/57/5","value":"Entrance light"}"#)
        #expect(!named.contains("error_code"), "\(named)\n\(diagnostics())")
        var renamedList = ""
        for attempt in 0..<20 where !renamedList.contains("Entrance light") {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
            renamedList = try CommandRunner.run(["devices", "--broker", bed.broker.url]).standardOutput
        }
        #expect(renamedList.contains("Entrance light"), "renamed: \(renamedList)\n\(diagnostics())")

        // A controller names the bridge and places it: kept across the restart.
        for (path, value) in [("0/40/5", "Kitchen"), ("0/40/6", "DE")] {
            let written = try await Self.ask(
                matterServer, "write_attribute", #"{"node_id":1,"attribute_path":"\#(path)","value":"\#(value)"}"#)
            #expect(!written.contains("error_code"), "\(written)\n\(diagnostics())")
        }
        // Kept as soon as written (the registry is read while serve runs).
        var kept = ""
        for attempt in 0..<20 where !kept.contains("location        DE") {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
            kept = try CommandRunner.run([
                "matter", "show", "--data-dir", bed.folder.appendingPathComponent("data").path,
            ]).standardOutput
        }
        #expect(kept.contains("location        DE"), "the written labels are kept: \(kept)\n\(diagnostics())")

        // Stopped and started again on the same registry (and port, as a fixed 5540 would be).
        #expect(serve.stop(), "serve stops cleanly")
        let shown = try CommandRunner.run([
            "matter", "show", "--data-dir", bed.folder.appendingPathComponent("data").path,
        ])
        #expect(
            shown.standardOutput.contains("commissioned on 1 fabric:")
                && shown.standardOutput.contains("node id 0000000000000001"), "\(shown)")
        #expect(shown.standardOutput.contains("discriminator   1234"), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains(#"node label      "Kitchen""#), "\(shown.standardOutput)")
        #expect(shown.standardOutput.contains("CASE session(s) resumable"), "\(shown.standardOutput)")
        // Each device's top endpoint is one line without "part": the bridge is now given exactly as many
        // devices as it serves, so the next one makes a second bridge.
        let served = shown.standardOutput.split(separator: "\n").count {
            $0.hasPrefix("  ") && $0.dropFirst(2).first?.isNumber == true && !$0.contains("  part ")
        }
        #expect(served >= 7, "\(shown.standardOutput)")
        // The second run logs to a file of its own: what it says is its own.
        serveLog = bed.folder.appendingPathComponent("serve-again.log").path
        serve = try BridgeProcess(
            [
                "serve", "--broker", bed.broker.url, "--config", try configure(port: port, devicesPerBridge: served),
                "--data-dir", bed.folder.appendingPathComponent("data").path,
            ], log: serveLog, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bed.bus])
        #expect(
            eventually(timeout: .seconds(20)) {
                LogFile.read(serveLog).contains("commissioned on 1 fabric(s): the window is closed")
            }, "\(diagnostics())")
        #expect(LogFile.read(serveLog).contains("CASE session(s) resumable"), "the records were restored")
        // The Matter Server reaches the node again over CASE with the kept fabric: a read answers, on the
        // same endpoint, with the same UniqueID.
        var read = ""
        for attempt in 0..<60 {
            if attempt > 0 { try await Task.sleep(for: .seconds(2)) }
            read = try await Self.ask(matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"\#(onOff)"}"#)
            if read.contains(#""\#(onOff)""#) && !read.contains("error_code") { break }
        }
        print("Matter Server read_attribute after the restart: \(read.prefix(200))")
        #expect(read.contains(#""\#(onOff)""#) && !read.contains("error_code"), "\(read)\n\(diagnostics())")
        let sameID = try await Self.ask(
            matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"\#(light)/57/18"}"#)
        #expect(sameID.contains(#""\#(uniqueID)""#), "the UniqueID after the restart: \(sameID)")
        // The light still follows the device: a change at the device is what a read finds. (The server's
        // own subscription comes back only once the old one's liveness runs out, a minute or more: not
        // waited for, the Matter Server is one per machine and other tests wait for it.)
        let wasOn = Self.says(read, onOff, "true")
        try observer.publish("zigbee2mqtt/Hall light", #"{"state":"\#(wasOn ? "OFF" : "ON")"}"#)
        var followed = ""
        for attempt in 0..<30 {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(500)) }
            followed = try await Self.ask(
                matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"\#(onOff)"}"#)
            if Self.says(followed, onOff, "\(!wasOn)") { break }
        }
        #expect(Self.says(followed, onOff, "\(!wasOn)"), "\(followed)\n\(diagnostics())")
        let available = try await Self.pollNode(matterServer, within: .seconds(30)) {
            Self.says($0, "available", "true")
        }
        #expect(Self.says(available, "available", "true"), "\(available.prefix(300))\n\(diagnostics())")
        func commands() -> Int { observer.messages.all.count { $0.topic == "zigbee2mqtt/Hall light/set" } }
        let before = commands()
        let again = try await Self.ask(matterServer, "device_command", toggle)
        #expect(!again.contains("error_code"), "\(again)\n\(diagnostics())")
        #expect(
            eventually(timeout: .seconds(10)) { commands() > before }, "a command after the restart reaches the light")
        // The SDK's controller kept the record the first run's CASE gave it, and so did the device: resumed.
        let resumed = LogFile.read(serveLog).split(separator: "\n").filter { $0.contains("Matter: CASE resumed") }
        #expect(
            resumed.contains { $0.contains("on fabric 1") },
            "the restarted node was reached over a resumed CASE session: \(diagnostics())")
        let keptName = try await Self.ask(
            matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"\#(light)/57/5"}"#)
        #expect(keptName.contains(#""Entrance light""#), "the light's name after the restart: \(keptName)")
        let labels = try await Self.ask(matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"0/40/5"}"#)
        #expect(labels.contains(#""Kitchen""#), "NodeLabel after the restart: \(labels)")
        let location = try await Self.ask(matterServer, "read_attribute", #"{"node_id":1,"attribute_path":"0/40/6"}"#)
        #expect(location.contains(#""DE""#), "Location after the restart: \(location)")
        try await Self.secondBridge(matterServer, bed: bed, observer: observer, serveLog: serveLog, diagnostics)
        for log in [bed.serveLog, serveLog] {
            #expect(!LogFile.read(log).contains(String(Self.passcode)), "the passcode is never logged")
        }
    }

}

/// The peers of the Matter bridge test: Avahi in a network sandbox and the Matter Server.
enum MatterBridgePeers {
    /// Why the Matter Server, a sandbox or Avahi cannot run here, or nil.
    static var unavailableReason: String? {
        MDNSResponder.unavailableReason(repository: CommandRunner.repository)
            ?? MatterServerPeer.unavailableReason(repository: CommandRunner.repository)
    }
}
