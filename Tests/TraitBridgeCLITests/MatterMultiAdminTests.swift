import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeMatterCommissioning
import TraitBridgeTesting

/// Multi-admin against two real controllers: `serve` with a `matterBridge` section is commissioned by a
/// Matter Server (A, fabric ID 1), which opens a window; a second Matter Server (B: its own storage, CA,
/// fabric ID 2 and port, in the same network sandbox) joins through it with the window's manual code.
/// Both read and command the light; serve restarts on the same registry and both reach it again over
/// CASE; B's `remove_node` sends RemoveFabric and the bridge keeps A's fabric alone.
@Suite(
    "Matter bridge with two Matter Servers", .serialized,
    .enabled(if: MatterBridgePeers.unavailableReason == nil, "\(MatterBridgePeers.unavailableReason ?? "")"))
struct MatterMultiAdminTests {
    static let passcode = 61_803_398

    /// One controller: its name, how it is asked and its log.
    struct Admin: Sendable {
        let name: String
        let log: String
        let send: @Sendable ([String]) async throws -> [String]

        func ask(_ command: String, _ args: String) async throws -> String {
            let text = #"{"message_id":"\#(command)","command":"\#(command)","args":\#(args)}"#
            return try await send([text]).first ?? ""
        }

        /// Reads `path` of node 1 until it answers (every 2 s, for at most `time`): after a restart the
        /// controller's first tries meet its stale session.
        func read(_ path: String, within time: Duration) async throws -> String {
            let deadline = ContinuousClock.now + time
            var (answer, attempts) = ("", 0)
            repeat {
                if attempts > 0 { try await Task.sleep(for: .seconds(2)) }
                attempts += 1
                answer = try await ask("read_attribute", #"{"node_id":1,"attribute_path":"\#(path)"}"#)
                if answer.contains(#""\#(path)""#) && !answer.contains("error_code") { break }
            } while ContinuousClock.now < deadline
            return answer
        }
    }

    @Test("two Matter Servers: a window, a second fabric, both back after a restart, RemoveFabric forgets one")
    func twoMatterServers() throws {
        // Off the cooperative pool, as MatterBridgeTests: the machine's Matter Server lock is held throughout.
        try runOffThePool("matter-multi-admin-test", within: .seconds(900)) { try await Self.body() }
    }

    static func body() async throws {
        let bed = try HomeKitTestBed(name: "matter-admins")
        defer { bed.remove() }
        let paa = bed.folder.appendingPathComponent("paa")
        try FileManager.default.createDirectory(at: paa, withIntermediateDirectories: true)
        try Data(DeviceAttestation.sdkTestPAACertificate).write(
            to: paa.appendingPathComponent("Chip-Test-PAA-FFF1-Cert.der"))
        let serverA = try MatterServerPeer(
            repository: CommandRunner.repository, sandbox: bed.sandbox, paaDirectory: paa.path)
        defer { serverA.stop() }
        let serverB = try SecondMatterServer(
            repository: CommandRunner.repository, sandbox: bed.sandbox, paaDirectory: paa.path)
        defer { serverB.stop() }
        let a = Admin(name: "A", log: serverA.directory.appendingPathComponent("server.log").path) {
            try await serverA.sendPolled($0)
        }
        let b = Admin(name: "B", log: serverB.log) { try await serverB.sendPolled($0) }
        let simulator = try BridgeProcess(
            [
                "simulate", "--scenario", try MatterBridgeTests.scenario(in: bed.folder), "--broker", bed.broker.url,
                "--duration", "600",
            ], log: bed.folder.appendingPathComponent("simulate.log").path)
        defer { simulator.stop() }
        let setTopic = "zigbee2mqtt/Hall light/set"
        let observer = try TestMQTTClient(bed.broker, subscribe: [setTopic])
        func commands() -> Int { observer.messages.all.count { $0.topic == setTopic } }
        let data = bed.folder.appendingPathComponent("data").path
        func show() throws -> String { try CommandRunner.run(["matter", "show", "--data-dir", data]).standardOutput }

        func configure(port: Int) throws -> String {
            let config = bed.folder.appendingPathComponent("config.json").path
            let section: [String: Any] = [
                "listen": bed.sandbox.hostAddress, "port": port, "mdns": [bed.sandbox.hostInterface],
                "passcode": Self.passcode, "discriminator": 2345, "name": "Hall bridge",
            ]
            try JSONSerialization.data(withJSONObject: ["matterBridge": section]).write(
                to: URL(fileURLWithPath: config))
            return config
        }
        var serveLog = bed.serveLog
        var serve = try bed.serve(config: try configure(port: 0))
        defer { serve.stop() }
        func diagnostics() -> String {
            "--- serve:\n\(BridgeProcess.tail(LogFile.read(serveLog), lines: 40))"
                + [a, b].map { "\n--- Matter Server \($0.name):\n" + LogFile.read($0.log).suffix(2000) }.joined()
        }
        #expect(
            eventually(timeout: .seconds(20)) { LogFile.read(serveLog).contains("Matter: device listening on") },
            "\(diagnostics())")
        let listening = LogFile.read(serveLog).split(separator: "\n").first { $0.contains("device listening on") }
        let address = listening?.range(of: bed.sandbox.hostAddress + ":")
        let port = try #require(
            address.flatMap { Int(listening?[$0.upperBound...].prefix { $0.isNumber } ?? "") }, "\(diagnostics())")

