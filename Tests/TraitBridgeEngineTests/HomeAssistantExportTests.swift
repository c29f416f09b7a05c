import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeModel

/// What Google is given for Home Assistant discovery devices, compared with what Home Assistant's
/// own `google_assistant` gives: a device's own capabilities, not the cluster's.
@Suite("Home Assistant devices in the SYNC export")
struct HomeAssistantExportTests {
    static let device = #""dev":{"ids":["dev1"],"name":"Test device"}"#

    func sync(_ configs: [(String, String)]) throws -> [String: JSON] {
        var state = try EngineFixtures.state(withCloud: true, withHomeAssistant: true)
        _ = state.brokerConnected(now: Date())
        for (topic, payload) in configs { _ = state.receive(topic, payload) }
        let root = try JSONDocument.parse(state.smartHomeSync(requestID: "r", agentUserID: "u")).root
        var devices: [String: JSON] = [:]
        for device in root["payload"]?["devices"]?.elements ?? [] { devices[device["id"]?.string ?? ""] = device }
        return devices
    }

    @Test(
        "a json-schema light with color_temp and xy modes has ColorSetting before any state: rgb and its own mireds range"
    )
    func colourLight() throws {
        let devices = try sync([
            (
                "homeassistant/light/dev1/lamp/config",
                #"{"~":"lights/lamp","cmd_t":"~/set","stat_t":"~","schema":"json","brightness":true,"sup_clrm":["color_temp","xy"],"min_mirs":200,"max_mirs":400,"uniq_id":"lamp1",\#(Self.device)}"#
            )
        ])
        let light = try #require(devices["ha-dev1"])
        #expect(
            light["traits"]?.elements.compactMap(\.string).contains("action.devices.traits.ColorSetting") == true,
            "\(light["traits"]?.elements.compactMap(\.string) ?? []) \(light["type"]?.string ?? "")")
        #expect(light["attributes"]?["colorModel"]?.string == "rgb")
        #expect(light["attributes"]?["colorTemperatureRange"]?["temperatureMinK"]?.int64 == 2500)
        #expect(light["attributes"]?["colorTemperatureRange"]?["temperatureMaxK"]?.int64 == 5000)
    }

    @Test("a climate entity's own modes become availableThermostatModes, not every mode the cluster has")
    func climateModes() throws {
        let devices = try sync([
            (
                "homeassistant/climate/dev1/hvac/config",
                #"{"~":"hvac","curr_temp_t":"~/current","temp_cmd_t":"~/target/set","temp_stat_t":"~/target","mode_cmd_t":"~/mode/set","mode_stat_t":"~/mode","modes":["off","heat","cool","auto"],"uniq_id":"hvac1",\#(Self.device)}"#
            )
        ])
        let thermostat = try #require(devices["ha-dev1"])
        let modes = thermostat["attributes"]?["availableThermostatModes"]?.elements.compactMap(\.string)
        #expect(modes == ["off", "heatcool", "cool", "heat"], "\(thermostat)")
    }

    /// A bridge holding one Home Assistant entity, its device online.
    func home(_ topic: String, _ config: String) throws -> BridgeState {
        var state = try EngineFixtures.state(withCloud: true, withHomeAssistant: true)
        _ = state.brokerConnected(now: Date())
        _ = state.receive(topic, config)
        return state
    }

    func query(_ state: BridgeState) throws -> JSON? {
        let body = Array(
            #"{"requestId":"q","inputs":[{"intent":"action.devices.QUERY","payload":{"devices":[{"id":"ha-dev1"}]}}]}"#
                .utf8)
        return try JSONDocument.parse(state.smartHomeQuery(body, requestID: "q", source: "test")).root["payload"]?[
            "devices"]?["ha-dev1"]
    }

    /// What one EXECUTE publishes to the device, or the immediate answer when it is refused.
    func execute(_ state: inout BridgeState, _ command: String, _ params: String) -> (
        sent: [String], answer: String, logs: [String]
    ) {
        let body = Array(
            #"{"requestId":"e","inputs":[{"intent":"action.devices.EXECUTE","payload":{"commands":[{"devices":[{"id":"ha-dev1"}],"execution":[{"command":"action.devices.commands.\#(command)","params":\#(params)}]}]}}]}"#
                .utf8)
        let effects = state.smartHomeExecute(body, requestID: "e", source: "test", waiter: 1, now: Date())
        let sent = effects.publications.filter { !$0.topic.hasPrefix("traitbridge/") }.map {
            "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))"
        }
        return (
            sent, effects.answers.map { String(decoding: $0.payload, as: UTF8.self) }.joined(), effects.logs.map(\.message)
        )
    }

    @Test("a climate that can be off also has OnOff, as Home Assistant gives it: on = not off; on picks heat-cool/auto")
    func thermostatOnOff() throws {
        let config =
            #"{"~":"hvac","curr_temp_t":"~/current","mode_cmd_t":"~/mode/set","mode_stat_t":"~/mode","modes":["off","heat","cool","auto"],"uniq_id":"hvac1",\#(Self.device)}"#
        var state = try home("homeassistant/climate/dev1/hvac/config", config)
        let traits = try sync([("homeassistant/climate/dev1/hvac/config", config)])["ha-dev1"]?["traits"]?.elements
            .compactMap(\.string)
        #expect(traits?.contains("action.devices.traits.OnOff") == true, "\(traits ?? [])")
        _ = state.receive("hvac/mode", "off")
        #expect(try query(state)?["on"]?.bool == false)
        _ = state.receive("hvac/mode", "heat")
        #expect(try query(state)?["on"]?.bool == true)
        #expect(execute(&state, "OnOff", #"{"on":false}"#).sent == ["hvac/mode/set off"])
        #expect(execute(&state, "OnOff", #"{"on":true}"#).sent == ["hvac/mode/set auto"])
        let heatOnly = #"{"~":"hvac","curr_temp_t":"~/current","modes":["heat"],"uniq_id":"hvac1",\#(Self.device)}"#
        let none = try sync([("homeassistant/climate/dev1/hvac/config", heatOnly)])["ha-dev1"]?["traits"]?.elements
        #expect(none?.compactMap(\.string).contains("action.devices.traits.OnOff") == false, "it cannot be off")
    }

    @Test("a cover that can stop has StartStop (running while it moves; stop sends payload_stop; start is refused)")
    func coverStartStop() throws {
        let config =
            #"{"~":"blind","cmd_t":"~/set","stat_t":"~/state","pos_t":"~/position","set_pos_t":"~/position/set","uniq_id":"blind1",\#(Self.device)}"#
        let synced = try sync([("homeassistant/cover/dev1/blind/config", config)])["ha-dev1"]
        let traits = synced?["traits"]?.elements.compactMap(\.string) ?? []
        #expect(traits.contains("action.devices.traits.StartStop"), "\(traits)")
        #expect(synced?["attributes"]?["pausable"]?.bool == false)
        var state = try home("homeassistant/cover/dev1/blind/config", config)
        _ = state.receive("blind/state", "opening")
        #expect(try query(state)?["isRunning"]?.bool == true)
        _ = state.receive("blind/state", "stopped")
        #expect(try query(state)?["isRunning"]?.bool == false)
        #expect(execute(&state, "StartStop", #"{"start":false}"#).sent == ["blind/set STOP"])
        let start = execute(&state, "StartStop", #"{"start":true}"#)
        #expect(start.sent.isEmpty && start.answer.contains("notSupported"), "\(start)")
        let noStop = config.replacingOccurrences(of: #""cmd_t""#, with: #""payload_stop":null,"cmd_t""#)
        let without = try sync([("homeassistant/cover/dev1/blind/config", noStop)])["ha-dev1"]?["traits"]?.elements
        #expect(without?.compactMap(\.string).contains("action.devices.traits.StartStop") == false)
    }

    @Test("with no challenge configured, unlocking through Google is refused (challengeFailedNotSetup); locking runs")
    func unlockNeedsSetup() throws {
        let config = #"{"~":"door","cmd_t":"~/set","stat_t":"~/state","uniq_id":"door1",\#(Self.device)}"#
        var state = try home("homeassistant/lock/dev1/door/config", config)
        _ = state.receive("door/state", "LOCKED")
        let unlock = execute(&state, "LockUnlock", #"{"lock":false}"#)
        #expect(unlock.sent.isEmpty && unlock.answer.contains(#""errorCode":"challengeFailedNotSetup""#), "\(unlock)")
        #expect(unlock.logs.contains { $0.contains("http.challenge.pinFile") }, "the log says what to configure")
        #expect(execute(&state, "LockUnlock", #"{"lock":true}"#).sent == ["door/set LOCK"])
    }
}
