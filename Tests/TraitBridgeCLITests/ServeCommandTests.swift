import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `traitbridge serve` as a real process against a real broker.
@Suite("traitbridge serve", .serialized)
struct ServeCommandTests {
    func startServe(_ broker: MosquittoBroker, data: String, extra: [String] = []) throws -> ChildProcess {
        try ChildProcess(
            [CommandRunner.executable.path, "serve", "--broker", broker.url, "--data-dir", data,
             "--mappings", CommandRunner.repository + "/mappings", "--log-level", "warning"] + extra,
            logFile: data + ".log")
    }

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tb-serve-\(UUID().uuidString)").path
    }

    /// A broker, a client watching `traitbridge/bridge/state`, and `serve` once it said `online`.
    func runningServe(data: String) throws -> (MosquittoBroker, TestMQTTClient, ChildProcess) {
        let broker = try MosquittoBroker()
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        let serve = try startServe(broker, data: data)
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        return (broker, watcher, serve)
    }

    @Test("SIGTERM: publishes offline (retained) and exits 0")
    func gracefulShutdown() throws {
        let data = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (broker, watcher, serve) = try runningServe(data: data)
        #expect(serve.signal(SIGTERM, waitUpTo: .seconds(10)))
        #expect(serve.exitStatus == 0)
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "offline" } != nil)
        let late = try TestMQTTClient(broker, subscribe: ["traitbridge/bridge/state"])
        #expect(late.waitFor("traitbridge/bridge/state") { $0.payloadText == "offline" && $0.isRetained } != nil)
    }

    @Test("kill -9: the broker publishes the Last Will, offline")
    func lastWill() throws {
        let data = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let (_, watcher, serve) = try runningServe(data: data)
        serve.kill()
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "offline" } != nil)
    }

    @Test("a bad broker URL and a bad config file are usage errors that say what to fix")
    func badSettings() throws {
        let url = try CommandRunner.run(["serve", "--broker", "127.0.0.1:1883"])
        #expect(url.exitCode == 2)
        #expect(url.standardError.contains("invalid broker URL '127.0.0.1:1883': missing scheme"))
        let config = temporaryPath() + ".json"
        try #"{"broker": "mqtt://127.0.0.1:1", "zigbee2mqtt": {"basetopic": "z2m"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let result = try CommandRunner.run(["serve", "--config", config])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("\(config):1:63: zigbee2mqtt.basetopic: unknown key 'basetopic'"), "\(result.standardError)")
    }
}
