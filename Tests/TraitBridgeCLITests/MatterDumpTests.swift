import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeTesting

/// `simulate --matter DIR` says no early: a folder that does not exist is an error; each dump is
/// read in either shape (a node, or Home Assistant's `{"node": …}`), and a bad one is skipped with
/// its reason while the others load into the real Matter Server.
@Suite("simulate --matter: node dumps", .serialized)
struct MatterDumpTests {
    @Test("a folder of node dumps that does not exist is an error that says so")
    func missingFolder() throws {
        let result = try CommandRunner.run([
            "simulate", "--scenario", CommandRunner.repository + "/examples/demo-home.json", "--matter",
            "/nonexistent-dumps", "--broker", "mqtt://127.0.0.1:1", "--duration", "1",
        ])
        #expect(result.exitCode == 1)
        #expect(
            result.standardError.contains("the folder of node dumps '/nonexistent-dumps' does not exist"),
            "\(result.standardError)")
    }

    @Test(
        "Home Assistant's {\"node\": …} shape is read; a dump that is no node is skipped with its reason",
        .enabled(
            if: MatterServerPeer.unavailableReason(repository: CommandRunner.repository) == nil,
            "\(MatterServerPeer.unavailableReason(repository: CommandRunner.repository) ?? ""): skipped"))
    func eitherShape() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-dumps-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let node = try String(
            contentsOfFile: CommandRunner.repository + "/examples/matter/living-room-bridge.json", encoding: .utf8)
        try #"{"node": \#(node)}"#.write(toFile: folder + "/wrapped.json", atomically: true, encoding: .utf8)
        try #"{"nodes": []}"#.write(toFile: folder + "/other.json", atomically: true, encoding: .utf8)
        try "{not json".write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        // No broker on port 1: the simulator stops (exit 3) right after the Matter Server has its nodes.
        let result = try CommandRunner.run([
            "simulate", "--scenario", CommandRunner.repository + "/examples/demo-home.json", "--matter", folder,
            "--broker", "mqtt://127.0.0.1:1", "--duration", "1",
        ])
        #expect(result.standardError.contains("skipped Matter node dump broken.json: not a JSON object"))
        #expect(
            result.standardError.contains(
                #"skipped Matter node dump other.json: expected a node ({"node_id": …, "attributes": {…}})"#),
            "\(result.standardError)")
        #expect(
            result.standardOutput.contains("imported 1 node dump (wrapped.json)"),
            "\(result.standardOutput) \(result.standardError)")
    }
}
