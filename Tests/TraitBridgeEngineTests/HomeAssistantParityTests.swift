import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeTesting

/// A Home Assistant MQTT home exported to Google, checked by Google's schemas (c2c-validate): the
/// traits Home Assistant's `google_assistant` gives these entities are all there, and valid.
@Suite("Home Assistant home through Google's schemas")
struct HomeAssistantParityTests {
    static func device(_ id: String) -> String { #""dev":{"ids":["\#(id)"],"name":"\#(id)"}"# }

    static let configs: [(String, String)] = [
        (
            "homeassistant/light/lamp/config",
            #"{"~":"lamp","cmd_t":"~/set","stat_t":"~","schema":"json","brightness":true,"sup_clrm":["color_temp","xy"],"uniq_id":"lamp","#
                + device("lamp") + "}"
        ),
        (
            "homeassistant/light/strip/config",
            #"{"~":"strip","cmd_t":"~/set","stat_t":"~/state","rgb_stat_t":"~/rgb","rgb_cmd_t":"~/rgb/set","uniq_id":"strip","#
                + device("strip") + "}"
        ),
        (
            "homeassistant/climate/hvac/config",
            #"{"~":"hvac","curr_temp_t":"~/current","temp_cmd_t":"~/target/set","temp_stat_t":"~/target","mode_cmd_t":"~/mode/set","mode_stat_t":"~/mode","modes":["off","heat","cool","auto"],"uniq_id":"hvac","#
                + device("hvac") + "}"
        ),
        (
            "homeassistant/cover/blind/config",
            #"{"~":"blind","cmd_t":"~/set","stat_t":"~/state","pos_t":"~/position","set_pos_t":"~/position/set","uniq_id":"blind","#
                + device("blind") + "}"
        ),
        (
            "homeassistant/fan/fan/config",
            #"{"~":"fan","cmd_t":"~/set","stat_t":"~/state","pct_cmd_t":"~/pct/set","pct_stat_t":"~/pct","pr_modes":["eco","sleep","breeze"],"pr_mode_cmd_t":"~/preset/set","pr_mode_stat_t":"~/preset","uniq_id":"fan","#
                + device("fan") + "}"
        ),
    ]

    static let states: [(String, String)] = [
        ("lamp", #"{"state":"ON","brightness":200,"color_mode":"xy","color":{"x":0.3,"y":0.6}}"#),
        ("strip/state", "ON"), ("strip/rgb", "255,128,0"),
        ("hvac/current", "21.5"), ("hvac/target", "22"), ("hvac/mode", "heat"),
        ("blind/state", "opening"), ("blind/position", "40"),
        ("fan/state", "ON"), ("fan/pct", "50"), ("fan/preset", "sleep"),
    ]

    func home() throws -> BridgeState {
        var state = try EngineFixtures.state(withCloud: true, withHomeAssistant: true)
        _ = state.brokerConnected(now: Date())
        for (topic, payload) in Self.configs + Self.states { _ = state.receive(topic, payload) }
        return state
    }

    func traits(_ sync: JSON, _ id: String) -> Set<String> {
        let device = sync["payload"]?["devices"]?.elements.first { $0["id"]?.string == id }
        return Set(device?["traits"]?.elements.compactMap { $0.string.map(GoogleShort.name) } ?? [])
    }

    enum GoogleShort {
        static func name(_ full: String) -> String { String(full.split(separator: ".").last ?? "") }
    }

    @Test("each entity has Home Assistant's traits: colour, thermostat OnOff, cover StartStop, fan Modes")
    func traits() throws {
        let state = try home()
        let sync = try JSONDocument.parse(state.smartHomeSync(requestID: "s", agentUserID: "u")).root
        #expect(traits(sync, "ha-lamp").isSuperset(of: ["OnOff", "Brightness", "ColorSetting"]))
        #expect(traits(sync, "ha-strip").isSuperset(of: ["OnOff", "ColorSetting"]))
        #expect(traits(sync, "ha-hvac").isSuperset(of: ["TemperatureSetting", "OnOff"]))
        #expect(traits(sync, "ha-blind").isSuperset(of: ["OpenClose", "StartStop"]))
        #expect(traits(sync, "ha-fan").isSuperset(of: ["OnOff", "FanSpeed", "Modes"]), "\(traits(sync, "ha-fan"))")
        let fan = sync["payload"]?["devices"]?.elements.first { $0["id"]?.string == "ha-fan" }
        let settings = fan?["attributes"]?["availableModes"]?[0]?["settings"]?.elements.compactMap {
            $0["setting_name"]?.string
        }
        #expect(settings == ["eco", "sleep", "breeze"])
    }

    @Test(
        "SYNC and QUERY pass c2c-validate",
        .enabled(if: TestPaths(filePath: #filePath).shared != nil, "needs ../shared"))
    func validates() throws {
        let state = try home()
        let shared = try #require(TestPaths(filePath: #filePath).shared)
        let folder = NSTemporaryDirectory() + "tb-ha-parity-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sync = state.smartHomeSync(requestID: "s", agentUserID: "u")
        let ids = ["ha-lamp", "ha-strip", "ha-hvac", "ha-blind", "ha-fan"].map { #"{"id":"\#($0)"}"# }
        let request =
            #"{"requestId":"q","inputs":[{"intent":"action.devices.QUERY","payload":{"devices":[\#(ids.joined(separator: ","))]}}]}"#
        let query = state.smartHomeQuery(Array(request.utf8), requestID: "q", source: "test")
        try Data(sync).write(to: URL(fileURLWithPath: folder + "/sync.json"))
        try Data(query).write(to: URL(fileURLWithPath: folder + "/query.json"))
        let queryRoot = try JSONDocument.parse(query).root["payload"]?["devices"]
        #expect(queryRoot?["ha-fan"]?["currentModeSettings"]?["preset"]?.string == "sleep")
        #expect(queryRoot?["ha-blind"]?["isRunning"]?.bool == true)
        #expect(queryRoot?["ha-hvac"]?["on"]?.bool == true)
        #expect(queryRoot?["ha-strip"]?["color"]?["spectrumRgb"]?.int64 != nil)
        for arguments in [
            ["sync", folder + "/sync.json"], ["query", folder + "/query.json", "--sync", folder + "/sync.json"],
        ] {
            let (status, output) = try TestTools.c2cValidate(shared, arguments)
            #expect(status == 0, "\(arguments[0]): \(output)")
        }
    }

    @Test("SetModes sends the preset; a preset the fan does not have is refused")
    func setModes() throws {
        var state = try home()
        func execute(_ preset: String) -> BridgeEffects {
            let body =
                #"{"requestId":"e","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"ha-fan"}],"execution":[{"command":"action.devices.commands.SetModes","params":{"updateModeSettings":{"preset":"\#(preset)"}}}]}]}}]}"#
            return state.smartHomeExecute(Array(body.utf8), requestID: "e", source: "test", waiter: 1, now: Date())
        }
        let eco = execute("eco")
        #expect(eco.publications.contains { $0.topic == "fan/preset/set" && $0.payload == Array("eco".utf8) })
        let turbo = execute("turbo")
        #expect(!turbo.publications.contains { $0.topic == "fan/preset/set" })
        let answer = turbo.answers.map { String(decoding: $0.payload, as: UTF8.self) }.joined()
        #expect(answer.contains("ERROR"), "\(answer)")
    }
}
