import Testing
import TraitBridgeHomeAssistant
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeTesting

/// The discovery configs made from the shipped table: which entities a device gets, what they read
/// and write, their availability per trait, and ids that stay the same.
@Suite("Home Assistant discovery configs")
struct HomeAssistantDiscoveryTests {
    static let paths = TestPaths(filePath: #filePath)
    static let catalog = Result { try CatalogLoader.load(mappingsDirectory: paths.mappings) }

    static func discovery(prefix: String = "traitbridge") throws -> HomeAssistantDiscovery {
        let catalog = try catalog.get()
        let table = try HomeAssistantExportTable.load(mappingsDirectory: paths.mappings, catalog: catalog)
        return HomeAssistantDiscovery(
            table: table, catalog: catalog,
            settings: .init(
                discoveryPrefix: "homeassistant", bridgePrefix: prefix, bridgeName: "Hall bridge",
                version: "1.2.3"))
    }

    /// A device with one type per (key, type, primary, traits with attributes).
    static func device(
        _ id: String, _ types: [(String, DeviceTypeID, Bool, [TraitID: [String: AttributeValue]])]
    ) throws -> Device {
        try Device(
            id: DeviceID(id), name: "Hall light", info: DeviceInfo(manufacturer: "IKEA", model: "LED1545G12"),
            deviceTypes: types.map { key, type, primary, traits in
                DeviceTypeInstance(
                    key: key, typeID: type, isPrimaryType: primary,
                    traits: traits.keys.sorted { $0.description < $1.description }.map {
                        TraitInstance(traitID: $0, attributes: traits[$0]!)
                    })
            })
    }

    /// Offers: every attribute each trait holds with the catalog's metadata; the commands given.
    static func offers(
        _ device: Device, commands: Set<String>, bounds: [String: (Double, Double)] = [:]
    ) throws -> (TraitAddress) -> HomeAssistantDiscovery.TraitOffer {
        let catalog = try catalog.get()
        return { address in
            var attributes: [String: AttributeMetadata] = [:]
            for (name, _) in device.trait(at: address)?.attributes ?? [:] {
                guard var metadata = try? catalog.attributeMetadata(address.traitID, name) else { continue }
                if let (low, high) = bounds[name] {
                    metadata.minimum = low
                    metadata.maximum = high
                }
                attributes[name] = metadata
            }
            return .init(attributes: attributes, commands: commands)
        }
    }

    static func config(_ bytes: [UInt8]?) throws -> JSON {
        let bytes = try #require(bytes)
        return try JSONDocument.parse(bytes).root
    }

    @Test("a colour-temperature light: one light entity with brightness and mireds, its range, writes, availability")
    func colourTemperatureLight() throws {
        let discovery = try Self.discovery()
        let light = try Self.device(
            "z2m-0x01",
            [
                (
                    "light", .matter("ColorTemperatureLight"), true,
                    [
                        .matter("OnOff"): ["onOff": .bool(true)],
                        .matter("LevelControl"): ["currentLevel": .int(200)],
                        .matter("ColorControl"): ["colorTemperatureMireds": .int(300)],
                    ]
                )
            ])
        let offers = try Self.offers(
            light, commands: ["on", "off", "toggle", "moveToLevel", "moveToColorTemperature"],
            bounds: ["colorTemperatureMireds": (250, 454)])
        let root = try Self.config(discovery.deviceConfig(of: light, roomName: "Hall", offers: offers))
        #expect(root["device"]?["identifiers"]?[0]?.string == "traitbridge_z2m-0x01")
        #expect(root["device"]?["suggested_area"]?.string == "Hall")
        #expect(root["device"]?["via_device"]?.string == "traitbridge_bridge")
        #expect(root["device"]?["manufacturer"]?.string == "IKEA")
        #expect(root["origin"]?["name"]?.string == "TraitBridge")
        let components = try #require(root["components"])
        #expect(components.members.map(\.key) == ["light_light"], "OnOff, LevelControl and ColorControl are the light")
        let entity = try #require(components["light_light"])
        #expect(entity["platform"]?.string == "light")
        #expect(entity["unique_id"]?.string == "traitbridge_z2m-0x01_light_light")
        #expect(entity["name"]?.isNull == true, "the primary type's entity has the device's name")
        #expect(entity["min_mireds"]?.int64 == 250)
        #expect(entity["max_mireds"]?.int64 == 454)
        #expect(entity["brightness_scale"]?.int64 == 254)
        #expect(entity["command_topic"]?.string == "traitbridge/devices/z2m-0x01/set")
        #expect(entity["payload_on"]?.string == #"{"deviceType":"light","trait":"matter.OnOff","command":"on"}"#)
        #expect(
            entity["state_value_template"]?.string?.contains("value_json.types['light'].traits['matter.OnOff']")
                == true)
        #expect(entity["color_temp_command_template"]?.string?.contains("moveToColorTemperature") == true)
        #expect(entity["xy_state_topic"] == nil, "the light feeds no x/y: no xy")
        let availability = try #require(entity["availability"]?.elements)
        #expect(availability.count == 2)
        #expect(availability[0]["topic"]?.string == "traitbridge/bridge/state")
        #expect(availability[1]["topic"]?.string == "traitbridge/devices/z2m-0x01/state")
        #expect(
            availability[1]["value_template"]?.string
                == "{{ 'online' if value_json.types['light'].traits['matter.OnOff'].connectivityState == 'online' "
                + "else 'offline' }}")
        #expect(entity["availability_mode"]?.string == "all")
        #expect(entity["json_attributes_template"]?.string?.contains("'reason'") == true)
    }

    @Test("without the commands a device accepts, an entity reads only: no command topic, no payloads")
    func readOnlyWhenNothingIsAccepted() throws {
        let discovery = try Self.discovery()
        let light = try Self.device(
            "z2m-0x01",
            [
                (
                    "light", .matter("DimmableLight"), true,
                    [
                        .matter("OnOff"): ["onOff": .bool(false)], .matter("LevelControl"): ["currentLevel": .int(3)],
                    ]
                )
            ])
        let root = try Self.config(
            discovery.deviceConfig(of: light, roomName: nil, offers: try Self.offers(light, commands: [])))
        let entity = try #require(root["components"]?["light_light"])
        #expect(entity["command_topic"] == nil)
        #expect(entity["brightness_command_topic"] == nil)
        #expect(entity["brightness_state_topic"]?.string == "traitbridge/devices/z2m-0x01/state")
        #expect(root["device"]?["suggested_area"] == nil)
    }

    @Test("a climate sensor: temperature and humidity sensors with units, classes and the scale in the template")
    func sensors() throws {
        let discovery = try Self.discovery()
        let sensor = try Self.device(
            "z2m-0x02",
            [
                (
                    "temperature", .matter("TemperatureSensor"), true,
                    [
                        .matter("TemperatureMeasurement"): ["measuredValue": .int(2150)]
                    ]
                ),
                (
                    "humidity", .matter("HumiditySensor"), false,
                    [
                        .matter("RelativeHumidityMeasurement"): ["measuredValue": .int(4510)]
                    ]
                ),
            ])
        let root = try Self.config(
            discovery.deviceConfig(of: sensor, roomName: nil, offers: try Self.offers(sensor, commands: [])))
        let components = try #require(root["components"])
        #expect(components.members.map(\.key).sorted() == ["humidity_humidity", "temperature_temperature"])
        let temperature = try #require(components["temperature_temperature"])
        #expect(temperature["device_class"]?.string == "temperature")
        #expect(temperature["unit_of_measurement"]?.string == "°C")
        #expect(temperature["name"]?.string == "Temperature")
        #expect(temperature["value_template"]?.string?.contains("measuredValue / 100") == true)
        #expect(components["humidity_humidity"]?["name"]?.string == "Humidity")
    }

    @Test("a plug is an outlet switch, the second relay of a dual relay a switch named by its key, a lock locks")
    func switchesAndLocks() throws {
        let discovery = try Self.discovery()
        let relay = try Self.device(
            "z2m-0x03",
            [
                ("plug", .matter("OnOffPlugInUnit"), true, [.matter("OnOff"): ["onOff": .bool(true)]]),
                ("l2", .matter("OnOffLightSwitch"), false, [.matter("OnOff"): ["onOff": .bool(false)]]),
                ("lock", .matter("DoorLock"), false, [.matter("DoorLock"): ["lockState": .int(1)]]),
            ])
        let root = try Self.config(
            discovery.deviceConfig(
                of: relay, roomName: nil, offers: try Self.offers(relay, commands: ["on", "off", "lockDoor"])))
        let components = try #require(root["components"])
        #expect(components["plug_outlet"]?["device_class"]?.string == "outlet")
        #expect(components["l2_switch"]?["name"]?.string == "l2")
        #expect(
            components["l2_switch"]?["payload_off"]?.string
                == #"{"deviceType":"l2","trait":"matter.OnOff","command":"off"}"#)
        let lock = try #require(components["lock_lock"])
        #expect(lock["payload_lock"]?.string?.contains("lockDoor") == true)
        #expect(lock["payload_unlock"] == nil, "unlockDoor is not accepted")
    }

    @Test("a source that does not say what it writes (Tasmota, Shelly): the catalog's commands are offered")
    func sourceWithoutBindings() throws {
        let discovery = try Self.discovery()
        let plug = try Self.device(
            "tasmota-a4cf12d0e001",
            [("relay", .matter("OnOffPlugInUnit"), true, [.matter("OnOff"): ["onOff": .bool(true)]])])
        let offers = try Self.offers(plug, commands: [])
        let root = try Self.config(
            discovery.deviceConfig(of: plug, roomName: nil) { address in
                var offer = offers(address)
                offer.sourceSaysWrites = false
                return offer
            })
        let outlet = try #require(root["components"]?["relay_outlet"])
        #expect(outlet["payload_on"]?.string == #"{"deviceType":"relay","trait":"matter.OnOff","command":"on"}"#)
        let said = try Self.config(discovery.deviceConfig(of: plug, roomName: nil, offers: offers))
        #expect(said["components"]?["relay_outlet"]?["payload_on"] == nil, "a source that says it writes nothing")
    }

    @Test("a device with nothing the table maps has no config")
    func nothingToGive() throws {
        let discovery = try Self.discovery()
        let device = try Self.device(
            "generic-x", [("identify", .matter("OnOffSensor"), true, [.matter("Identify"): ["identifyTime": .int(0)]])])
        #expect(discovery.deviceConfig(of: device, roomName: nil, offers: try Self.offers(device, commands: [])) == nil)
    }

    @Test("object ids: the id as it is, or with a stable hash when a byte had to change; our config topics known")
    func objectIDs() throws {
        let discovery = try Self.discovery()
        #expect(discovery.objectID(try DeviceID("z2m-0x01")) == "traitbridge_z2m-0x01")
        let dotted = discovery.objectID(try DeviceID("c2c-a.b"))
        #expect(dotted.hasPrefix("traitbridge_c2c-a_b_") && dotted.count == "traitbridge_c2c-a_b_".count + 8)
        #expect(dotted == discovery.objectID(try DeviceID("c2c-a.b")))
        #expect(dotted != discovery.objectID(try DeviceID("c2c-a_b")))
        #expect(discovery.configTopic(objectID: "x") == "homeassistant/device/x/config")
        #expect(
            discovery.ownObjectID(configTopic: "homeassistant/device/traitbridge_z2m-0x01/config")
                == "traitbridge_z2m-0x01")
        #expect(discovery.ownObjectID(configTopic: "homeassistant/device/zigbee2mqtt_0x01/config") == nil)
        #expect(discovery.ownObjectID(configTopic: "homeassistant/light/traitbridge_x/config") == nil)
        let other = try Self.discovery(prefix: "home/bridge")
        #expect(other.objectID(try DeviceID("a")) == "home_bridge_a")
    }

    @Test("the bridge's device: connectivity from the Last Will, the device count from health, scenes that run")
    func bridgeDevice() throws {
        let discovery = try Self.discovery()
        let root = try Self.config(
            discovery.bridgeConfig(scenes: [.init(home: "home", id: "evening", name: "Evening")]))
        #expect(root["device"]?["name"]?.string == "Hall bridge")
        let components = try #require(root["components"])
        #expect(components["connectivity"]?["state_topic"]?.string == "traitbridge/bridge/state")
        #expect(components["devices"]?["state_topic"]?.string == "traitbridge/bridge/health")
        let scene = try #require(components.members.first { $0.key.hasPrefix("scene_") }?.value)
        #expect(scene["platform"]?.string == "scene")
        #expect(scene["name"]?.string == "Evening")
        #expect(scene["command_topic"]?.string == "traitbridge/bridge/request/scene-run/homeassistant")
        #expect(scene["payload_on"]?.string == #"{"home":"home","scene":"evening"}"#)
    }

    @Test("the table is checked: an unknown platform, attribute, command or word is a problem with its place")
    func tableProblems() throws {
        let catalog = try Self.catalog.get()
        let bad = #"""
            {"entities": [
              {"entity": "a", "platform": "toaster", "parts": [{"trait": "matter.OnOff"}]},
              {"entity": "b", "platform": "sensor", "parts": [{"trait": "matter.OnOff", "attributes": ["nope"]}]},
              {"entity": "c", "platform": "switch", "parts": [{"trait": "matter.OnOff", "command": "explode"}]},
              {"entity": "d", "platform": "sensor", "parts": [{"trait": "matter.OnOff", "read": {"x": "$nowhere"}}]}
            ]}
            """#
        #expect {
            _ = try HomeAssistantExportTable.decode(file: "entities.json", bytes: Array(bad.utf8), catalog: catalog)
        } throws: { error in
            let text = "\(error)"
            return text.contains("unknown platform 'toaster'") && text.contains("has no attribute nope")
                && text.contains("no command rule 'explode'") && text.contains("unknown word '$nowhere")
                && text.contains("entities.json:")
        }
    }
}
