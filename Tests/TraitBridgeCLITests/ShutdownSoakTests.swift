import AsyncHTTPClient
import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

@testable import TraitBridgeCLI

/// `serve` with every listener busy, stopped by SIGTERM at a random moment, again and again: MQTT
/// under a publisher's load, the HTTP API with SSE and WebSocket clients, HomeKit with a paired
/// controller's verified session and a connection flood, a camera's live session and a cloud link
/// to a partner bridge. Every stop must be clean (status 0, no crash: `BridgeProcess`) and within
/// its deadline, and the registry must hold every change confirmed before it (a rename per round).
/// Loopback and the test's network sandbox only; every loop bounded.
@Suite(
    "Shutdown soak", .serialized,
    .enabled(
        if: HomeKitPeers.unavailableReason == nil && CameraPeers.unavailableReason == nil,
        "\(HomeKitPeers.unavailableReason ?? CameraPeers.unavailableReason ?? "")"))
struct ShutdownSoakTests {
    /// 20 (TRAITBRIDGE_SOAK_ROUNDS for a shorter run while developing).
    static let rounds = ProcessInfo.processInfo.environment["TRAITBRIDGE_SOAK_ROUNDS"].flatMap(Int.init) ?? 20
    /// A stop that takes longer than this is a failure (systemd's default is 90 s; ours is far less).
    static let stopDeadline = Duration.seconds(15)

