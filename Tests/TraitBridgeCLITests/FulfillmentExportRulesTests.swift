import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Testing
import TraitBridgeTesting

/// What Google is given: the config's export rules through the real endpoint, and
/// `traitbridge cloud preview` saying why a device is left out.
extension FulfillmentTests {
    @Test(
        "export rules: an excluded device is not in SYNC, is deviceNotFound for QUERY and EXECUTE; cloud preview says why"
    )
    func exportRules() async throws {
        let rules = #""export": {"exclude": {"ids": ["z2m-0x00158d0001000003"], "types": ["SENSOR"]}},"#
        try await withHome(extra: rules) { home in try await exportRules(home) }
    }

    func exportRules(_ home: Home) async throws {
        let sync = try await send(home, .POST, "/smarthome", body: intent("SYNC"), token: Self.staticToken)
        let ids = ((sync.json["payload"] as? [String: Any])?["devices"] as? [[String: Any]])?.compactMap {
            $0["id"] as? String
        }
        #expect(ids == ["z2m-0x00158d0001000001"], "the relay by id, the climate sensor by type: \(ids ?? [])")
        let query = try await send(
            home, .POST, "/smarthome", body: intent("QUERY", #"{"devices":[{"id":"z2m-0x00158d0001000003"}]}"#),
            token: Self.staticToken)
        #expect(query.body.contains(#""errorCode":"deviceNotFound""#), "\(query.body)")
        let commands = #"""
            {"commands":[{"devices":[{"id":"z2m-0x00158d0001000003"}],
              "execution":[{"command":"action.devices.commands.OnOff","params":{"on":true}}]}]}
            """#
        let execute = try await send(
            home, .POST, "/smarthome", body: intent("EXECUTE", commands), token: Self.staticToken)
        #expect(execute.body.contains(#""errorCode":"deviceNotFound""#), "\(execute.body)")
        let preview = try CommandRunner.run(
            ["cloud", "preview", "--broker", home.broker.url, "--mappings", CommandRunner.repository + "/mappings"])
        #expect(preview.exitCode == 0, "\(preview.standardError)")
        #expect(
            preview.standardOutput.contains(#""id" : "z2m-0x00158d0001000001""#)
                || preview.standardOutput.contains(#""id": "z2m-0x00158d0001000001""#), "\(preview.standardOutput)")
        #expect(preview.standardError.contains("1 device for Google"), "\(preview.standardError)")
        #expect(preview.standardError.contains("not given: z2m-0x00158d0001000003: left out by the export rules"))
        #expect(preview.standardError.contains("not given: z2m-0x00158d0001000002: left out by the export rules"))
    }
}
