import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The home above the devices through the HTTP API, on a real `serve` and a real client: edits
/// need the admin role, runs the control role; every answer matches `api/openapi.json`.
extension FulfillmentTests {
    @Test("API: rooms, zones, groups, scenes, automations edited by an admin, run by control, read by a viewer")
    func apiHome() async throws {
        try await withHome { home in try await apiHome(home) }
    }

    func apiHome(_ home: Home) async throws {
        let check = SchemaCheck()
        func edit(_ operation: String, _ body: String, token: String = Self.adminToken) async throws -> Answer {
            try await send(home, .POST, "/api/v1/requests/\(operation)", body: body, token: token)
        }
        let refused = try await edit("room-add", #"{"name":"Attic"}"#, token: Self.staticToken)
        #expect(refused.status == 403 && (refused.json["detail"] as? String)?.contains("needs admin") == true)
        check.add("Problem", refused, "403 edit")
        let attic = try await edit("room-add", #"{"name":"Attic"}"#)
        #expect(attic.status == 200 && attic.json["status"] as? String == "ok", "\(attic.body)")
        check.add("RequestAnswer", attic, "room-add")
        let zone = try await edit("zone-add", #"{"name":"Upstairs","rooms":["Attic"]}"#)
        #expect(zone.status == 200, "\(zone.body)")
        let group = try await edit(
            "group-add",
            #"""
            {"name":"Lamps","members":["z2m-0x00158d0001000001",
             {"device":"z2m-0x00158d0001000003","deviceType":"switch_l1"}]}
            """#)
        #expect(group.status == 200, "\(group.body)")
        let scene = try await edit(
            "scene-add",
            #"""
            {"name":"Evening","actions":[{"device":"z2m-0x00158d0001000001","trait":"matter.OnOff","command":"on"}]}
            """#)
        #expect(scene.status == 200, "\(scene.body)")
        let automation = try await edit(
            "automation-add",
            #"""
            {"id":"lamp-on","name":"Lamp on","triggers":[{"type":"calendar","at":"23:59"}],
             "actions":[{"type":"command","device":"z2m-0x00158d0001000001","trait":"matter.OnOff","command":"off"}]}
            """#)
        #expect(automation.status == 200, "\(automation.body)")
        let duplicate = try await edit("room-add", #"{"name":"attic"}"#)
        #expect(duplicate.status == 422 && duplicate.json["type"] as? String == "urn:traitbridge:problem:refused")
        check.add("Problem", duplicate, "422 edit")
        let unknown = try await edit("sync-import", "{}")
        #expect(unknown.status == 404, "only the edit requests: \(unknown.body)")
        let notObject = try await edit("room-add", "[1,2]")
        #expect(notObject.status == 400, "\(notObject.body)")

        // Reads, with a viewer's token.
        let rooms = try await send(home, .GET, "/api/v1/rooms", token: Self.viewerToken)
        check.add("RoomList", rooms, "rooms")
        let atticEntry = (rooms.json["rooms"] as? [[String: Any]])?.first { $0["name"] as? String == "Attic" }
        #expect(atticEntry?["zones"] as? [String] == ["Upstairs"], "\(rooms.body)")
        let zones = try await send(home, .GET, "/api/v1/zones", token: Self.viewerToken)
        check.add("ZoneList", zones, "zones")
        #expect((zones.json["zones"] as? [[String: Any]])?.first?["rooms"] as? [String] == ["Attic"], "\(zones.body)")
        let groups = try await send(home, .GET, "/api/v1/groups", token: Self.viewerToken)
        check.add("GroupList", groups, "groups")
        let lamps = (groups.json["groups"] as? [[String: Any]])?.first
        #expect(lamps?["connectivityState"] as? String == "partiallyOnline", "the Relay is offline: \(groups.body)")
        #expect((lamps?["members"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Hall light", "Relay"])
        let one = try await send(home, .GET, "/api/v1/groups/lamps", token: Self.viewerToken)
        #expect(one.status == 200 && one.json["name"] as? String == "Lamps", "by name, ignoring case")
        check.add("Group", one, "group")
        let noGroup = try await send(home, .GET, "/api/v1/groups/ghost", token: Self.viewerToken)
        #expect(noGroup.status == 404)
        let scenes = try await send(home, .GET, "/api/v1/scenes", token: Self.viewerToken)
        check.add("SceneList", scenes, "scenes")
        let automations = try await send(home, .GET, "/api/v1/automations", token: Self.viewerToken)
        check.add("AutomationList", automations, "automations")
        #expect((automations.json["automations"] as? [[String: Any]])?.first?["name"] as? String == "Lamp on")
        let links = try await send(home, .GET, "/api/v1/cloud-links", token: Self.viewerToken)
        #expect(links.status == 200 && (links.json["links"] as? [Any])?.isEmpty == true, "\(links.body)")
        check.add("CloudLinkList", links, "cloud-links")
        let viewerRun = try await send(home, .POST, "/api/v1/scenes/Evening/run", token: Self.viewerToken)
        #expect(viewerRun.status == 403, "a viewer runs nothing")

        // Runs, with a control token; the pretend zigbee2mqtt confirms what reaches it.
        let z2m = try Zigbee2MQTTEcho(home.broker, device: "Hall light")
        defer { z2m.stop() }
        let command = try await send(
            home, .POST, "/api/v1/groups/Lamps/commands", body: #"{"trait":"matter.OnOff","command":"on"}"#,
            token: Self.staticToken)
        #expect(command.status == 200 && command.json["status"] as? String == "partial", "\(command.body)")
        let results = (command.json["results"] as? [[String: Any]]) ?? []
        #expect(results.map { $0["status"] as? String } == ["confirmed", "refused"], "\(command.body)")
        #expect(results.last?["code"] as? String == "deviceOffline", "\(command.body)")
        check.add("FanOutResult", command, "group command")
        let run = try await send(home, .POST, "/api/v1/scenes/evening/run", token: Self.staticToken)
        #expect(run.status == 200 && run.json["status"] as? String == "ok", "\(run.body)")
        check.add("FanOutResult", run, "scene run")
        let fired = try await send(home, .POST, "/api/v1/automations/lamp-on/run", token: Self.staticToken)
        #expect(fired.status == 200 && fired.json["status"] as? String == "ok", "\(fired.body)")
        check.add("FanOutResult", fired, "automation run")
        let history = try await send(home, .GET, "/api/v1/automations/Lamp%20on/history", token: Self.viewerToken)
        let runs = (history.json["runs"] as? [[String: Any]]) ?? []
        #expect(runs.count == 1 && runs.first?["reason"] as? String == "run by request", "\(history.body)")
        check.add("RunHistory", history, "history")
        let noRun = try await send(home, .POST, "/api/v1/automations/ghost/run", token: Self.staticToken)
        #expect(noRun.status == 404)
        #expect(z2m.received.map(\.payloadText) == [#"{"state":"ON"}"#, #"{"state":"ON"}"#, #"{"state":"OFF"}"#])

        // The CLI's `--json` lists, from the retained topics, are the API's answers.
        for (command, path, schema) in [
            ("room", "rooms", "RoomList"), ("zone", "zones", "ZoneList"), ("group", "groups", "GroupList"),
            ("scene", "scenes", "SceneList"), ("automation", "automations", "AutomationList"),
        ] {
            let api = try await send(home, .GET, "/api/v1/" + path, token: Self.viewerToken)
            let cli = try CommandRunner.run([command, "list", "--json", "--broker", home.broker.url])
            #expect(cli.exitCode == 0, "\(command) list --json: \(cli.standardError)")
            let printed = try JSONSerialization.jsonObject(with: Data(cli.standardOutput.utf8)) as? NSDictionary
            #expect(
                printed == api.json as NSDictionary, "\(command) list --json:\n\(cli.standardOutput)\nAPI: \(api.body)")
            check.add(schema, body: cli.standardOutput, "\(command) list --json")
        }
        try check.run(in: home.folder)
    }
}
