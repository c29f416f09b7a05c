import Foundation
import Testing
import TraitBridgeLocalBroker
import TraitBridgeMQTT
import TraitBridgeTesting

/// Home Assistant discovery out on real parts: the demo's devices simulated on a private mosquitto,
/// `serve` with `homeAssistantExport`, and a real Home Assistant Core (``HomeAssistantPeer``) on the same
/// broker. What Home Assistant made of the bridge's configs is read over its REST API.
@Suite(
    "Home Assistant discovery out, end to end", .serialized,
    .enabled(
        if: HomeAssistantPeer.unavailableReason(repository: CommandRunner.repository) == nil,
        "\(HomeAssistantPeer.unavailableReason(repository: CommandRunner.repository) ?? "")"))
struct HomeAssistantExportEndToEndTests {
    static let light = "z2m-0x00158d0001000001", radiator = "z2m-0x00158d0001000005"
    static let names = [
        "Hall light", "Climate", "Front door lock", "Bedroom radiator", "Back door", "Living room blinds",
        "Kitchen plug", "Porch",
    ]

    /// A power meter Home Assistant's discovery announces for the Hall light's bulb (joined to it by the
    /// IEEE address, as zigbee2mqtt names devices), with an availability of its own: the Hall light is then
    /// one device with traits from two sources, and can be partially online.
    static func publishMeter(_ client: TestMQTTClient) throws {
        let config =
            #"{"name":"Power","unique_id":"hall_meter_power","device_class":"power","unit_of_measurement":"W","#
            + #""state_topic":"meter/hall/power","availability_topic":"meter/hall/availability","#
            + #""device":{"identifiers":["zigbee2mqtt_0x00158d0001000001"],"name":"Hall light meter"}}"#
        try client.publish("homeassistant/sensor/hall_meter/power/config", config, retain: true)
        try client.publish("meter/hall/availability", "online", retain: true)
        try client.publish("meter/hall/power", "7.5", retain: true)
    }

    /// The first entity of `domain` whose friendly name starts with `name`.
    static func entity(_ states: [HomeAssistantPeer.EntityState], _ domain: String, _ name: String)
        -> HomeAssistantPeer.EntityState?
    {
        states.first {
            $0.entityID.hasPrefix(domain + ".") && ($0.attributes["friendly_name"]?.string ?? "").hasPrefix(name)
        }
    }

    /// Waits (bounded) until `read` finds the entity in the state `condition` wants; the last one read.
    static func waitFor(
        _ home: HomeAssistantPeer, _ domain: String, _ name: String, timeout: Duration = .seconds(20),
        _ condition: (HomeAssistantPeer.EntityState) -> Bool = { _ in true }
    ) -> HomeAssistantPeer.EntityState? {
        var found: HomeAssistantPeer.EntityState?
        _ = eventually(timeout: timeout) {
            found = (try? home.states()).flatMap { entity($0, domain, name) }
            return found.map(condition) == true
        }
        return found
    }

    @Test("the demo's devices in Home Assistant: states, commands, availability per trait, restarts, removal")
    func endToEnd() throws {
        let broker = try MosquittoBroker()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tb-ha-export-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = try HomeAssistantPeer(repository: CommandRunner.repository, mqttPort: broker.port)
        defer { home.stop() }
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"homeAssistantExport": {"name": "Test bridge"}}"#.utf8).write(to: config)
        let serveLog = folder.appendingPathComponent("serve.log").path
        func serve() throws -> BridgeProcess {
            try BridgeProcess(
                [
                    "serve", "--broker", broker.url, "--config", config.path, "--data-dir",
                    folder.appendingPathComponent("data").path,
                ], log: serveLog)
        }
        var bridge = try serve()
        defer { bridge.stop() }
        let simulator = try BridgeProcess(
            [
                "simulate", "--scenario", try HomeKitTests.scenario(in: folder, names: Self.names), "--broker",
                broker.url, "--duration", "300",
            ],
            log: folder.appendingPathComponent("simulate.log").path)
        defer { simulator.stop() }
        let observer = try TestMQTTClient(
            broker, subscribe: ["homeassistant/device/#", "zigbee2mqtt/#", "traitbridge/#"])
        try Self.publishMeter(observer)
        func diagnostics() -> String {
            let names = ((try? home.states()) ?? []).map { "\($0.entityID)=\($0.state)" }.sorted()
            let hall = observer.messages.all.last { $0.topic == "traitbridge/devices/\(Self.light)/state" }
            return
                "Home Assistant's entities: \(names.joined(separator: ", "))"
                + "\nserve: \(LogFile.read(serveLog).suffix(1500))"
                + "\nthe Hall light's state: \(hall?.payloadText.prefix(1500) ?? "none")"
                + "\nHome Assistant: \(home.log.suffix(2500))"
        }

