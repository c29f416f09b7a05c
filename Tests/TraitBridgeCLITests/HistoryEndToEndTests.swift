import Foundation
import NIOHTTP1
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// The history through a real `serve`, a real mosquitto and a real HTTP client: values and
/// connectivity changes reach `history.sqlite`, `traitbridge history --json` and
/// `GET /api/v1/devices/{device}/history` give the same answer, and it survives a restart.
extension FulfillmentTests {
    @Test("history: the CLI and the API give the same changes, in words too; refusals; after a restart the same")
    func historyEndToEnd() async throws {
        try await withHome { home in try await historyEndToEnd(home) }
    }

    @Test("history off: nothing recorded, the API answers 409 and the CLI exits 1 saying how to turn it on")
    func historyOff() async throws {
        try await withHome(extra: #""history": {"enabled": false},"#) { home in
            let answer = try await send(home, .GET, "/api/v1/devices/Hall%20light/history", token: Self.staticToken)
            #expect(answer.status == 409, "\(answer.body)")
            #expect((answer.json["detail"] as? String)?.contains("\"history\"") == true, "\(answer.body)")
            let cli = try CommandRunner.run(["history", "Hall light", "--broker", home.broker.url])
            #expect(cli.exitCode == 1)
            #expect(cli.standardError.hasPrefix("historyOff: this bridge keeps no history"), "\(cli.standardError)")
            #expect(!FileManager.default.fileExists(atPath: home.folder + "/data/history.sqlite"))
        }
    }

