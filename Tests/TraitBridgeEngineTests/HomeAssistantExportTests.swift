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
}
