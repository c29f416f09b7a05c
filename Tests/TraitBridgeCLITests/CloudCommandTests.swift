import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// `sync`, `query` and `execute` against a real broker and a real `serve`.
@Suite("traitbridge sync / query / execute", .serialized)
struct CloudCommandTests {
    static let sync = """
        {"requestId": "s1", "payload": {"agentUserId": "u1", "devices": [
          {"id": "cloud-hall", "type": "action.devices.types.LIGHT",
           "traits": ["action.devices.traits.OnOff", "action.devices.traits.Brightness"],
           "name": {"name": "Hall light (cloud)"}, "willReportState": true, "matterUniqueId": "0x00158d0001000001"},
          {"id": "cloud-plug", "type": "action.devices.types.OUTLET", "traits": ["action.devices.traits.OnOff"],
           "name": {"name": "Garden plug"}, "willReportState": true, "roomHint": "Garden"}
        ]}}
        """

    func file(_ name: String, _ text: String, in folder: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("import merges with the local light, QUERY makes it partiallyOnline, exports validate, EXECUTE answers per device")
    func roundTrip() throws {
        let (broker, serve, data) = try StatusCommandTests().home()
        defer { serve.stop(); try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data + "-files", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data + "-files") }
        let folder = data + "-files"

        let imported = try CommandRunner.run(["sync", "import", try file("sync.json", Self.sync, in: folder), "--broker", broker.url])
        #expect(imported.exitCode == 0, "\(imported.standardError)")
        #expect(imported.standardOutput == """
            imported cloud-hall as z2m-0x00158d0001000001 (merged into Hall light)
            imported cloud-plug as c2c-cloud-plug

            """)

        let query = #"{"payload":{"devices":{"cloud-hall":{"online":false,"status":"OFFLINE"},"cloud-plug":{"online":true,"status":"SUCCESS","on":false},"ghost":{"online":true}}}}"#
        let applied = try CommandRunner.run(["query", "import", try file("query.json", query, in: folder), "--broker", broker.url])
        #expect(applied.exitCode == 0, "\(applied.standardError)")
        #expect(applied.standardOutput.hasPrefix("updated 2 devices: z2m-0x00158d0001000001, c2c-cloud-plug\nnot imported by any SYNC (ignored): ghost\n"))

        let status = try CommandRunner.run(["status", "--broker", broker.url, "Hall light"])
        #expect(status.standardOutput.contains("partiallyOnline") && status.standardOutput.contains("mixed"), "\(status.standardOutput)")

        let exported = try CommandRunner.run(["sync", "export", "--broker", broker.url, "--agent-user-id", "u9"])
        #expect(exported.exitCode == 0)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(exported.standardOutput.utf8)) as? [String: Any])
        let devices = try #require((root["payload"] as? [String: Any])?["devices"] as? [[String: Any]])
        #expect(devices.compactMap { $0["id"] as? String }.sorted() == ["cloud-hall", "cloud-plug", "z2m-0x00158d0001000002", "z2m-0x00158d0001000003"])
        if let shared = TestPaths(filePath: #filePath).shared {
            let syncPath = try file("export.json", exported.standardOutput, in: folder)
            let queried = try CommandRunner.run(["query", "export", "--broker", broker.url])
            let queryPath = try file("query-export.json", queried.standardOutput, in: folder)
            for arguments in [["sync", syncPath], ["query", queryPath, "--sync", syncPath]] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                process.arguments = [shared + "/tools/c2c-validate"] + arguments
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "c2c-validate \(arguments[0]): \(output)")
            }
        } else {
            print("skipped: c2c-validate of the CLI exports needs ../shared")
        }

        let execute = #"{"requestId":"x9","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"cloud-plug"},{"id":"nobody"}],"execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}}]}]}}]}"#
        let executed = try CommandRunner.run(["execute", try file("execute.json", execute, in: folder), "--broker", broker.url])
        #expect(executed.exitCode == 0, "\(executed.standardError)")
        let response = try #require(try JSONSerialization.jsonObject(with: Data(executed.standardOutput.utf8)) as? [String: Any])
        #expect(response["requestId"] as? String == "x9")
        let groups = try #require((response["payload"] as? [String: Any])?["commands"] as? [[String: Any]])
        #expect(groups.contains { ($0["ids"] as? [String]) == ["cloud-plug"] && $0["status"] as? String == "PENDING" }, "relayed, no answer from the cloud yet: \(groups)")
        #expect(groups.contains { ($0["ids"] as? [String]) == ["nobody"] && $0["errorCode"] as? String == "deviceNotFound" })
    }

    @Test("--dry-run --json needs no bridge; a rejected device exits 1; a file that is not JSON names line and column")
    func dryRun() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-dry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bad = #"{"devices":[{"id":"a","type":"action.devices.types.OUTLET","traits":["action.devices.traits.OnOff"],"name":{"name":"A"},"willReportState":true},{"type":"action.devices.types.LIGHT"}]}"#
        let result = try CommandRunner.run(["sync", "import", "--dry-run", "--json", "--mappings", CommandRunner.repository + "/mappings", try file("bad.json", bad, in: folder)])
        #expect(result.exitCode == 1)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let devices = try #require(root["devices"] as? [[String: Any]])
        #expect(devices.map { $0["id"] as? String } == ["c2c-a"])
        #expect((devices.first?["types"] as? [[String: Any]])?.first?["type"] as? String == "matter.OnOffPlugInUnit")
        let problems = try #require(root["problems"] as? [[String: Any]])
        #expect(problems.count == 1)
        #expect(problems.first?["path"] as? String == "devices[1]")
        #expect(problems.first?["message"] as? String == "missing required field 'id'")
        #expect(problems.first?["deviceRejected"] as? Bool == true)

        let notJSON = try CommandRunner.run(["sync", "import", "--dry-run", "--mappings", CommandRunner.repository + "/mappings", try file("x.json", "{\n  \"devices\": [,]\n}", in: folder)])
        #expect(notJSON.exitCode == 1)
        #expect(notJSON.standardError.hasPrefix("error: \(folder)/x.json:2:15: not JSON"), "\(notJSON.standardError)")

        // Text: a line per device, the problems, the count. A list broken after a good device prints nothing of it.
        let mappings = CommandRunner.repository + "/mappings"
        let text = try CommandRunner.run(
            ["sync", "import", "--dry-run", "--mappings", mappings, try file("bad.json", bad, in: folder)])
        #expect(text.exitCode == 1)
        #expect(text.standardOutput == """
            c2c-a  A: matter.OnOffPlugInUnit [matter.Identify, matter.OnOff]
            devices[1]: missing required field 'id' (device not imported)
            1 devices, 1 problems

            """, "\(text.standardOutput)")
        let cut = try file("cut.json", String(bad.dropLast(30)) + "tru}]}", in: folder)
        let partway = try CommandRunner.run(["sync", "import", "--dry-run", "--mappings", mappings, cut])
        #expect(partway.exitCode == 1)
        #expect(partway.standardOutput.isEmpty, "\(partway.standardOutput)")
        #expect(partway.standardError.contains("not JSON"), "\(partway.standardError)")
    }

    @Test("no broker: exit 3 with the broker named")
    func unreachable() throws {
        let result = try CommandRunner.run(["sync", "export", "--broker", "mqtt://127.0.0.1:1", "--timeout", "1"])
        #expect(result.exitCode == 3)
        #expect(result.standardError.contains("cannot reach the broker mqtt://127.0.0.1:1"))
    }
}
