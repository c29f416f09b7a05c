import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `serve` and its registry file, as a real process against a real broker.
@Suite("traitbridge serve: the registry", .serialized)
struct ServeRegistryTests {
    let serve = ServeCommandTests()

    @Test("a registry that is not SQLite: serve exits 2 saying what to do, without a stack trace, and leaves the file")
    func damagedRegistry() throws {
        let data = serve.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try Data(repeating: 0x41, count: 4_096).write(to: URL(fileURLWithPath: data + "/traitbridge.sqlite"))
        let result = try CommandRunner.run([
            "serve", "--broker", "mqtt://127.0.0.1:1", "--data-dir", data,
            "--mappings", CommandRunner.repository + "/mappings",
        ])
        #expect(result.exitCode == 2)
        #expect(result.standardError.contains("is not a readable TraitBridge registry"), "\(result.standardError)")
        #expect(result.standardError.contains("mv \(data)/traitbridge.sqlite"))
        #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("0x0"))
        #expect(FileManager.default.fileExists(atPath: data + "/traitbridge.sqlite"))
    }

    @Test("a retained device left on the broker that the registry does not know is cleared at start; known ones stay")
    func leftoverCleared() throws {
        let data = serve.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let broker = try MosquittoBroker()
        let publisher = try TestMQTTClient(broker)
        try publisher.publish("traitbridge/devices/z2m-0x00158d00000dead", #"{"types":{}}"#, retain: true)
        try publisher.publish("traitbridge/devices/z2m-0x00158d00000dead/state", #"{"name":"Ghost"}"#, retain: true)
        let watcher = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#", "traitbridge/bridge/state"])
        // Retained on the broker: the watcher gets it as retained, or live when its subscription
        // raced the publication (the broker keeps a retained publication either way).
        #expect(watcher.waitFor("traitbridge/devices/z2m-0x00158d00000dead") { !$0.payload.isEmpty } != nil)
        let process = try serve.startServe(broker, data: data)
        defer { process.stop() }
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        #expect(
            watcher.waitFor("traitbridge/devices/z2m-0x00158d00000dead") { $0.payload.isEmpty } != nil,
            "description cleared")
        #expect(
            watcher.waitFor("traitbridge/devices/z2m-0x00158d00000dead/state") { $0.payload.isEmpty } != nil,
            "state cleared")
        let marker = "traitbridge-test/marker"
        let late = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/#", marker])
        try late.publish(marker, "x")
        #expect(late.waitFor(marker) != nil, "every retained message arrived before the marker")
        #expect(
            !late.messages.all.contains { $0.topic.hasPrefix("traitbridge/devices/z2m-0x00158d00000dead") },
            "nothing retained is left")
    }
}
