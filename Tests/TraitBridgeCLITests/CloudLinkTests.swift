import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// Two bridges on loopback: B bridges zigbee2mqtt and serves Google's fulfillment (its own broker);
/// A links to B as Google would. A shows B's devices (locality remote), a command on A goes
/// A → HTTP → B → MQTT → device and comes back confirmed, and B stopping takes them offline on A
/// with the link's reason.
extension FulfillmentTests {
    @Test("cloud link: A imports B's devices, commands them through B (confirmed), and says when B is gone")
    func cloudLink() async throws {
        try await withHome { bridgeB in try await cloudLink(bridgeB) }
    }

    /// Bridge A: its own broker, linked to B (`link` adds fields to the link's entry).
    func startA(linkedTo bridgeB: Home, link: String = "", configLink: Bool = true) throws -> (
        broker: MosquittoBroker, serve: BridgeProcess, folder: String
    ) {
        let brokerA = try MosquittoBroker()
        let folder = bridgeB.folder + "/a"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "\(Self.staticToken)\n".write(toFile: folder + "/token", atomically: true, encoding: .utf8)
        let linkEntry = """
            {"name": "b", "url": "\(bridgeB.base)/smarthome", "tokenFile": "\(folder)/token",
             "pollSeconds": 1, "timeoutSeconds": 8 \(link)}
            """
        try """
        {"broker": "\(brokerA.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
         "logLevel": "info", "commandTimeoutSeconds": 5,
         "cloudLinks": [\(configLink ? linkEntry : "")]}
        """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
        let serveA = try BridgeProcess(
            ["serve", "--config", folder + "/config.json"],
            log: folder + "/serve.log")
        return (brokerA, serveA, folder)
    }

