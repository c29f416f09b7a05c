import Foundation
import Testing
import TraitBridgeMQTT
import TraitBridgeTesting

/// A real Home Assistant Core (``HomeAssistantPeer``: homeassistant 2025.4.4 from
/// `scripts/install-home-assistant.sh`, loopback only) on a private mosquitto, fed by hand with what TraitBridge
/// will publish for #53: the bridge's availability, a unified device state and one device-based discovery message
/// (design-53 §4, §5). What Home Assistant made of it is read back over its REST API.
@Suite(
    "Home Assistant peer", .serialized,
    .enabled(
        if: HomeAssistantPeer.unavailableReason(repository: CommandRunner.repository) == nil,
        "\(HomeAssistantPeer.unavailableReason(repository: CommandRunner.repository) ?? "")"))
struct HomeAssistantPeerTests {
    static let device = "tb-ha-0x01"
    static let stateTopic = "traitbridge/devices/\(device)/state"
    static let commandTopic = "traitbridge/devices/\(device)/set"
    static let configTopic = "homeassistant/device/\(device)/config"
    static let on = #"{"trait":"matter.OnOff","command":"on"}"#
    static let off = #"{"trait":"matter.OnOff","command":"off"}"#

    /// The unified state (docs/mqtt-contract.md's shape): a light with OnOff and LevelControl, a temperature sensor.
    static var state: [String: Any] {
        [
            "id": device, "name": "Hall", "connectivityState": "online", "dataSourceLocality": "direct",
            "types": [
                "light": [
                    "traits": [
                        "matter.OnOff": ["connectivityState": "online", "attributes": ["onOff": true]],
                        "matter.LevelControl": ["connectivityState": "online", "attributes": ["currentLevel": 200]],
                    ]
                ],
                "temp": [
                    "traits": [
                        "matter.TemperatureMeasurement": [
                            "connectivityState": "online", "attributes": ["measuredValue": 2150],
                        ]
                    ]
                ],
            ],
        ]
    }

    /// Availability of one trait: the bridge's LWT and the trait's own connectivity in the state.
    static func availability(_ type: String, _ trait: String) -> [[String: String]] {
        [
            ["topic": "traitbridge/bridge/state"],
            [
                "topic": stateTopic,
                "value_template": "{{ 'online' if value_json.types['\(type)'].traits['\(trait)'].connectivityState"
                    + " in ['online','partiallyOnline'] else 'offline' }}",
            ],
        ]
    }

    /// One device-based discovery message: a default-schema light and a sensor, state through templates.
    static var discovery: [String: Any] {
        let onOff = "value_json.types['light'].traits['matter.OnOff']"
        let light: [String: Any] = [
            "p": "light", "unique_id": "traitbridge_\(device)_light", "object_id": "tb_hall_light", "name": NSNull(),
            // The default schema compares the rendered state with payload_on/payload_off (design-53 §4).
            "state_value_template": "{{ '\(on)' if \(onOff).attributes.onOff else '\(off)' }}",
            "payload_on": on, "payload_off": off,
            "brightness_state_topic": stateTopic, "brightness_scale": 254,
            "brightness_value_template":
                "{{ value_json.types['light'].traits['matter.LevelControl'].attributes.currentLevel }}",
            "brightness_command_topic": commandTopic,
            "brightness_command_template":
                #"{"trait":"matter.LevelControl","attribute":"currentLevel","value":{{ value }}}"#,
            "availability": availability("light", "matter.OnOff"), "availability_mode": "all",
            "json_attributes_topic": stateTopic,
            "json_attributes_template":
                "{{ {'connectivity': \(onOff).connectivityState,"
                + " 'locality': value_json.dataSourceLocality} | tojson }}",
        ]
        let sensor: [String: Any] = [
            "p": "sensor", "unique_id": "traitbridge_\(device)_temp", "object_id": "tb_hall_temperature",
            "name": "Temperature", "device_class": "temperature", "state_class": "measurement",
            "unit_of_measurement": "°C",
            "value_template":
                "{{ value_json.types['temp'].traits['matter.TemperatureMeasurement'].attributes.measuredValue / 100 }}",
            "availability": availability("temp", "matter.TemperatureMeasurement"), "availability_mode": "all",
        ]
        return [
            "dev": ["ids": ["traitbridge_\(device)"], "name": "Hall", "mf": "IKEA", "mdl": "TRADFRI", "sa": "Hall"],
            "o": ["name": "TraitBridge", "sw": "0.0-test", "url": "https://example.invalid/traitbridge"],
            "qos": 1, "state_topic": stateTopic, "command_topic": commandTopic,
            "cmps": ["light": light, "temp": sensor],
        ]
    }

