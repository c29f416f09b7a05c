import Foundation
import Testing
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Home Assistant discovery rules the corpus does not show alone: scales and units, inverted
/// cover ranges, the command messages, availability modes, unique ids, and zigbee2mqtt's twins.
@Suite("Bridge state: Home Assistant discovery")
struct HomeAssistantBridgeStateTests {
    func ready(zigbee2mqtt: Bool = false, tasmota: Bool = false) throws -> BridgeState {
        var state = try EngineFixtures.state(commandTimeout: .seconds(3), withTasmota: tasmota, withHomeAssistant: true, withZigbee2MQTT: zigbee2mqtt)
        _ = state.brokerConnected(now: Date())
        return state
    }

    func value(_ state: BridgeState, _ id: String, _ key: String, _ trait: String, _ attribute: String) -> AttributeValue? {
        (try? DeviceID(id)).flatMap { state.graph.devices[$0] }?.trait(at: TraitAddress(deviceTypeKey: key, traitID: .matter(trait)))?.attributes[attribute]
    }

    func sent(_ effects: BridgeEffects, _ topic: String) -> [String] {
        effects.publications.filter { $0.topic == topic }.map { String(decoding: $0.payload, as: UTF8.self) }
    }

    static let device = #""dev":{"ids":["dev1"],"name":"Test device"}"#