        // A commissions the bridge by DNS-SD and commands the light.
        let first = try await serverA.sendPolled([MatterServerPeer.commissionCommand(passcode: passcode, address: nil)])
        let commissioned = first.first ?? ""
        #expect(MatterBridgeTests.says(commissioned, "node_id", "1"), "\(commissioned.prefix(600))\n\(diagnostics())")
        let light = try #require(
            MatterBridgeTests.endpoint(named: "Hall light", in: MatterBridgeTests.attributes(commissioned)),
            "no bridged Hall light\n\(diagnostics())")
        let toggle = #"{"node_id":1,"endpoint_id":\#(light),"cluster_id":6,"command_name":"Toggle","payload":{}}"#
        try await Self.command(a, toggle, reaches: commands, diagnostics)

        // A opens a window (enhanced: a random passcode); B joins with its manual code, on a fabric of its own.
        let window = try await a.ask("open_commissioning_window", #"{"node_id":1}"#)
        let code = try #require(Self.string(after: #""setup_manual_code": ""#, in: window), "\(window)")
        let joined = try await b.ask("commission_with_code", #"{"code":"\#(code)","network_only":true}"#)
        print("Matter Server B commission_with_code: \(joined.prefix(200))")
        #expect(MatterBridgeTests.says(joined, "node_id", "1"), "\(joined.prefix(600))\n\(diagnostics())")
        #expect(joined.contains(#""Hall bridge""#), "B's interview read the NodeLabel: \(joined.prefix(2000))")
        let fabrics = try await a.ask("read_attribute", #"{"node_id":1,"attribute_path":"0/62/3"}"#)
        #expect(MatterBridgeTests.says(fabrics, "0/62/3", "2"), "two fabrics: \(fabrics)")
        let two = try show()
        #expect(two.contains("commissioned on 2 fabrics:"), "\(two)")
        #expect(two.contains("fabric id 0000000000000001") && two.contains("fabric id 0000000000000002"), "\(two)")
        try await Self.command(b, toggle, reaches: commands, diagnostics)
        let operatorEntry = try await Self.writeAccessControl(a, b, light: light, diagnostics)
        try await Self.command(a, toggle, reaches: commands, diagnostics)  // A's own entry still administers

        // serve stops and starts again on the same registry and port: both controllers reach it over CASE.
        #expect(serve.stop(), "serve stops cleanly")
        serveLog = bed.folder.appendingPathComponent("serve-again.log").path
        serve = try BridgeProcess(
            ["serve", "--broker", bed.broker.url, "--config", try configure(port: port), "--data-dir", data],
            log: serveLog, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bed.bus])
        #expect(
            eventually(timeout: .seconds(20)) {
                LogFile.read(serveLog).contains("commissioned on 2 fabric(s): the window is closed")
            }, "\(diagnostics())")
        for (admin, fabric) in [(a, 1), (b, 2)] {
            let read = try await admin.read("\(light)/6/0", within: .seconds(120))
            print("Matter Server \(admin.name) read_attribute after the restart: \(read.prefix(200))")
            #expect(read.contains(#""\#(light)/6/0""#) && !read.contains("error_code"), "\(read)\n\(diagnostics())")
            let sessions = LogFile.read(serveLog).split(separator: "\n").filter {
                $0.contains("Matter: CASE ") && $0.contains("on fabric \(fabric)")
            }
            print("serve after the restart, fabric \(fabric): \(sessions.map { $0.suffix(90) })")
            #expect(
                sessions.contains { $0.contains("CASE resumed") || $0.contains("CASE succeeded") },
                "\(admin.name) reached the restarted bridge over CASE on fabric \(fabric)\n\(diagnostics())")
        }
        try await Self.command(b, toggle, reaches: commands, diagnostics)
        let kept = try await a.read("0/31/0", within: .seconds(30))
        #expect(kept.contains(operatorEntry), "the written ACL was kept across the restart: \(kept)")