    private func historyEndToEnd(_ home: Home) async throws {
        let start = Date() - 60
        let z2m = try TestMQTTClient(home.broker, subscribe: ["traitbridge/devices/+/state"])
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"ON","brightness":150}"#)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") {
                $0.payloadText.contains(#""onOff":true"#)
            }
                != nil)
        try z2m.publish("zigbee2mqtt/Hall light", #"{"state":"OFF","brightness":150}"#)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000001/state") {
                $0.payloadText.contains(#""onOff":false"#)
            }
                != nil)
        try z2m.publish("zigbee2mqtt/Relay/availability", "online", retain: true)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000003/state") {
                $0.payloadText.contains(#""connectivityState":"online""#)
            } != nil)
        try z2m.publish("zigbee2mqtt/Relay/availability", "offline", retain: true)
        #expect(
            z2m.waitFor("traitbridge/devices/z2m-0x00158d0001000003/state") {
                $0.payloadText.contains(#""connectivityState":"offline""#)
            } != nil)
        // `to` now, in whole seconds: a restart's changes (every trait unknown again) come after it.
        try await Task.sleep(for: .milliseconds(1_100))
        let from = Self.time(start)
        let to = Self.time(Date())

        // The light's values, oldest first: off (retained at start), on at 150, off.
        let api = try await send(
            home, .GET, "/api/v1/devices/Hall%20light/history?from=\(from)&to=\(to)", token: Self.viewerToken)
        #expect(api.status == 200, "\(api.body)")
        let check = SchemaCheck()
        check.add("DeviceHistory", api, "history")
        let records = (api.json["records"] as? [[String: Any]]) ?? []
        let onOff = records.filter { $0["attribute"] as? String == "onOff" }.compactMap { $0["value"] as? Bool }
        #expect(onOff == [false, true, false], "\(api.body)")
        #expect(api.json["name"] as? String == "Hall light" && api.json["truncated"] as? Bool == false)
        let cli = try CommandRunner.run([
            "history", "Hall light", "--since", from, "--until", to, "--json", "--broker", home.broker.url,
        ])
        #expect(cli.exitCode == 0, "\(cli.standardError)")
        #expect(Self.same(cli.standardOutput, api.body), "the CLI prints the API's answer:\n\(cli.standardOutput)")

        // The relay's connectivity: offline (its availability topic), online, offline again, with the reason.
        let relay = try await send(
            home, .GET,
            "/api/v1/devices/Relay/history?trait=switch_l1/matter.OnOff&attribute=connectivity&from=\(from)&to=\(to)",
            token: Self.staticToken)
        let relayRecords = (relay.json["records"] as? [[String: Any]]) ?? []
        let states = relayRecords.compactMap { $0["connectivity"] as? String }
        #expect(Array(states.suffix(3)) == ["offline", "online", "offline"], "\(relay.body)")
        #expect(
            (relayRecords.last?["reason"] as? String)?.contains("zigbee2mqtt/Relay/availability") == true,
            "\(relay.body)")
        #expect(relayRecords.allSatisfy { $0["trait"] as? String == "switch_l1/matter.OnOff" && $0["value"] == nil })
        #expect(relayRecords.suffix(3).allSatisfy { $0["locality"] as? String == "localPeer" }, "\(relay.body)")
        let text = try CommandRunner.run(["history", "Relay", "--since", "1h", "--broker", home.broker.url])
        #expect(text.exitCode == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("offline: "), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("unreachable "), "how long and how often: \(text.standardOutput)")
        let words = try CommandRunner.run(["history", "Hall light", "--since", "1h", "--broker", home.broker.url])
        #expect(words.standardOutput.contains("On/off"), "in people's words: \(words.standardOutput)")

        // Every device's reachability: the relay dropped once (offline, online, offline), first.
        let availability = try await send(home, .GET, "/api/v1/availability?limit=2", token: Self.viewerToken)
        #expect(availability.status == 200, "\(availability.body)")
        let ranked = (availability.json["devices"] as? [[String: Any]]) ?? []
        #expect(
            ranked.first?["name"] as? String == "Relay" && ranked.first?["drops"] as? Int == 1, "\(availability.body)")
        #expect(ranked.count == 2 && availability.json["known"] as? Int == 3, "\(availability.body)")
        check.add("Availability", availability, "availability")
        // A room and a group: each as one device of its devices' parts (the relay's drop is theirs).
        for (operation, body) in [
            ("room-add", #"{"name":"Attic"}"#), ("move", #"{"device":"z2m-0x00158d0001000003","room":"Attic"}"#),
            ("group-add", #"{"name":"Lamps","members":["z2m-0x00158d0001000001","z2m-0x00158d0001000003"]}"#),
        ] {
            let edit = try await send(home, .POST, "/api/v1/requests/\(operation)", body: body, token: Self.adminToken)
            #expect(edit.status == 200, "\(operation): \(edit.body)")
        }
        let sets = try await send(home, .GET, "/api/v1/availability", token: Self.viewerToken)
        let attic = (sets.json["rooms"] as? [[String: Any]])?.first { $0["name"] as? String == "Attic" }
        #expect(attic?["devices"] as? Int == 1 && attic?["drops"] as? Int == 1, "\(sets.body)")
        let lamps = (sets.json["groups"] as? [[String: Any]])?.first { $0["name"] as? String == "Lamps" }
        // The group is everything reachable once the light is heard; the relay's offline, online, offline then
        // drops it once or twice: whether its first offline came before the light's first message or after.
        let lampDrops = lamps?["drops"] as? Int ?? 0
        #expect(lamps?["devices"] as? Int == 2 && (1...2).contains(lampDrops), "\(sets.body)")
        check.add("Availability", sets, "availability of rooms and groups")

        // Refusals: each says what is wrong.
        let missing = try await send(home, .GET, "/api/v1/devices/Hal%20light/history", token: Self.staticToken)
        #expect(missing.status == 404 && (missing.json["detail"] as? String)?.contains("Hall light") == true)
        let badTime = try await send(
            home, .GET, "/api/v1/devices/Relay/history?from=yesterday", token: Self.staticToken)
        #expect(badTime.status == 400 && (badTime.json["detail"] as? String)?.contains("RFC 3339") == true)
        let badTrait = try await send(home, .GET, "/api/v1/devices/Relay/history?trait=OnOf", token: Self.staticToken)
        #expect(badTrait.status == 422 && (badTrait.json["detail"] as? String)?.contains("did you mean") == true)
        let unknown = try await send(home, .GET, "/api/v1/devices/Relay/history?since=1h", token: Self.staticToken)
        #expect(unknown.status == 400, "\(unknown.body)")
        let anonymous = try await send(home, .GET, "/api/v1/devices/Relay/history")
        #expect(anonymous.status == 401)
        for problem in [missing, badTime, badTrait, unknown] { check.add("Problem", problem, "\(problem.status)") }
        let one = try await send(
            home, .GET, "/api/v1/devices/Hall%20light/history?attribute=onOff&limit=1&from=\(from)&to=\(to)",
            token: Self.staticToken)
        #expect((one.json["records"] as? [Any])?.count == 1 && one.json["truncated"] as? Bool == true, "\(one.body)")
        check.add("DeviceHistory", one, "history?limit=1")
        check.add("DeviceHistory", relay, "relay's connectivity")
        try check.run(in: home.folder)
        let noDevice = try CommandRunner.run(["history", "Nobody", "--broker", home.broker.url])
        #expect(noDevice.exitCode == 4, "\(noDevice.standardError)")
        let usage = try CommandRunner.run(["history", "Relay", "--since", "yesterday", "--broker", home.broker.url])
        #expect(usage.exitCode == 2 && usage.standardError.contains("expected a duration back from now"))

        // Restart: the same history from the file.
        home.serve.stop()
        let again = try BridgeProcess(
            ["serve", "--config", home.folder + "/config.json"], log: home.folder + "/serve2.log")
        defer { again.stop() }
        let watcher = try TestMQTTClient(home.broker, subscribe: ["traitbridge/bridge/state"])
        #expect(watcher.waitFor("traitbridge/bridge/state") { $0.payloadText == "online" } != nil)
        let after = try CommandRunner.run([
            "history", "Hall light", "--since", from, "--until", to, "--json", "--broker", home.broker.url,
        ])
        #expect(Self.same(after.standardOutput, api.body), "after a restart:\n\(after.standardOutput)\n\(api.body)")
        #expect(FileManager.default.fileExists(atPath: home.folder + "/data/history.sqlite"))
    }

    static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    static func same(_ a: String, _ b: String) -> Bool {
        guard let x = try? JSONSerialization.jsonObject(with: Data(a.utf8)) as? NSDictionary,
            let y = try? JSONSerialization.jsonObject(with: Data(b.utf8)) as? NSDictionary
        else { return false }
        return x == y
    }
}