    @Test("a json-schema light: brightness on its scale, colour temperature in Kelvin, one JSON command, confirmed by the echo")
    func jsonLight() throws {
        var state = try ready()
        _ = state.receive("homeassistant/light/dev1/lamp/config", #"{"~":"lights/lamp","cmd_t":"~/set","stat_t":"~","schema":"json","brightness":true,"bri_scl":100,"sup_clrm":["color_temp"],"color_temp_kelvin":true,"uniq_id":"lamp1",\#(Self.device)}"#)
        _ = state.receive("lights/lamp", #"{"state":"ON","brightness":50,"color_temp":4000}"#)
        #expect(value(state, "ha-dev1", "lamp", "OnOff", "onOff") == .bool(true))
        #expect(value(state, "ha-dev1", "lamp", "LevelControl", "currentLevel") == .int(127))
        #expect(value(state, "ha-dev1", "lamp", "ColorControl", "colorTemperatureMireds") == .int(250))
        #expect(state.graph.devices[try DeviceID("ha-dev1")]?.primaryType?.typeID == .matter("ColorTemperatureLight"))
        let command = state.receive("traitbridge/devices/ha-dev1/set", #"{"id":"c1","writes":[{"trait":"matter.LevelControl","command":"moveToLevel","arguments":{"level":254}},{"trait":"matter.ColorControl","attribute":"colorTemperatureMireds","value":400}]}"#)
        let payloads = sent(command, "lights/lamp/set")
        #expect(payloads.count == 1)
        let object = try JSONDocument.parse(Array((payloads.first ?? "").utf8)).root
        #expect(object["brightness"]?.int64 == 100)
        #expect(object["color_temp"]?.int64 == 2500)
        #expect(object["state"]?.string == "ON")
        let echo = state.receive("lights/lamp", #"{"state":"ON","brightness":100,"color_temp":2500}"#)
        #expect(echo.last("traitbridge/devices/ha-dev1/set/result")?["status"]?.string == "confirmed")
    }

    @Test("a cover whose open position is 0: 25 reads as 25 % closed, and closing sends 100 on the set-position topic")
    func invertedCover() throws {
        var state = try ready()
        _ = state.receive("homeassistant/cover/dev1/blind/config", #"{"cmd_t":"blind/cmd","pos_t":"blind/pos","set_pos_t":"blind/setpos","position_open":0,"position_closed":100,\#(Self.device)}"#)
        _ = state.receive("blind/pos", "25")
        #expect(value(state, "ha-dev1", "blind", "WindowCovering", "currentPositionLiftPercent100ths") == .int(2500))
        let command = state.receive("traitbridge/devices/ha-dev1/set", #"{"trait":"matter.WindowCovering","command":"downOrClose"}"#)
        #expect(sent(command, "blind/setpos") == ["100"])
    }

    @Test("sensors convert their unit: °F to 0.01 °C, kPa to Matter's 0.1 kPa; an unknown unit is refused with the allowed ones")
    func sensorUnits() throws {
        var state = try ready()
        _ = state.receive("homeassistant/sensor/dev1/t/config", #"{"dev_cla":"temperature","unit_of_meas":"°F","stat_t":"env","val_tpl":"{{ value_json.t }}",\#(Self.device)}"#)
        _ = state.receive("homeassistant/sensor/dev1/p/config", #"{"dev_cla":"pressure","unit_of_meas":"kPa","stat_t":"env","val_tpl":"{{ value_json['p'] }}",\#(Self.device)}"#)
        let refused = state.receive("homeassistant/sensor/dev1/h/config", #"{"dev_cla":"humidity","unit_of_meas":"g/m³","stat_t":"env",\#(Self.device)}"#)
        #expect(refused.logs.contains { $0.level == .warning && $0.message.contains("unit 'g/m³' of a humidity sensor is not one of %") })
        _ = state.receive("env", #"{"t":68,"p":101.3}"#)
        #expect(value(state, "ha-dev1", "t", "TemperatureMeasurement", "measuredValue") == .int(2000))
        #expect(value(state, "ha-dev1", "p", "PressureMeasurement", "measuredValue") == .int(1013))
        #expect(state.graph.devices[try DeviceID("ha-dev1")]?.deviceTypes.count == 2)
    }

    @Test("binary sensors: a door ON is open (no contact), moisture ON is a leak; a word that is neither is refused alone")
    func binarySensors() throws {
        var state = try ready()
        _ = state.receive("homeassistant/binary_sensor/dev1/door/config", #"{"dev_cla":"door","stat_t":"door","pl_on":"open","pl_off":"closed",\#(Self.device)}"#)
        _ = state.receive("homeassistant/binary_sensor/dev1/leak/config", #"{"dev_cla":"moisture","stat_t":"leak",\#(Self.device)}"#)
        _ = state.receive("door", "open")
        _ = state.receive("leak", "ON")
        #expect(value(state, "ha-dev1", "door", "BooleanState", "stateValue") == .bool(false))
        #expect(value(state, "ha-dev1", "leak", "BooleanState", "stateValue") == .bool(true))
        let bad = state.receive("door", "ajar")
        #expect(bad.logs.contains { $0.message.contains("'ajar' is not one of 'closed', 'open'") && $0.metadata["tb.mqtt.topic"] == "door" })
        #expect(value(state, "ha-dev1", "door", "BooleanState", "stateValue") == .bool(false))
        #expect(state.graph.devices[try DeviceID("ha-dev1")]?.primaryType?.key == "leak")  // a leak detector ranks above a contact sensor
    }

    @Test("a lock: its words both ways, transitional words ignored, a template it cannot read left out with a note")
    func lock() throws {
        var state = try ready()
        let config = state.receive("homeassistant/lock/dev1/door/config", #"{"cmd_t":"lk/set","stat_t":"lk/state","pl_lock":"2","pl_unlk":"1","stat_locked":"1","stat_unlocked":"3","stat_locking":"4",\#(Self.device)}"#)
        #expect(config.logs.allSatisfy { $0.level != .warning })
        _ = state.receive("lk/state", "1")
        #expect(value(state, "ha-dev1", "door", "DoorLock", "lockState") == .int(1))
        let quiet = state.receive("lk/state", "4")
        #expect(quiet.logs.allSatisfy { $0.level != .notice && $0.level != .warning })
        let command = state.receive("traitbridge/devices/ha-dev1/set", #"{"trait":"matter.DoorLock","command":"unlockDoor"}"#)
        #expect(sent(command, "lk/set") == ["1"])
        let templated = state.receive("homeassistant/lock/dev2/door/config", #"{"cmd_t":"lk2/set","stat_t":"lk2/state","val_tpl":"{% if value == '5' %}3{% else %}{{value}}{% endif %}"}"#)
        #expect(templated.logs.contains { $0.level == .notice && $0.message.contains("matter.DoorLock.lockState is not read from lk2/state") })
        _ = state.receive("lk2/state", "LOCKED")
        #expect(value(state, "ha-lock-dev2-door", "door", "DoorLock", "lockState") == nil)
    }

    @Test("a climate entity in °F: temperatures to 0.01 °C, the setpoint written back in °F within min/max, modes by word")
    func climate() throws {
        var state = try ready()
        _ = state.receive("homeassistant/climate/dev1/trv/config", #"{"temp_unit":"F","curr_temp_t":"trv","curr_temp_tpl":"{{ value_json.cur }}","temp_stat_t":"trv","temp_stat_tpl":"{{ value_json.set }}","temp_cmd_t":"trv/set/temp","min_temp":"45","max_temp":"86","mode_stat_t":"trv","mode_stat_tpl":"{{ value_json.mode }}","mode_cmd_t":"trv/set/mode","modes":["heat","off"],\#(Self.device)}"#)
        _ = state.receive("trv", #"{"cur":68,"set":70.7,"mode":"heat"}"#)
        #expect(value(state, "ha-dev1", "trv", "Thermostat", "localTemperature") == .int(2000))
        #expect(value(state, "ha-dev1", "trv", "Thermostat", "occupiedHeatingSetpoint") == .int(2150))
        #expect(value(state, "ha-dev1", "trv", "Thermostat", "systemMode") == .int(4))
        let write = state.receive("traitbridge/devices/ha-dev1/set", #"{"trait":"matter.Thermostat","attribute":"occupiedHeatingSetpoint","value":2100}"#)
        #expect(sent(write, "trv/set/temp") == ["69.8"])
        let mode = state.receive("traitbridge/devices/ha-dev1/set", #"{"trait":"matter.Thermostat","attribute":"systemMode","value":3}"#)
        #expect(mode.publications.allSatisfy { $0.topic != "trv/set/mode" })
        #expect(mode.last("traitbridge/devices/ha-dev1/set/result")?["message"]?.string?.contains("it has heat, off") == true)
    }

    @Test("availability_mode all needs every topic, any needs one; the reason names the topic that decided", arguments: ["all", "any"])
    func availabilityModes(_ mode: String) throws {
        var state = try ready()
        _ = state.receive("homeassistant/switch/dev1/sw/config", #"{"stat_t":"sw","cmd_t":"sw/set","avty_mode":"\#(mode)","avty":[{"t":"gw/state"},{"t":"sw/avail","pl_avail":"up","pl_not_avail":"down"}],\#(Self.device)}"#)
        let id = try DeviceID("ha-dev1")
        _ = state.receive("gw/state", "online")
        #expect(state.graph.devices[id]?.sourceConnectivity.connectivityState == (mode == "any" ? .online : .unknown))
        _ = state.receive("sw/avail", "down")
        #expect(state.graph.devices[id]?.sourceConnectivity.connectivityState == (mode == "any" ? .online : .offline))
        _ = state.receive("sw/avail", "up")
        #expect(state.graph.devices[id]?.sourceConnectivity.connectivityState == .online)
        _ = state.receive("gw/state", "offline")
        let device = try #require(state.graph.devices[id])
        #expect(device.sourceConnectivity.connectivityState == (mode == "any" ? .online : .offline))
        if mode == "all" {
            #expect(device.deviceType(key: "sw")?.trait(.matter("OnOff"))?.connectivity.reason?.description.contains("gw/state") == true)
        }
    }

    @Test("two configs with one unique_id: the second is refused with the first's topic; a migration hands it over")
    func uniqueIDs() throws {
        var state = try ready()
        _ = state.receive("homeassistant/binary_sensor/a/config", #"{"dev_cla":"motion","stat_t":"m","uniq_id":"very_unique"}"#)
        let duplicate = state.receive("homeassistant/binary_sensor/b/config", #"{"dev_cla":"motion","stat_t":"m2","uniq_id":"very_unique"}"#)
        #expect(duplicate.logs.contains { $0.level == .warning && $0.message.contains("unique_id 'very_unique' is already used by homeassistant/binary_sensor/a/config") })
        #expect(state.graph.devices.count == 1)
        _ = state.receive("homeassistant/binary_sensor/a/config", #"{"migrate_discovery":true}"#)
        let moved = state.receive("homeassistant/device/dev9/config", #"{"dev":{"ids":"dev9","name":"Hall sensor"},"cmps":{"motion":{"p":"binary_sensor","dev_cla":"motion","stat_t":"m","uniq_id":"very_unique"}}}"#)
        #expect(moved.logs.allSatisfy { $0.level != .warning }, "\(moved.logs)")
        _ = state.receive("homeassistant/binary_sensor/a/config", "")
        #expect(state.graph.devices.keys.map(\.rawValue) == ["ha-dev9"])
        _ = state.receive("m", "ON")
        #expect(value(state, "ha-dev9", "motion", "OccupancySensing", "occupancy") == .int(1))
    }

    @Test("with zigbee2mqtt read directly, the entities zigbee2mqtt publishes for Home Assistant make no twin")
    func zigbee2mqttTwinsSkipped() throws {
        var state = try ready(zigbee2mqtt: true)
        _ = state.receive("homeassistant/switch/0x01/switch/config", #"{"stat_t":"zigbee2mqtt/plug","cmd_t":"zigbee2mqtt/plug/set","val_tpl":"{{ value_json.state }}","o":{"name":"Zigbee2MQTT"},"dev":{"ids":["zigbee2mqtt_0x01"]}}"#)
        #expect(state.graph.devices.isEmpty)
        _ = state.receive("homeassistant/switch/other/switch/config", #"{"stat_t":"other/plug","o":{"name":"bla2mqtt"},"dev":{"ids":["other"]}}"#)
        #expect(state.graph.devices.keys.map(\.rawValue) == ["ha-other"])
    }

    @Test("a payload that is not JSON for a value_json entity is refused with the topic; its neighbour on a plain topic goes on")
    func malformedAlone() throws {
        var state = try ready()
        _ = state.receive("homeassistant/sensor/dev1/t/config", #"{"dev_cla":"temperature","unit_of_meas":"°C","stat_t":"env","val_tpl":"{{ value_json.t }}",\#(Self.device)}"#)
        _ = state.receive("homeassistant/switch/dev1/sw/config", #"{"stat_t":"sw",\#(Self.device)}"#)
        _ = state.receive("env", #"{"t":21.5}"#)
        let bad = state.receive("env", "21.7 C")
        #expect(bad.logs.contains { $0.message.contains("not JSON") && $0.metadata["tb.mqtt.topic"] == "env" })
        _ = state.receive("sw", "ON")
        #expect(value(state, "ha-dev1", "t", "TemperatureMeasurement", "measuredValue") == .int(2150))
        #expect(value(state, "ha-dev1", "sw", "OnOff", "onOff") == .bool(true))
    }

    @Test("the same Tasmota seen by native discovery and by a Home Assistant config with its MAC is one device; each keeps its source and connectivity")
    func mergedWithTasmota() throws {
        var state = try ready(tasmota: true)
        // The HA config comes first (retained messages arrive in any order).
        _ = state.receive("homeassistant/sensor/plug/energy_power/config", #"{"dev_cla":"power","unit_of_meas":"W","stat_t":"meter/plug","val_tpl":"{{ value_json.power }}","avty_t":"meter/plug/lwt","uniq_id":"plug_power","dev":{"ids":["meter-plug"],"cns":[["mac","A4:CF:12:34:56:78"]],"name":"Plug meter"}}"#)
        #expect(state.graph.devices.keys.map(\.rawValue) == ["ha-meter-plug"])
        _ = state.receive("meter/plug", #"{"power":12.5}"#)
        _ = state.receive("tasmota/discovery/A4CF12345678/config", #"{"dn":"Garage plug","fn":["Plug",null],"mac":"A4CF12345678","md":"Generic","ofln":"Offline","onln":"Online","sw":"13.3.0","t":"plug","ft":"%prefix%/%topic%/","tp":["cmnd","stat","tele"],"rl":[1,0],"lt_st":0}"#)
        let id = try DeviceID("tasmota-a4cf12345678")
        #expect(state.graph.devices.keys.map(\.rawValue) == [id.rawValue])
        let device = try #require(state.graph.devices[id])
        #expect(device.name == "Garage plug")
        #expect(Set(device.deviceTypes.map(\.key)) == ["relay", "energy_power"])
        #expect(device.primaryType?.key == "relay")
        #expect(value(state, id.rawValue, "energy_power", "ElectricalPowerMeasurement", "activePower") == .int(12_500))
        _ = state.receive("tele/plug/LWT", "Online")
        _ = state.receive("meter/plug/lwt", "offline")
        let merged = try #require(state.graph.devices[id])
        #expect(merged.sourceConnectivity.connectivityState == .partiallyOnline)
        #expect(merged.deviceType(key: "relay")?.trait(.matter("OnOff"))?.connectivity.state == .online)
        #expect(merged.deviceType(key: "energy_power")?.trait(.matter("ElectricalPowerMeasurement"))?.connectivity.state == .offline)
        #expect(Set(merged.sources.map(\.family)) == ["tasmota", "homeassistant"])
        // The Tasmota goes away: the HA part stands alone again.
        _ = state.receive("tasmota/discovery/A4CF12345678/config", "")
        #expect(state.graph.devices.keys.map(\.rawValue) == ["ha-meter-plug"])
    }
}