        // B forgets the node: RemoveFabric on the bridge, which keeps A's fabric alone.
        let removed = try await b.ask("remove_node", #"{"node_id":1}"#)
        #expect(!removed.contains("error_code"), "\(removed)")
        #expect(
            eventually(timeout: .seconds(10)) { LogFile.read(serveLog).contains("Matter: fabric 2 removed") },
            "\(diagnostics())")
        let one = try await a.read("0/62/3", within: .seconds(30))
        #expect(MatterBridgeTests.says(one, "0/62/3", "1"), "one fabric left: \(one)\n\(diagnostics())")
        let left = try show()
        #expect(left.contains("commissioned on 1 fabric:"), "\(left)")
        #expect(left.contains("fabric id 0000000000000001") && !left.contains("fabric id 0000000000000002"), "\(left)")
        try await Self.command(a, toggle, reaches: commands, diagnostics)
        #expect(!LogFile.read(serveLog).contains(String(Self.passcode)), "the passcode is never logged")
    }

    /// A writes its fabric's ACL: its own Administer entry and Operate for node 0x1234 on the light's On/Off
    /// alone; A reads both back, B (another fabric) still only its own. The operator entry as read.
    static func writeAccessControl(
        _ a: Admin, _ b: Admin, light: Int, _ diagnostics: () -> String
    ) async throws -> String {
        let before = try await a.read("0/31/0", within: .seconds(30))
        let admin = try #require(
            before.range(of: #""3": \[(\d+)\]"#, options: .regularExpression).map {
                before[$0].filter(\.isNumber).dropFirst()
            }, "A's entry names its node: \(before)")
        let acl =
            #"[{"privilege":5,"authMode":2,"subjects":[\#(admin)],"targets":null,"fabricIndex":1},"#
            + #"{"privilege":3,"authMode":2,"subjects":[4660],"targets":[{"cluster":6,"endpoint":\#(light),"#
            + #""deviceType":null}],"fabricIndex":1}]"#
        let written = try await a.ask("write_attribute", #"{"node_id":1,"attribute_path":"0/31/0","value":\#(acl)}"#)
        print("Matter Server A write_attribute 0/31/0: \(written.prefix(300))")
        #expect(written.contains(#""Status": 0"#) && !written.contains("error_code"), "\(written)\n\(diagnostics())")
        let after = try await a.read("0/31/0", within: .seconds(30))
        let operatorEntry = #""3": [4660], "4": [{"0": 6, "1": \#(light), "2": null}]"#
        #expect(after.contains(operatorEntry) && after.contains(#""3": [\#(admin)]"#), "\(after)\n\(diagnostics())")
        let others = try await b.read("0/31/0", within: .seconds(30))
        #expect(!others.contains("4660") && others.contains(#""1": 5"#), "B's ACL is its own: \(others)")
        return operatorEntry
    }

    /// `admin`'s Toggle is answered and reaches the light's set topic (within 10 s).
    static func command(
        _ admin: Admin, _ toggle: String, reaches commands: () -> Int, _ diagnostics: () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let before = commands()
        let answer = try await admin.ask("device_command", toggle)
        #expect(
            !answer.contains("error_code"), "\(admin.name): \(answer)\n\(diagnostics())", sourceLocation: sourceLocation
        )
        #expect(
            eventually(timeout: .seconds(10)) { commands() > before },
            "\(admin.name)'s Toggle reached the light\n\(diagnostics())", sourceLocation: sourceLocation)
    }

    /// The JSON string after `key` (which ends with its opening quote) in `text`.
    static func string(after key: String, in text: String) -> String? {
        guard let range = text.range(of: key) else { return nil }
        let value = text[range.upperBound...].prefix { $0 != "\"" }
        return value.isEmpty ? nil : String(value)
    }
}