    @Test("20 SIGTERMs at random moments under load: each stop clean and in time, every confirmed rename kept")
    func soak() throws {
        let partner = try FulfillmentTests().home()
        defer {
            partner.serve.stop()
            try? partner.client.syncShutdown()
            try? FileManager.default.removeItem(atPath: partner.folder)
        }
        let bed = try HomeKitTestBed(name: "soak")
        defer { bed.remove() }
        let folder = bed.folder
        let camera = try CameraPeers.camera(in: bed.sandbox, log: folder.appendingPathComponent("camera.log").path)
        defer { camera.stop() }
        let httpPort = MosquittoBroker.freeLoopbackPort()
        let homeKitPort = MosquittoBroker.freeLoopbackPort()
        let config = try Self.configure(
            folder: folder, bed: bed, partner: partner.base, httpPort: httpPort, homeKitPort: homeKitPort)
        try Self.publishHome(on: bed.broker)

        // The load that runs through every round: a light's state ~100 times a second (bounded), and
        // change-stream clients that reconnect whenever serve is back. (~300 a second, beside the Matter
        // suites' peers in make test on two cores, kept the CLI's read of the retained state past 30 s.)
        let load = try ChildProcess(
            [
                "/bin/sh", "-c",
                """
                i=0; while [ $i -lt 100000 ]; do echo "{\\"state\\":\\"ON\\",\\"brightness\\":$((i % 254))}"; \
                i=$((i+1)); sleep 0.01; done | /usr/bin/mosquitto_pub -h 127.0.0.1 -p \(bed.broker.port) -l \
                -t 'zigbee2mqtt/Hall light'
                """,
            ], logFile: folder.appendingPathComponent("load.log").path)
        defer { load.kill() }
        let clientsLog = folder.appendingPathComponent("clients.log").path
        let clients = try ChildProcess(
            [
                "/usr/bin/env", "python3", CommandRunner.repository + "/scripts/soak-clients.py", "127.0.0.1",
                String(httpPort), FulfillmentTests.viewerToken, "3", "3", "900",
            ], logFile: clientsLog)
        defer { clients.stop() }

        let controller = try bed.controller()
        defer { controller.stop() }
        var offer: String?
        var generator = SystemRandomNumberGenerator()
        var renamed: String?
        for round in 1...Self.rounds {
            let log = folder.appendingPathComponent("serve-\(round).log").path
            let serve = try BridgeProcess(
                ["serve", "--config", config], log: log, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bed.bus])
            let ready = eventually(timeout: .seconds(30)) {
                LogFile.read(log).contains("HomeKit: bridge") && MosquittoBroker.canConnect(port: httpPort)
            }
            try #require(ready, "round \(round): serve is up: \(BridgeProcess.tail(LogFile.read(log)))")
            // What the last round confirmed is in the registry.
            if let renamed {
                let found = eventually(timeout: .seconds(20)) { Self.deviceNames(bed.broker).contains(renamed) }
                #expect(found, "round \(round): the rename to \(renamed) confirmed before the stop was kept")
            }
            if round == 1 {
                try Self.pair(controller, log: log)
                offer = try Self.viewerOffer(bed)
            }
            #expect(controller.send(["op": "verify"])?["ok"] as? Bool == true, "round \(round): a verified session")
            if let offer {
                let live = try CommandRunner.run(
                    // 30 s: under make test on two cores the CLI's 10 s for the retained state ran out once.
                    ["camera", "live", "Front door", "--offer", offer, "--broker", bed.broker.url, "--timeout", "30"])
                let names = Self.deviceNames(bed.broker)
                let tail = BridgeProcess.tail(LogFile.read(log), lines: 40)
                #expect(live.exitCode == 0, "round \(round): a live session: \(live.standardError) \(names) \(tail)")
            }
            let name = "Soak relay \(round)"
            let rename = try CommandRunner.run(
                ["rename", renamed ?? "Relay", name, "--broker", bed.broker.url, "--timeout", "30"])
            #expect(rename.exitCode == 0, "round \(round): \(rename.standardOutput) \(rename.standardError)")
            if rename.exitCode == 0 { renamed = name }
            let flood = try ChildProcess(
                [
                    "/usr/bin/env", "python3", CommandRunner.repository + "/scripts/connection-flood.py",
                    bed.sandbox.hostAddress, String(homeKitPort), "3000", "1",
                ], logFile: folder.appendingPathComponent("flood-\(round).log").path)
            defer { flood.stop() }
            // A random moment while all of it goes on: before or after the flood closes its
            // connections (1 s), while the server may still be accepting them.
            let pause = Int.random(in: 0...1_500, using: &generator)
            Thread.sleep(forTimeInterval: Double(pause) / 1000)
            let started = ContinuousClock.now
            let clean = serve.stop(within: Self.stopDeadline)
            let took = ContinuousClock.now - started
            print("shutdown soak: round \(round), SIGTERM after \(pause) ms, stopped in \(took), clean \(clean)")
            #expect(clean, "round \(round): a clean stop within \(Self.stopDeadline)")
            guard clean else { break }
        }
        clients.stop()
        let report = LogFile.read(clientsLog).split(separator: "\n").last.map(String.init) ?? ""
        let counts = (try? JSONSerialization.jsonObject(with: Data(report.utf8))) as? [String: [String: Int]]
        #expect((counts?["sse"]?["opened"] ?? 0) >= Self.rounds, "SSE clients were connected each round: \(report)")
        #expect(
            (counts?["ws"]?["opened"] ?? 0) >= Self.rounds, "WebSocket clients were connected each round: \(report)")
    }

    /// serve's configuration: MQTT on the bed's broker, the HTTP API, Frigate's camera in the
    /// sandbox, a cloud link to the partner, and HomeKit announced in the sandbox on a fixed port.
    static func configure(
        folder: URL, bed: HomeKitTestBed, partner: String, httpPort: Int, homeKitPort: Int
    ) throws -> String {
        let path = folder.path
        try "\(FulfillmentTests.staticToken) script-user\n\(FulfillmentTests.viewerToken) panel viewer\n".write(
            toFile: path + "/tokens", atomically: true, encoding: .utf8)
        try "\(FulfillmentTests.staticToken)\n".write(toFile: path + "/link-token", atomically: true, encoding: .utf8)
        let settings: [String: Any] = [
            "broker": bed.broker.url, "dataDir": path + "/data", "mappings": CommandRunner.repository + "/mappings",
            "logLevel": "info", "commandTimeoutSeconds": 3,
            "http": ["listen": "127.0.0.1:\(httpPort)", "bearerTokensFile": path + "/tokens"],
            "frigate": ["go2rtc": "http://\(bed.sandbox.peerAddress):1984"],
            "cloudLinks": [
                [
                    "name": "b", "url": partner + "/smarthome", "tokenFile": path + "/link-token", "pollSeconds": 1,
                    "timeoutSeconds": 8,
                ]
            ],
            "homekit": [
                "listen": bed.sandbox.hostAddress, "port": homeKitPort, "mdns": [bed.sandbox.hostInterface],
                "setupCode": HomeKitTests.code,
            ],
        ]
        let config = path + "/config.json"
        try JSONSerialization.data(withJSONObject: settings).write(to: URL(fileURLWithPath: config))
        return config
    }

    /// The demo's zigbee2mqtt devices and Frigate's camera, retained: every start finds them.
    static func publishHome(on broker: MosquittoBroker) throws {
        let client = try TestMQTTClient(broker, subscribe: ["frigate/front_door/recordings/state"])
        let devices = try String(
            contentsOfFile: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json", encoding: .utf8)
        try client.publish("zigbee2mqtt/bridge/devices", devices, retain: true)
        try client.publish("zigbee2mqtt/Relay/availability", "online", retain: true)
        try client.publish("frigate/stats", #"{"cameras":{"front_door":{"camera_fps":5.0}}}"#, retain: true)
        try client.publish("frigate/front_door/recordings/state", "ON", retain: true)
        #expect(client.waitFor("frigate/front_door/recordings/state") != nil, "the broker has the home (retained)")
    }

    /// The controller pairs with the bridge once (its pairing is kept across every restart).
    static func pair(_ controller: HomeKitController, log: String) throws {
        #expect(eventually(timeout: .seconds(20)) { LogFile.read(log).contains("HomeKit: announced") })
        let line = LogFile.read(log).split(separator: "\n").first { $0.contains("HomeKit: bridge") } ?? ""
        let pairingID = line.split(separator: "(id ").last.map { String($0.prefix(17)) } ?? ""
        #expect(controller.send(["op": "find", "id": pairingID])?["ok"] as? Bool == true, "found by mDNS")
        let paired = controller.send(["op": "pair", "id": pairingID, "code": HomeKitTests.code])
        try #require(paired?["ok"] as? Bool == true, "paired: \(paired ?? [:])")
    }

    /// An aiortc viewer's SDP offer (the viewer itself is not needed after: the bridge's session
    /// with the camera is what stays open).
    static func viewerOffer(_ bed: HomeKitTestBed) throws -> String {
        let viewer = try CameraPeers.viewer(in: bed.sandbox, folder: bed.folder, seconds: 1)
        viewer.process.stop()
        return viewer.offer
    }

    /// The names `devices --json` lists.
    static func deviceNames(_ broker: MosquittoBroker) -> [String] {
        guard let result = try? CommandRunner.run(["devices", "--json", "--broker", broker.url]),
            let list = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]]
        else { return [] }
        return list.compactMap { $0["name"] as? String }
    }
}
