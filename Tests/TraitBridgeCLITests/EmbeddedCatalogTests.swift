import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The binary carries its catalog: a copy of `traitbridge` in a folder of its own, run from `/`
/// with no mappings flag, validates the embedded catalog and serves devices with it; a folder
/// given with `--mappings` adds to it, file by file, and a mistake there names the user's file.
@Suite("The embedded catalog", .serialized)
struct EmbeddedCatalogTests {
    /// A copy of the built binary alone in a fresh folder, removed by the caller.
    func copiedBinary() throws -> (folder: String, binary: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-copy-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Copied by cp, not in this process: a file this process had open for writing could be inherited
        // by a child another test forks meanwhile, and exec would fail with ETXTBSY ("text file busy").
        let copy = Process()
        copy.executableURL = URL(fileURLWithPath: "/bin/cp")
        copy.arguments = [CommandRunner.executable.path, folder + "/traitbridge"]
        try copy.run()
        copy.waitUntilExit()
        try #require(copy.terminationStatus == 0, "cp of the binary")
        return (folder, folder + "/traitbridge")
    }

    /// Runs `binary arguments…` from `/` (standard output and error together), with a 60 s limit.
    func runFromRoot(_ binary: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("a copied binary run from / validates the catalog it carries: every shipped file, named as embedded")
    func validateEmbedded() throws {
        let (folder, binary) = try copiedBinary()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try runFromRoot(binary, ["mappings", "validate"])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("the embedded catalog (traitbridge "), "\(result.output)")
        #expect(result.output.hasSuffix("device types, 5 source tables, 0 generic devices)\n"), "\(result.output)")
        // The same counts as the repository's own folder: the embedded catalog is never stale.
        let shipped = try CommandRunner.run(["mappings", "validate", CommandRunner.repository + "/mappings"])
        let counts = { (text: String) in text.split(separator: "(").last.map(String.init) }
        #expect(counts(result.output) == counts(shipped.standardOutput))
    }

    @Test("a folder without catalog/ is read over the embedded catalog; its mistake names its own file")
    func overlay() throws {
        let (folder, binary) = try copiedBinary()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/extra/generic", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: CommandRunner.repository + "/examples/generic-devices.json",
            toPath: folder + "/extra/generic/mine.json")
        let good = try runFromRoot(binary, ["mappings", "validate", folder + "/extra"])
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.hasPrefix("\(folder)/extra over the embedded catalog"), "\(good.output)")
        #expect(good.output.hasSuffix("3 generic devices)\n"), "\(good.output)")
        try #"{"devices": [{"id": 5}]}"#.write(
            toFile: folder + "/extra/generic/bad.json", atomically: true, encoding: .utf8)
        let bad = try runFromRoot(binary, ["mappings", "validate", folder + "/extra"])
        #expect(bad.status == 1)
        #expect(bad.output.contains("\(folder)/extra/generic/bad.json:1:"), "\(bad.output)")
        #expect(!bad.output.contains("traitbridge-mappings-"), "no private temporary path in any message")
    }

    @Test("serve from a copied binary, run from /, with no mappings flag: a zigbee2mqtt device is described")
    func serveEmbedded() throws {
        let (folder, binary) = try copiedBinary()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let broker = try MosquittoBroker()
        let client = try TestMQTTClient(broker, subscribe: ["traitbridge/devices/+"])
        try client.publish(
            "zigbee2mqtt/bridge/devices",
            #"[{"ieee_address":"0x00158d0009000001","type":"Router","friendly_name":"Shed plug","definition":{"#
                + #""exposes":[{"type":"switch","features":[{"type":"binary","name":"state","property":"state","#
                + #""access":7,"value_on":"ON","value_off":"OFF"}]}]}}]"#,
            retain: true)
        let serve = try BridgeProcess(
            launching: [
                "/bin/sh", "-c", "cd / && exec '\(binary)' serve --broker \(broker.url) --data-dir '\(folder)/data'",
            ], command: "serve", log: folder + "/serve.log")
        defer { serve.stop() }
        let described = client.waitFor("traitbridge/devices/z2m-0x00158d0009000001") {
            $0.payloadText.contains("Shed plug")
        }
        let log = WatchCommandTests.read(folder + "/serve.log")
        #expect(described != nil, "\(log)")
        #expect(log.contains("mappings: the embedded catalog (traitbridge "), "\(log)")
    }
}
