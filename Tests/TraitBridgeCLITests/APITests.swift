import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The HTTP API under `/api/v1` through a real `serve` and a real client: the document it serves
/// is `api/openapi.json`, every answer here is checked against that document's schemas (Python's
/// jsonschema, Draft 2020-12 as OpenAPI 3.1 uses), tokens are required, errors are problems.
extension FulfillmentTests {
    @Test("API: the served document is api/openapi.json; devices, filters, one device, homes, health, problems")
    func apiReads() async throws {
        try await withHome { home in try await apiReads(home) }
    }

    @Test("API: a command confirmed by the device's echo; refusals are problems with the contract's code")
    func apiCommands() async throws {
        try await withHome { home in try await apiCommands(home) }
    }

    /// Checks bodies against the document's schemas, all at once (one Python process).
    final class SchemaCheck {
        var cases: [(schema: String, body: String, place: String)] = []

        func add(_ schema: String, _ answer: Answer, _ place: String) { add(schema, body: answer.body, place) }

        func add(_ schema: String, body: String, _ place: String) {
            cases.append(("#/components/schemas/" + schema, body, place))
        }

        func run(in folder: String) throws {
            let input = folder + "/schema-cases.json"
            let entries = cases.map { ["schema": $0.schema, "body": $0.body, "place": $0.place] }
            try JSONSerialization.data(withJSONObject: entries).write(to: URL(fileURLWithPath: input))
            let script = """
                import json, sys
                from jsonschema import Draft202012Validator
                document = json.load(open(sys.argv[1]))
                failures = []
                for case in json.load(open(sys.argv[2])):
                    schema = {"$ref": case["schema"], "components": document["components"]}
                    for error in Draft202012Validator(schema).iter_errors(json.loads(case["body"])):
                        failures.append(f"{case['place']}: {list(error.absolute_path)}: {error.message}")
                print("\\n".join(failures) if failures else "ok")
                """
            let log = folder + "/schema-check.txt"
            let python = try ChildProcess(
                ["/usr/bin/python3", "-c", script, CommandRunner.repository + "/api/openapi.json", input], logFile: log)
            #expect(python.reap(within: .seconds(60)))
            let output = WatchCommandTests.read(log).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(output == "ok", "answers that do not match api/openapi.json:\n\(output)")
        }
    }