    static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Polls `body` every 200 ms (its REST calls cost Home Assistant a little) until it gives a value, ≤ `timeout`.
    static func poll<T>(timeout: Duration = .seconds(20), _ body: () throws -> T?) rethrows -> T? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = try body() { return value }
            if ContinuousClock.now >= deadline { return nil }
            Thread.sleep(forTimeInterval: 0.2)
        }
    }

    @Test("device-based discovery: light and sensor from the unified state, a service call, removal, no network")
    func discoveryLifecycle() throws {
        let began = ContinuousClock.now
        let broker = try MosquittoBroker()
        let homeAssistant = try HomeAssistantPeer(repository: CommandRunner.repository, mqttPort: broker.port)
        defer {
            homeAssistant.stop()
            broker.stop()
        }
        print(
            "Home Assistant: config prepared in \(homeAssistant.prepareTime), RUNNING with MQTT in"
                + " \(homeAssistant.startTime)")
        func log() -> String { String(homeAssistant.log.suffix(4000)) }

        let client = try TestMQTTClient(broker, subscribe: [Self.commandTopic])
        try client.publish("traitbridge/bridge/state", "online", retain: true)
        try client.publish(Self.stateTopic, try Self.text(Self.state), retain: true)
        try client.publish(Self.configTopic, try Self.text(Self.discovery), retain: true)

        // Both entities, with state and attributes from the templates.
        let light = try Self.poll {
            try homeAssistant.state("light.tb_hall_light").flatMap { $0.state == "on" ? $0 : nil }
        }
        #expect(
            light?.attributes["brightness"]?.number == 201, "200 of 254 is 201 of 255: \(String(describing: light))")
        #expect(light?.attributes["connectivity"]?.string == "online", "\(String(describing: light))")
        #expect(light?.attributes["locality"]?.string == "direct", "\(String(describing: light))")
        #expect(light?.attributes["friendly_name"]?.string == "Hall", "\(String(describing: light))")
        let sensor = try Self.poll { try homeAssistant.state("sensor.tb_hall_temperature") }
        #expect(sensor?.state == "21.5", "\(String(describing: sensor))\n\(log())")
        #expect(sensor?.attributes["unit_of_measurement"]?.string == "°C", "\(String(describing: sensor))")
        #expect(sensor?.attributes["device_class"]?.string == "temperature", "\(String(describing: sensor))")
        let entities = try homeAssistant.states().map(\.entityID).filter { $0.contains("tb_hall") }
        #expect(Set(entities) == ["light.tb_hall_light", "sensor.tb_hall_temperature"], "\(entities)\n\(log())")
        // The device and its area, as Home Assistant's registries hold them.
        let device = try homeAssistant.renderTemplate(
            "{{ device_attr('light.tb_hall_light', 'name') }}|{{ device_attr('light.tb_hall_light', 'manufacturer') }}"
                + "|{{ area_name('light.tb_hall_light') }}")
        #expect(device == "Hall|IKEA|Hall", "\(device)")

        // A service call becomes the unified command on the device's command topic.
        try homeAssistant.callService(domain: "light", service: "turn_off", data: ["entity_id": "light.tb_hall_light"])
        let command = client.waitFor(Self.commandTopic)
        #expect(command?.payloadText == Self.off, "\(command?.payloadText ?? "no command")\n\(log())")

        // An empty retained config removes the device's entities.
        try client.publish(Self.configTopic, bytes: [], retain: true)
        let removed = try Self.poll {
            try homeAssistant.state("light.tb_hall_light") == nil
                && homeAssistant.state("sensor.tb_hall_temperature") == nil ? true : nil
        }
        #expect(removed == true, "the entities are still there\n\(log())")

        // Nothing but loopback: scripts/ha-run.py refused only the network integration's UDP probes, and did refuse
        // them (its audit hook is in place).
        #expect(homeAssistant.unexpectedRefusals.isEmpty, "new network access: \(homeAssistant.unexpectedRefusals)")
        #expect(homeAssistant.refusals.contains("connect to 8.8.8.8:1"), "no refusal seen: is ha-run.py's hook in?")
        print("Home Assistant test: \(ContinuousClock.now - began) in all")
    }
}
