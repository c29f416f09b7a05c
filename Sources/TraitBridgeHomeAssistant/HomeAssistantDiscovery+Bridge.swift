import TraitBridgeJSON
import TraitBridgeModel

extension HomeAssistantDiscovery {
    /// A scene of the home, offered as a Home Assistant scene that runs it.
    public struct Scene: Sendable, Hashable {
        public var home: String
        public var id: String
        public var name: String

        public init(home: String, id: String, name: String) {
            self.home = home
            self.id = id
            self.name = name
        }
    }

    /// The bridge's own device: its connection to the broker (the Last Will), how many devices it
    /// reads (from its health), and the homes' scenes, each run through the bridge's `scene-run`
    /// request (answered on `<prefix>/bridge/response/scene-run/homeassistant`).
    public func bridgeConfig(scenes: [Scene]) -> [UInt8] {
        let objectID = bridgeObjectID
        let availability: JSONValue = [["topic": .string(availabilityTopic)]]
        var components: JSONObject = [
            "connectivity": [
                "platform": "binary_sensor", "name": "Connectivity", "unique_id": .string(objectID + "_connectivity"),
                "device_class": "connectivity", "entity_category": "diagnostic",
                "state_topic": .string(availabilityTopic), "payload_on": "online", "payload_off": "offline",
            ],
            "devices": [
                "platform": "sensor", "name": "Devices", "unique_id": .string(objectID + "_devices"),
                "state_class": "measurement", "entity_category": "diagnostic", "availability": availability,
                "state_topic": .string(settings.bridgePrefix + "/bridge/health"),
                "value_template": "{{ value_json.devices['all'] if value_json.devices is mapping else none }}",
            ],
        ]
        for scene in scenes.prefix(Self.sceneLimit) {
            let key = "scene_" + Self.stableHash(scene.home + "\u{0}" + scene.id)
            let request: JSONValue = ["home": .string(scene.home), "scene": .string(scene.id)]
            components[key] = [
                "platform": "scene", "name": .string(scene.name), "unique_id": .string(objectID + "_" + key),
                "availability": availability,
                "command_topic": .string(settings.bridgePrefix + "/bridge/request/scene-run/homeassistant"),
                "payload_on": .string(String(decoding: request.serializedBytes(), as: UTF8.self)),
            ]
        }
        let device: JSONObject = [
            "identifiers": [.string(objectID)], "name": .string(settings.bridgeName), "manufacturer": "TraitBridge",
            "model": "TraitBridge", "sw_version": .string(settings.version),
        ]
        let root: JSONObject = [
            "device": .object(device), "origin": origin, "qos": 1, "components": .object(components),
        ]
        return JSONValue.object(root).serializedBytes()
    }

    /// Scenes offered at most (a home's layout is bounded too; this keeps one config's size in check).
    public static let sceneLimit = 256
}