    func apiReads(_ home: Home) async throws {
        let check = SchemaCheck()
        let served = try await send(home, .GET, "/api/v1/openapi.json")
        #expect(served.status == 200)
        let file = WatchCommandTests.read(CommandRunner.repository + "/api/openapi.json")
        #expect(served.body == file, "the binary serves the repository's document")

        let anonymous = try await send(home, .GET, "/api/v1/devices")
        #expect(anonymous.status == 401 && anonymous.headers["content-type"] == "application/problem+json")
        #expect(anonymous.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
        check.add("Problem", anonymous, "401")
        let wrong = try await send(home, .GET, "/api/v1/health", token: "not-a-token-of-this-bridge")
        #expect(wrong.status == 401 && wrong.json["detail"] as? String == "the token is unknown or revoked")

        let all = try await send(home, .GET, "/api/v1/devices", token: Self.staticToken)
        #expect(all.status == 200)
        check.add("DeviceList", all, "devices")
        let ids = ((all.json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(ids.count == 3 && ids.contains("z2m-0x00158d0001000001"), "\(ids)")
        let offline = try await send(home, .GET, "/api/v1/devices?connectivity=offline", token: Self.staticToken)
        let offlineIDs = ((offline.json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(offlineIDs == ["z2m-0x00158d0001000003"], "the Relay only: \(offline.body)")
        #expect((offline.json["devices"] as? [Any])?.count == 1, "\(offline.body)")
        check.add("DeviceList", offline, "devices?connectivity=offline")
        let lights = try await send(home, .GET, "/api/v1/devices?trait=LevelControl", token: Self.staticToken)
        let lightIDs = ((lights.json["devices"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(lightIDs.contains("z2m-0x00158d0001000001") && !lightIDs.contains("z2m-0x00158d0001000003"))
        let bogus = try await send(home, .GET, "/api/v1/devices?connectivity=sometimes", token: Self.staticToken)
        #expect(bogus.status == 400 && (bogus.json["detail"] as? String)?.contains("sometimes") == true)
        check.add("Problem", bogus, "400")

        let hall = try await send(home, .GET, "/api/v1/devices/Hall%20light", token: Self.staticToken)
        #expect(hall.status == 200, "a device by its name: \(hall.body.prefix(300))")
        check.add("DeviceDocument", hall, "device")
        let state = hall.json["state"] as? [String: Any]
        #expect(state?["id"] as? String == "z2m-0x00158d0001000001")
        let relay = try await send(home, .GET, "/api/v1/devices/z2m-0x00158d0001000003", token: Self.staticToken)
        #expect(relay.body.contains("said offline"), "the reason is there: \(relay.body.prefix(400))")
        check.add("DeviceDocument", relay, "relay")
        // ?display=true: the values in people's words too, from the presentation table.
        let words = try await send(home, .GET, "/api/v1/devices/Hall%20light?display=true", token: Self.staticToken)
        let display = words.json["display"] as? [String: String] ?? [:]
        #expect(
            ["on", "off"].contains(display["light/matter.OnOff.onOff"] ?? "")
                && display["light/matter.LevelControl.currentLevel"]?.hasSuffix(" %") == true, "\(display)")
        check.add("DeviceDocument", words, "device?display=true")
        let listed = try await send(home, .GET, "/api/v1/devices?display=true", token: Self.staticToken)
        let summaries = listed.json["devices"] as? [[String: Any]] ?? []
        let hallLine = summaries.first { $0["id"] as? String == "z2m-0x00158d0001000001" }?["display"] as? String
        #expect(hallLine?.contains("brightness ") == true && listed.json["displayed"] as? Int == 3, "\(listed.body)")
        check.add("DeviceList", listed, "devices?display=true")
        let plain = try await send(home, .GET, "/api/v1/devices?display=maybe", token: Self.staticToken)
        #expect(plain.status == 400)
        let ghost = try await send(home, .GET, "/api/v1/devices/ghost", token: Self.staticToken)
        #expect(ghost.status == 404 && ghost.json["instance"] as? String == "/api/v1/devices/ghost")
        let near = try await send(home, .GET, "/api/v1/devices/Hal%20light", token: Self.staticToken)
        #expect(
            near.status == 404 && (near.json["detail"] as? String)?.hasSuffix("(did you mean 'Hall light'?)") == true)
        check.add("Problem", ghost, "404")

        let homes = try await send(home, .GET, "/api/v1/homes", token: Self.staticToken)
        #expect(homes.status == 200 && homes.body.contains("Entire Home"))
        check.add("HomeList", homes, "homes")
        let health = try await send(home, .GET, "/api/v1/health", token: Self.staticToken)
        #expect(health.status == 200 && health.json["ready"] as? Bool == true, "\(health.body)")
        #expect((health.json["devices"] as? [String: Any])?["offline"] as? Int == 1, "\(health.body)")
        check.add("Health", health, "health")
        try check.run(in: home.folder)
    }

    func apiCommands(_ home: Home) async throws {
        let check = SchemaCheck()
        let z2m = try Zigbee2MQTTEcho(home.broker, device: "Hall light", once: true)
        let path = "/api/v1/devices/z2m-0x00158d0001000001/commands"
        let on = try await send(
            home, .POST, path, body: #"{"id":"c1","trait":"matter.OnOff","command":"on"}"#, token: Self.staticToken)
        #expect(on.status == 200 && on.json["status"] as? String == "confirmed", "\(on.body)")
        #expect((on.json["values"] as? [String: Any])?["light/matter.OnOff.onOff"] as? Bool == true, "\(on.body)")
        #expect(z2m.received.first?.payloadText == #"{"state":"ON"}"#)
        check.add("CommandResult", on, "confirmed")

        let range = try await send(
            home, .POST, path, body: #"{"trait":"matter.LevelControl","attribute":"currentLevel","value":999}"#,
            token: Self.staticToken)
        #expect(range.status == 422 && range.json["code"] as? String == "valueOutOfRange", "\(range.body)")
        check.add("Problem", range, "422")
        // A value in a person's form: read back into the model's; beyond its unit, refused in that unit.
        let over = try await send(
            home, .POST, path, body: #"{"trait":"matter.LevelControl","attribute":"currentLevel","value":"120 %"}"#,
            token: Self.staticToken)
        #expect(
            over.status == 422 && over.json["code"] as? String == "valueOutOfRange"
                && over.json["detail"] as? String == "120 % is not allowed for Brightness; allowed: 0…100 %",
            "\(over.body)")
        check.add("Problem", over, "422 in a person's unit")
        let word = try await send(
            home, .POST, path, body: #"{"trait":"matter.OnOff","attribute":"onOff","value":"sideways"}"#,
            token: Self.staticToken)
        #expect(word.status == 422, "a word that is no value is the bridge's to refuse: \(word.body)")
        let relay = try await send(
            home, .POST, "/api/v1/devices/Relay/commands",
            body: #"{"deviceType":"switch_l1","trait":"matter.OnOff","command":"off"}"#, token: Self.staticToken)
        #expect(relay.status == 422 && relay.json["code"] as? String == "deviceOffline", "\(relay.body)")
        let garbage = try await send(home, .POST, path, body: "not json", token: Self.staticToken)
        #expect(garbage.status == 400 && garbage.json["code"] as? String == "protocolError", "\(garbage.body)")
        check.add("Problem", garbage, "400")
        let ghost = try await send(home, .POST, "/api/v1/devices/ghost/commands", body: "{}", token: Self.staticToken)
        #expect(ghost.status == 404)
        let anonymous = try await send(home, .POST, path, body: #"{"trait":"matter.OnOff","command":"off"}"#)
        #expect(anonymous.status == 401, "a command needs a token too")
        let viewer = try await send(
            home, .POST, path, body: #"{"trait":"matter.OnOff","command":"off"}"#, token: Self.viewerToken)
        #expect(viewer.status == 403 && (viewer.json["detail"] as? String)?.contains("role is viewer") == true)
        check.add("Problem", viewer, "403")
        let viewerReads = try await send(home, .GET, "/api/v1/devices/Relay", token: Self.viewerToken)
        #expect(viewerReads.status == 200, "a viewer reads")
        let execute = #"""
            {"commands":[{"devices":[{"id":"z2m-0x00158d0001000001"}],
              "execution":[{"command":"action.devices.commands.OnOff","params":{"on":false}}]}]}
            """#
        let viewerExecute = try await send(
            home, .POST, "/smarthome", body: intent("EXECUTE", execute, id: "v1"), token: Self.viewerToken)
        #expect(viewerExecute.status == 403, "nor through Google's endpoint: \(viewerExecute.body)")
        #expect((viewerExecute.json["payload"] as? [String: Any])?["errorCode"] as? String == "authFailure")
        #expect(z2m.received.count == 1, "nothing refused reached the device")
        try check.run(in: home.folder)
    }
}