        // Every mapped trait of every device, with its state and unit.
        let lightState = Self.waitFor(home, "light", "Hall light") { $0.state == "off" }
        #expect(lightState != nil, "\(diagnostics())")
        let temperature = Self.waitFor(home, "sensor", "Climate Temperature") { Double($0.state) != nil }
        #expect(temperature?.attributes["unit_of_measurement"]?.string == "°C", "\(diagnostics())")
        #expect(Self.waitFor(home, "sensor", "Climate Humidity") { Double($0.state) != nil } != nil, "\(diagnostics())")
        let radiator = Self.waitFor(home, "climate", "Bedroom radiator") {
            $0.attributes["temperature"]?.number == 19.5
        }
        #expect(radiator?.attributes["current_temperature"]?.number == 18.7, "\(diagnostics())")
        #expect(Self.waitFor(home, "lock", "Front door lock") != nil, "\(diagnostics())")
        #expect(Self.waitFor(home, "binary_sensor", "Back door") != nil, "\(diagnostics())")
        #expect(Self.waitFor(home, "switch", "Kitchen plug") { $0.state == "on" } != nil, "\(diagnostics())")
        let blinds = Self.waitFor(home, "cover", "shellyswitch25") { $0.attributes["current_position"] != nil }
        #expect(blinds != nil, "\(diagnostics())")
        // Every component of every config the bridge gave is an entity of Home Assistant's on that device.
        #expect(
            eventually(timeout: .seconds(20)) {
                Self.components(observer) == (try? home.renderTemplate(Self.ourEntities)).flatMap { Int($0) }
            }, "\(Self.components(observer)) components, \((try? home.renderTemplate(Self.ourEntities)) ?? "?")")
        // The Porch came from Home Assistant's own discovery: not given back.
        #expect(!observer.messages.all.contains { $0.topic.hasPrefix("homeassistant/device/traitbridge_ha-") })

        // A service call reaches the simulated device; Home Assistant shows the new state.
        try home.callService(
            domain: "light", service: "turn_on", data: ["entity_id": lightState?.entityID ?? "", "brightness": 128])
        #expect(
            observer.waitFor("zigbee2mqtt/Hall light/set", timeout: .seconds(10)) {
                $0.payloadText.contains("brightness")
            }
                != nil, "\(diagnostics())")
        #expect(
            Self.waitFor(home, "light", "Hall light") { $0.state == "on" && $0.attributes["brightness"]?.number == 128 }
                != nil, "\(diagnostics())")
        let lock = Self.waitFor(home, "lock", "Front door lock")
        try home.callService(domain: "lock", service: "lock", data: ["entity_id": lock?.entityID ?? ""])
        #expect(Self.waitFor(home, "lock", "Front door lock") { $0.state == "locked" } != nil, "\(diagnostics())")
        try home.callService(
            domain: "cover", service: "set_cover_position", data: ["entity_id": blinds?.entityID ?? "", "position": 40])
        #expect(
            Self.waitFor(home, "cover", "shellyswitch25") { $0.attributes["current_position"]?.number == 40 } != nil,
            "\(diagnostics())")
        try home.callService(
            domain: "climate", service: "set_temperature",
            data: ["entity_id": radiator?.entityID ?? "", "temperature": 21.5])
        #expect(
            Self.waitFor(home, "climate", "Bedroom radiator") { $0.attributes["temperature"]?.number == 21.5 } != nil,
            "\(diagnostics())")

        // Out of range: Home Assistant knows the radiator's range and refuses; what it would send is refused by
        // the bridge too (the same template's output on the same topic), with the range; nothing reaches the device.
        let before = observer.messages.all.filter { $0.topic == "zigbee2mqtt/Bedroom radiator/set" }.count
        #expect(throws: (any Error).self) {
            try home.callService(
                domain: "climate", service: "set_temperature",
                data: ["entity_id": radiator?.entityID ?? "", "temperature": 60])
        }
        let command = try #require(Self.radiatorSetpointCommand(observer, value: 6000), "\(diagnostics())")
        try observer.publish("traitbridge/devices/\(Self.radiator)/set", command)
        let refusal = observer.waitFor("traitbridge/devices/\(Self.radiator)/set/result") {
            $0.payloadText.contains("valueOutOfRange")
        }
        #expect(refusal != nil, "\(diagnostics())")
        #expect(observer.messages.all.filter { $0.topic == "zigbee2mqtt/Bedroom radiator/set" }.count == before)
        #expect(LogFile.read(serveLog).contains("refused command"), "the refusal is in the bridge's log")

        var list = try Self.buttonPresses(home, observer: observer, folder: folder, diagnostics)

        // A device removed from zigbee2mqtt leaves Home Assistant: its entities and its device leave the registries.
        let backDoor = try #require(Self.waitFor(home, "binary_sensor", "Back door"))
        let registered = "{{ integration_entities('mqtt') | select('search', 'back_door') | list | count }}"
        #expect(try home.renderTemplate(registered) == "2", "the contact and the battery are registered")
        list.removeAll { $0["friendly_name"] as? String == "Back door" }
        try observer.publish(
            "zigbee2mqtt/bridge/devices",
            String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self), retain: true)
        #expect(
            eventually(timeout: .seconds(20)) { (try? home.state(backDoor.entityID)) == .some(nil) },
            "\(diagnostics())")
        #expect(try home.renderTemplate(registered) == "0", "no Back door entity in the registry")
        #expect(try home.renderTemplate("{{ device_id('\(backDoor.entityID)') }}") == "None", "nor its device")
        try Self.availability(home, observer: observer, diagnostics)
        try Self.sceneRuns(home, broker: broker, observer: observer, folder: folder, diagnostics)

        // Restarted, the bridge gives Home Assistant the same unique ids: the same entities, none added.
        let ours = Set(try home.states().map(\.entityID))
        bridge.stop()
        bridge = try serve()
        #expect(
            eventually(timeout: .seconds(20)) {
                LogFile.read(serveLog).components(separatedBy: "connected; republished").count > 2
            }, "\(diagnostics())")
        #expect(Self.waitFor(home, "light", "Hall light") { $0.state != "unavailable" } != nil, "\(diagnostics())")
        Thread.sleep(forTimeInterval: 2)
        let after = Set(try home.states().map(\.entityID))
        #expect(
            after == ours, "added \(after.subtracting(ours)), lost \(ours.subtracting(after)): \(diagnostics())")

        // The broker restarted: Home Assistant and the bridge connect again, the configs and states are back.
        try broker.restart()
        #expect(
            Self.waitFor(home, "light", "Hall light", timeout: .seconds(40)) { $0.state == "on" || $0.state == "off" }
                != nil, "back after the broker's restart: \(diagnostics())")
        #expect(
            Self.waitFor(home, "sensor", "Hall light Power") { $0.state == "7.5" } != nil,
            "back after the broker's restart: \(diagnostics())")

        #expect(home.unexpectedRefusals.isEmpty, "Home Assistant reached for the network: \(home.unexpectedRefusals)")
    }

    /// A button zigbee2mqtt adds to its list: an event entity whose types are the button's own actions; a
    /// retained action is no press, a live one is an event in Home Assistant. The list with the button.
    static func buttonPresses(
        _ home: HomeAssistantPeer, observer: TestMQTTClient, folder: URL, _ diagnostics: () -> String
    ) throws -> [[String: Any]] {
        var list =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: folder.appendingPathComponent("z2m-devices.json"))) as? [[String: Any]] ?? []
        let actions = ["single", "double", "hold", "release"]
        let exposes: [[String: Any]] = [
            ["type": "enum", "name": "action", "property": "action", "access": 1, "values": actions],
            ["type": "numeric", "name": "battery", "property": "battery", "access": 1, "unit": "%"],
        ]
        list.append([
            "ieee_address": "0x00158d0000b077a0", "friendly_name": "Desk button", "type": "EndDevice",
            "power_source": "Battery",
            "definition": ["vendor": "Aqara", "model": "WXKG11LM", "exposes": exposes] as [String: Any],
        ])
        try observer.publish("zigbee2mqtt/Desk button", #"{"action":"hold","battery":100}"#, retain: true)
        try observer.publish(
            "zigbee2mqtt/bridge/devices",
            String(decoding: try JSONSerialization.data(withJSONObject: list), as: UTF8.self), retain: true)
        func types(_ entity: HomeAssistantPeer.EntityState?) -> [String] {
            guard case .array(let values)? = entity?.attributes["event_types"] else { return [] }
            return values.compactMap(\.string)
        }
        // Available once the bridge gave its state again after the config (Home Assistant reads from then on).
        let button = waitFor(home, "event", "Desk button") { !types($0).isEmpty && $0.state != "unavailable" }
        #expect(types(button) == actions, "\(diagnostics())")
        let buttonTopic = "traitbridge/devices/z2m-0x00158d0000b077a0"
        func seen() -> String {
            observer.messages.all.filter { $0.topic.hasPrefix(buttonTopic) || $0.topic.hasPrefix("zigbee2mqtt/Desk") }
                .map { "\($0.topic) \($0.payloadText.prefix(1200))" }.joined(separator: "\n")
        }
        #expect(button?.state == "unknown", "the retained action was no press: \(seen()) \(diagnostics())")
        try observer.publish("zigbee2mqtt/Desk button", #"{"action":"double","battery":100}"#)
        let pressed = waitFor(home, "event", "Desk button") { $0.attributes["event_type"]?.string == "double" }
        #expect(pressed?.attributes["event_type"]?.string == "double", "a press is an event: \(seen())")
        #expect(pressed?.state.hasPrefix("20") == true, "the event's time: \(pressed?.state ?? "none")")
        try observer.publish("zigbee2mqtt/Desk button", "", retain: true)
        return list
    }

    /// How many entities Home Assistant has on devices the bridge gave it (the bridge's own included).
    static let ourEntities =
        "{% set ns = namespace(count=0) %}{% for entity in integration_entities('mqtt') %}"
        + "{% set ids = device_attr(device_id(entity), 'identifiers') | list %}"
        + "{% if ids and (ids | first | last | string).startswith('traitbridge_') %}"
        + "{% set ns.count = ns.count + 1 %}{% endif %}{% endfor %}{{ ns.count }}"

    /// The components of the bridge's latest discovery configs, all devices.
    static func components(_ observer: TestMQTTClient) -> Int {
        var latest: [String: [UInt8]] = [:]
        for message in observer.messages.all where message.topic.hasPrefix("homeassistant/device/traitbridge_") {
            latest[message.topic] = message.payload
        }
        return latest.values.reduce(0) { count, payload in
            let root = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
            return count + ((root?["components"] as? [String: Any])?.count ?? 0)
        }
    }

    /// A scene of the home added as a user would: a scene on the bridge's device in Home Assistant, which runs it.
    static func sceneRuns(
        _ home: HomeAssistantPeer, broker: MosquittoBroker, observer: TestMQTTClient, folder: URL,
        _ diagnostics: () -> String
    ) throws {
        let actions = folder.appendingPathComponent("scene.json")
        try Data(#"[{"device": "\#(light)", "trait": "matter.OnOff", "command": "off"}]"#.utf8).write(to: actions)
        let added = try CommandRunner.run([
            "scene", "add", "Hall off", "--actions", actions.path, "--broker", broker.url,
        ])
        #expect(added.exitCode == 0, "\(added.standardOutput) \(added.standardError)")
        let scene = waitFor(home, "scene", "Test bridge Hall off") { $0.state != "unavailable" }
        #expect(scene != nil, "\(diagnostics())")
        try home.callService(domain: "scene", service: "turn_on", data: ["entity_id": scene?.entityID ?? ""])
        #expect(
            observer.waitFor("zigbee2mqtt/Hall light/set", timeout: .seconds(10)) { $0.payloadText.contains("OFF") }
                != nil, "\(diagnostics())")
        #expect(waitFor(home, "light", "Hall light") { $0.state == "off" } != nil, "\(diagnostics())")
    }

    /// The Hall light partially online (its meter offline), then offline, then online again.
    static func availability(
        _ home: HomeAssistantPeer, observer: TestMQTTClient, _ diagnostics: () -> String
    ) throws {
        #expect(
            waitFor(home, "sensor", "Hall light Power") { $0.state == "7.5" } != nil,
            "the meter joined: \(diagnostics())")
        try observer.publish("meter/hall/availability", "offline", retain: true)
        #expect(waitFor(home, "sensor", "Hall light Power") { $0.state == "unavailable" } != nil, "\(diagnostics())")
        let partial = waitFor(home, "light", "Hall light")
        #expect(partial != nil && partial?.state != "unavailable", "the light stays: \(diagnostics())")
        #expect(partial?.attributes["connectivity"]?.string == "online")
        try devicePage(home, light: partial?.entityID ?? "light.hall_light")
        try observer.publish("zigbee2mqtt/Hall light/availability", #"{"state":"offline"}"#, retain: true)
        let offline = waitFor(home, "light", "Hall light") { $0.state == "unavailable" }
        #expect(offline != nil, "the whole device offline: \(diagnostics())")
        #expect(waitFor(home, "sensor", "Hall light Power")?.state == "unavailable")
        try observer.publish("zigbee2mqtt/Hall light/availability", #"{"state":"online"}"#, retain: true)
        try observer.publish("meter/hall/availability", "online", retain: true)
        #expect(waitFor(home, "sensor", "Hall light Power") { $0.state == "7.5" } != nil, "\(diagnostics())")
        #expect(waitFor(home, "light", "Hall light") { $0.state == "on" } != nil, "\(diagnostics())")
    }

    static let browserPython = CommandRunner.repository + "/.build-browser/venv/bin/python"
    static let screenshots = CommandRunner.repository + "/.build/artefacts/homeassistant"

    /// The Hall light's device page in headless Chromium while it is partially online: the light in its controls,
    /// the power sensor Unavailable; the screenshot kept in `.build/artefacts/homeassistant/` (the one in
    /// docs/home-assistant.md was taken so).
    static func devicePage(_ home: HomeAssistantPeer, light: String) throws {
        guard FileManager.default.isExecutableFile(atPath: browserPython),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver")
        else {
            print(
                "skipped: Home Assistant's device page in Chromium (scripts/install-browser.sh; make test installs it)")
            return
        }
        let device = try home.renderTemplate("{{ device_id('\(light)') }}").trimmingCharacters(
            in: .whitespacesAndNewlines)
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tb-ha-page-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let browser = try ChildProcess(
            [
                browserPython, CommandRunner.repository + "/Tests/TraitBridgeCLITests/Fixtures/ha-device-page.py",
                "http://127.0.0.1:\(home.httpPort)", home.token, device,
                screenshots + "/hall-light-partially-online.png", "Hall light|Power|Unavailable",
            ], logFile: output)
        if !browser.reap(within: .seconds(120)) { browser.kill() }
        let printed = LogFile.read(output)
        let line = printed.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let found = try #require(
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "the driver printed: \(printed)"
        )
        #expect(found["error"] == nil, "the driver stopped: \(found["error"] ?? "")")
        let text = found["text"] as? String ?? ""
        #expect(text.contains("Controls | Hall light |"), "the light is live on its page: \(text)")
        #expect(text.contains("Sensors | Power | Unavailable"), "only the meter's sensor is unavailable: \(text)")
        #expect(!text.contains("Hall light | Unavailable"), "\(text)")
    }

    /// What Home Assistant's setpoint template for the radiator renders for `value` (in 0.01 °C), from the
    /// radiator's retained config.
    static func radiatorSetpointCommand(_ observer: TestMQTTClient, value: Int) -> String? {
        let topic = "homeassistant/device/traitbridge_\(radiator)/config"
        guard let config = observer.waitFor(topic, where: { !$0.payload.isEmpty }),
            let root = try? JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any],
            let components = root["components"] as? [String: Any],
            let climate = components.values.compactMap({ $0 as? [String: Any] }).first(where: {
                $0["platform"] as? String == "climate"
            }),
            let template = climate["temperature_command_template"] as? String
        else { return nil }
        return template.replacingOccurrences(of: "{{ (value * 100) | round | int }}", with: "\(value)")
    }
}