    func cloudLink(_ bridgeB: Home) async throws {
        let (brokerA, serveA, folder) = try startA(linkedTo: bridgeB)
        defer { serveA.stop() }
        let watcher = try TestMQTTClient(
            brokerA,
            subscribe: ["traitbridge/devices/+", "traitbridge/devices/+/state", "traitbridge/devices/+/set/result"])
        let z2m = try TestMQTTClient(bridgeB.broker, subscribe: ["zigbee2mqtt/Hall light/set"])

        // B's Hall light appears on A, remote.
        let description = watcher.waitFor("traitbridge/devices/c2c-z2m-0x00158d0001000001")
        #expect(description?.payloadText.contains("Hall light") == true, "A imported B's Hall light")
        let light = "c2c-z2m-0x00158d0001000001"
        let state = watcher.waitFor("traitbridge/devices/\(light)/state") {
            $0.payloadText.contains(#""connectivityState":"online""#)
        }
        #expect(state?.payloadText.contains(#""remote""#) == true, "\(state?.payloadText ?? "no state")")

        let healthy = try CommandRunner.run(["status", "--broker", brokerA.url])
        #expect(healthy.standardOutput.contains("cloud link b: 3 devices, ok"), "\(healthy.standardOutput)")

        // A command on A reaches the device behind B; B's pretend zigbee2mqtt answers; A confirms.
        try watcher.publish(
            "traitbridge/devices/\(light)/set", #"{"id":"link-1","trait":"matter.OnOff","command":"on"}"#)
        let set = z2m.waitFor("zigbee2mqtt/Hall light/set")
        #expect(
            set?.payloadText.contains("ON") == true, "the command crossed both bridges: \(set?.payloadText ?? "none")")
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":100}"#, retain: true)
        let result = watcher.waitFor("traitbridge/devices/\(light)/set/result") { $0.payloadText.contains("link-1") }
        #expect(result?.payloadText.contains(#""confirmed""#) == true, "\(result?.payloadText ?? "no result")")

        // B stops: within a few polls the light is offline on A, and says which link and why.
        let output = folder + "/watch.out"
        let watch = try BridgeProcess(
            ["watch", "--broker", brokerA.url, "--json", "--duration", "8"],
            log: output)
        defer { watch.stop() }
        try await Task.sleep(for: .milliseconds(500))  // --json says nothing until the first change
        bridgeB.serve.stop()
        let offline = watcher.waitFor("traitbridge/devices/\(light)/state", timeout: .seconds(15)) {
            $0.payloadText.contains(#""connectivityState":"offline""#)
        }
        #expect(
            offline?.payloadText.contains("link b: SYNC failed: connection refused") == true
                || offline?.payloadText.contains("link b: QUERY failed: connection refused") == true,
            "\(offline?.payloadText ?? "still not offline")")
        #expect(watch.waitForExit(within: .seconds(15)) == 0)
        let lines = WatchCommandTests.read(output)
        #expect(
            lines.contains(#"{"event":"link","link":"b","state":"failing","since":"#)
                && lines.contains("connection refused"), "watch says the link fails: \(lines)")
        let failing = try CommandRunner.run(["status", "--broker", brokerA.url])
        #expect(
            failing.standardOutput.contains("cloud link b: 3 devices, FAILING since")
                && failing.standardOutput.contains("connection refused"), "\(failing.standardOutput)")

        // B restarted: the link's next good answer brings the light back.
        let restartedB = try BridgeProcess(
            ["serve", "--config", bridgeB.folder + "/config.json"],
            log: bridgeB.folder + "/serve-again.log")
        defer { restartedB.stop() }
        let mark = watcher.messages.all.count
        let back = eventually(timeout: .seconds(15)) {
            watcher.messages.all.dropFirst(mark).contains {
                $0.topic == "traitbridge/devices/\(light)/state"
                    && $0.payloadText.contains(#""connectivityState":"online""#)
            }
        }
        #expect(back, "online again after B came back")
        let log = TestFiles.text(atPath: folder + "/serve.log")
        #expect(!log.contains(Self.staticToken), "the link's token is never logged")
        serveA.stop()
        brokerA.stop()
    }
}

extension FulfillmentTests {
    @Test("cloud link merge: a device A bridges itself and B shares (same IEEE address) is one device on A, mixed")
    func cloudLinkMerge() async throws {
        try await withHome { bridgeB in
            let brokerA = try MosquittoBroker()
            defer { brokerA.stop() }
            let folder = bridgeB.folder + "/a"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try "\(Self.staticToken)\n".write(toFile: folder + "/token", atomically: true, encoding: .utf8)
            try """
            {"broker": "\(brokerA.url)", "dataDir": "\(folder)/data", "mappings": "\(CommandRunner.repository)/mappings",
             "cloudLinks": [{"name": "b", "url": "\(bridgeB.base)/smarthome", "tokenFile": "\(folder)/token",
                             "pollSeconds": 1}]}
            """.write(toFile: folder + "/config.json", atomically: true, encoding: .utf8)
            // A's own zigbee2mqtt sees the same Hall light (the same IEEE address) as B's.
            let z2mA = try TestMQTTClient(brokerA, subscribe: ["traitbridge/devices/+/state", "traitbridge/devices/+"])
            let devices = try String(
                contentsOfFile: CommandRunner.repository + "/examples/demo-zigbee2mqtt-devices.json", encoding: .utf8)
            try z2mA.publish("zigbee2mqtt/bridge/devices", devices, retain: true)
            try z2mA.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":100}"#, retain: true)
            let serveA = try BridgeProcess(
                ["serve", "--config", folder + "/config.json"],
                log: folder + "/serve.log")
            defer { serveA.stop() }
            let own = "traitbridge/devices/z2m-0x00158d0001000001/state"
            let merged = z2mA.waitFor(own, timeout: .seconds(20)) { $0.payloadText.contains(#""mixed""#) }
            #expect(merged != nil, "A's own Hall light holds B's traits too: \(z2mA.waitFor(own)?.payloadText ?? "")")
            let second = z2mA.messages.all.last { $0.topic == "traitbridge/devices/c2c-z2m-0x00158d0001000001/state" }
            #expect(second == nil || second?.payload.isEmpty == true, "no second device for it (or it was cleared)")
        }
    }
}
