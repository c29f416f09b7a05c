import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMQTT
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources
import TraitBridgeTesting

/// The Matter source against a real Matter Server (python-matter-server 7.0.1, installed by
/// `scripts/install-matter-server.sh`) with corpus nodes imported, and `traitbridge serve` as a
/// process on a real broker. The server ignores commands to imported test nodes and never
/// changes their attributes: what this covers is the whole read path, node removal, the
/// server's answers to commands, and the connection chain; live attribute updates are covered
/// at the plug-in level (MatterPluginTests) with the server's own event messages.
@Suite(
    "Matter Server source", .serialized,
    .enabled(
        if: MatterServerPeer.unavailableReason(repository: CommandRunner.repository) == nil,
        "\(MatterServerPeer.unavailableReason(repository: CommandRunner.repository) ?? "")"),
    .enabled(if: TestPaths(filePath: #filePath).corpus != nil, "../shared/corpus is not present"))
struct MatterServerTests {
    static func node(_ file: String) throws -> String {
        try String(contentsOfFile: TestPaths(filePath: #filePath).corpus! + "/matter/nodes/" + file, encoding: .utf8)
    }

    @Test(
        "corpus nodes in a real Matter Server: devices, bridged reachability, commands answered, removal, server lost")
    func corpusThroughServer() throws {
        let broker = try MosquittoBroker()
        let server = try MatterServerPeer(repository: CommandRunner.repository)
        // Numbered by the server from 900000 in this order.
        // The thermostat as the server holds a node it cannot reach now.
        let unreachable = try Self.node("aqara_thermostat_w500.json")
            .replacingOccurrences(of: #""available": true"#, with: #""available": false"#)
        try server.importNodes([
            try Self.node("fritz_bridge.json"), try Self.node("inovelli_vtm31.json"),
            try Self.node("heiman_co_sensor.json"), unreachable,
        ])
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+", "traitbridge/devices/+/state"])
        let serve = try MatterServe(broker: broker, matterServer: server.url)
        func log() -> String { serve.log }

        // The dimmer: one device, its six endpoints as device types, online through the server.
        let dimmer = watcher.waitFor("traitbridge/devices/matter-900001/state") {
            $0.payloadText.contains(#""connectivityState":"online""#)
        }
        #expect(dimmer != nil, "\(log().suffix(3000))")
        let description = watcher.waitFor("traitbridge/devices/matter-900001")?.payloadText ?? ""
        for type in ["DimmableLight", "DimmerSwitch", "GenericSwitch", "ExtendedColorLight"] {
            #expect(description.contains("matter.\(type)"), "\(type) in \(description.prefix(400))")
        }
        #expect(description.contains(#""isMatterDevice":true"#))
        // FRITZ!: the bridge is no device; its bridged node is, offline because Reachable is false.
        let bridged = watcher.waitFor("traitbridge/devices/matter-900000-42/state") {
            $0.payloadText.contains(#""connectivityState":"offline""#)
        }
        #expect(
            bridged?.payloadText.contains("Matter node 900000 endpoint 42 (Reachable) said offline") == true,
            "\(bridged?.payloadText ?? "none")")
        #expect(watcher.messages.all.allSatisfy { $0.topic != "traitbridge/devices/matter-900000" })
        #expect(watcher.waitFor("traitbridge/devices/matter-900002/state") != nil)

        // An unavailable node: its traits offline, saying which node.
        let thermostat = watcher.waitFor("traitbridge/devices/matter-900003/state") {
            $0.payloadText.contains(#""connectivityState":"offline""#)
        }
        #expect(thermostat?.payloadText.contains("Matter node 900003 (available) said offline") == true)

        // A command goes to the server, which answers it (test nodes are not changed: assumed).
        let on = try CommandRunner.run(
            ["command", "matter-900001", "matter.OnOff.on", "--device-type", "ep1", "--broker", broker.url])
        #expect(on.exitCode == 0 && on.standardOutput.contains("assumed"), "\(on.standardOutput) \(on.standardError)")
        // A write to the unavailable node is refused by the bridge with the node's reason.
        let refused = try CommandRunner.run(
            ["set", "matter-900003", "matter.Thermostat.occupiedHeatingSetpoint=2100", "--broker", broker.url])
        #expect(refused.exitCode == 1, "\(refused.standardOutput) \(refused.standardError)")
        #expect(
            (refused.standardOutput + refused.standardError).contains("Matter node 900003 (available) said offline"),
            "\(refused.standardOutput) \(refused.standardError)")

        // A node removed from the fabric: its device goes.
        let removed = try server.send(#"{"message_id":"rm","command":"remove_node","args":{"node_id":900002}}"#)
        #expect(removed.contains(#""result""#), "\(removed)")
        #expect(watcher.waitFor("traitbridge/devices/matter-900002") { $0.payload.isEmpty } != nil)

        // The server goes away: every Matter trait offline, saying so; the bridge keeps running.
        server.stop()
        let lost = watcher.waitFor("traitbridge/devices/matter-900001/state") {
            $0.payloadText.contains(#""connectivityState":"offline""#)
        }
        #expect(
            lost?.payloadText.contains("Matter Server \(server.url) said offline") == true, "\(lost?.payloadText ?? "")"
        )
        #expect(serve.isRunning)
        #expect(log().contains("Matter Server \(server.url)"))
    }

    @Test(
        "every corpus node through the real server: the same devices, types, primary type and traits as read directly")
    func wholeCorpus() throws {
        let corpus = TestPaths(filePath: #filePath).corpus! + "/matter/nodes"
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") }
            .sorted()
        #expect(files.count == 8)
        let broker = try MosquittoBroker()
        let server = try MatterServerPeer(repository: CommandRunner.repository)
        let texts = try files.map { try String(contentsOfFile: corpus + "/" + $0, encoding: .utf8) }
        try server.importNodes(texts)
        // What each node is when read directly (MatterCorpusTests holds that to the descriptors),
        // with the id the server gave it.
        let source = MatterSource(
            catalog: try CatalogLoader.load(mappingsDirectory: CommandRunner.repository + "/mappings"))
        var expected: [String: [String]] = [:]
        for (index, text) in texts.enumerated() {
            var problems: [String] = []
            let json = try JSONDocument.parse(Array(text.utf8), maxDepth: 64).root
            var node = try #require(MatterNode.parse(json, problems: &problems))
            node.nodeID = 900_000 + UInt64(index)
            for (device, _) in source.map(node).devices {
                expected[device.id.rawValue] = device.deviceTypes.map {
                    "\($0.key) \($0.typeID) primary=\($0.isPrimaryType) \($0.traits.map(\.traitID.description).sorted())"
                }.sorted()
            }
        }
        #expect(expected.count == 8)
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+"])
        let serve = try MatterServe(broker: broker, matterServer: server.url)
        for (id, types) in expected.sorted(by: { $0.key < $1.key }) {
            let message = try #require(watcher.waitFor("traitbridge/devices/\(id)"), "\(id) published")
            let description = try JSONDocument.parse(message.payload, maxDepth: 64).root
            let published = (description["types"]?.members ?? []).map { key, type in
                let traits = (type["traits"]?.members ?? []).map(\.key).sorted()
                return "\(key) \(type["type"]?.string ?? "") primary=\(type["isPrimaryType"]?.bool ?? false) \(traits)"
            }.sorted()
            #expect(published == types, "\(id)")
            #expect(description["isMatterDevice"]?.bool == true)
        }
        #expect(
            watcher.messages.all.filter {
                $0.topic.hasPrefix("traitbridge/devices/matter-") && !$0.topic.hasSuffix("/state")
            }
            .map(\.topic).allSatisfy { topic in expected.keys.contains { topic.hasSuffix("/" + $0) } })
        #expect(serve.isRunning, "serve still running after the eight nodes: \(serve.log.suffix(2000))")
    }
}

/// `traitbridge serve` as a process reading a Matter Server, with its own registry folder; stopped
/// and its folder removed when the value goes.
final class MatterServe {
    let process: BridgeProcess
    let data: String

    init(broker: MosquittoBroker, matterServer: String) throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("tb-matter-\(UUID().uuidString)").path
        process = try BridgeProcess(
            [
                "serve", "--broker", broker.url, "--data-dir", data,
                "--mappings", CommandRunner.repository + "/mappings", "--matter-server", matterServer,
                "--log-level", "info",
            ], log: data + ".log")
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(atPath: data)
        try? FileManager.default.removeItem(atPath: data + ".log")
    }

    var isRunning: Bool { process.isRunning }
    var log: String { LogFile.read(data + ".log") }
}
