import FoundationEssentials
public import TraitBridgeJSON

/// A simulated home: the devices, how their sensor values drift, and the faults to inject when.
///
/// Read from a JSON file (`examples/demo-home.json` is a complete, commented one) and checked on
/// load: a mistake is reported as `file:line:col: path: message`, and nothing starts.
public struct Scenario: Sendable {
    /// The protocol a simulated device speaks on the broker.
    public enum DeviceProtocol: String, Sendable, CaseIterable {
        case zigbee2mqtt
        case tasmota
        case shellyGen1 = "shelly-gen1"
        case shellyGen2 = "shelly-gen2"
        /// Home Assistant MQTT discovery, as a bla2mqtt-style program publishes it: one device
        /// config with its components, a JSON state on `<topic>/state`, commands on `<topic>/…/set`.
        case homeAssistant = "homeassistant"
        /// A camera of Frigate (the NVR), as Frigate's MQTT contract has it: its switches' states
        /// (`recordings`, `detect`, `motion_threshold`…) under `<topic>/<camera>/`, the stats that
        /// name it, `<topic>/available`; `…/set` answered with the new state.
        case frigate
        /// A Reolink camera's settings as cam2mqtt publishes them (berfenger/cam2mqtt): `<topic>/camera/
        /// <id>/status`, `…/state/reolink/<setting>` retained, `…/command/reolink/<setting>` answered.
        case cam2mqtt
    }

    /// One device. `data` is what it reports: the zigbee2mqtt state object, Tasmota's STATE
    /// values, a Shelly Gen1 topic → value table, a Shelly Gen2 component → status table, the
    /// JSON state of a Home Assistant discovery device.
    public struct Device: Sendable {
        public var name: String
        public var deviceProtocol: DeviceProtocol
        /// zigbee2mqtt: the friendly name; Tasmota: the MAC; Gen1: the MQTT id; Gen2: the device id;
        /// Home Assistant: the device identifier.
        public var id: String
        /// Tasmota: %topic%; Gen2: the topic prefix (default: the id); Home Assistant: its base topic;
        /// Frigate: its topic prefix (default `frigate`), the camera's name being `id`; cam2mqtt: its
        /// prefix (default `cam2mqtt`), the camera's id being `id`.
        public var topic: String
        public var data: JSONObject
        /// Tasmota: the SENSOR objects (`{"AM2301": {"Temperature": 21.5}}`).
        public var sensors: JSONObject
        /// Tasmota: relay kinds (`rl`), light subtype (`lt_st`).
        public var relays: [Int]
        public var lightSubtype: Int
        /// Gen1: the model code of the announce (`SHSW-25`).
        public var model: String
        /// Home Assistant: the components of its device config (`cmps`), `~` being `topic`.
        public var entities: JSONObject = JSONObject()
        /// The room it is in. A Home Assistant device announces it (`suggested_area`); the other
        /// protocols know no rooms, so `traitbridge demo` puts them there as a user would
        /// (`traitbridge move`).
        public var room: String?
    }

    /// A value that moves by `step` every drift interval, bouncing between `minimum` and `maximum`.
    public struct Drift: Sendable {
        public var device: String
        /// zigbee2mqtt: state key; Tasmota: `Sensor.Value`; Gen1: topic below the device; Gen2: `component.field`.
        public var key: String
        public var step: Double
        public var minimum: Double
        public var maximum: Double
    }

    /// What goes wrong, when.
    public struct Fault: Sendable {
        public enum Kind: String, Sendable, CaseIterable {
            /// The device says it is offline (availability, LWT, `online` false) / back online.
            case offline, online
            /// Offline and online `times` times, `intervalSeconds` apart.
            case flap
            /// zigbee2mqtt itself goes offline / comes back (`bridge/state`).
            case dropBridge, restoreBridge
            /// The device stops / starts answering commands.
            case mute, unmute
            /// A Frigate camera sees a person: motion, a tracked object (new, then end), no motion.
            case motion
        }

        public var afterSeconds: Double
        public var kind: Kind
        /// The device (not for dropBridge / restoreBridge).
        public var device: String?
        public var times: Int
        public var intervalSeconds: Double
    }

    public var zigbee2mqttBaseTopic: String
    /// `bridge/devices` as zigbee2mqtt publishes it (from `zigbee2mqtt.devicesFile`).
    public var zigbee2mqttDevices: JSONValue?
    public var devices: [Device]
    public var drift: [Drift]
    public var driftIntervalSeconds: Double
    public var faults: [Fault]

    /// Reads and checks a scenario file; a `zigbee2mqtt.devicesFile` is read relative to it.
    public static func load(path: String) throws(ScenarioError) -> Scenario {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path) }
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return try decode(file: path, bytes: [UInt8](data)) { name throws(ScenarioError) in
            let full = name.hasPrefix("/") || directory.isEmpty ? name : directory + "/" + name
            guard let bytes = FileManager.default.contents(atPath: full) else { throw .unreadable(full) }
            let document: JSONDocument
            do { document = try JSONDocument.parse([UInt8](bytes), maxDepth: 128) } catch let error as JSONParseError {
                throw .invalid(full, "\(error.line):\(error.column)", "$", "invalid JSON: \(error.reason)")
            } catch {
                throw .invalid(full, "1:1", "$", "\(error)")
            }
            return document.root.value
        }
    }

    /// Decodes scenario text; `readFile` reads the zigbee2mqtt devices file it names.
    public static func decode(file: String, bytes: [UInt8], readFile: (String) throws(ScenarioError) -> JSONValue)
        throws(ScenarioError) -> Scenario
    {
        let root: JSON
        do { root = try JSONDocument.parse(bytes, maxDepth: 128).root } catch {
            throw .invalid(file, "\(error.line):\(error.column)", "$", "invalid JSON: \(error.reason)")
        }
        var decoder = ScenarioDecoder(file: file, map: JSONSourceMap(bytes: bytes))
        return try decoder.scenario(root, readFile: readFile)
    }
}

/// A scenario that cannot be used; the text names the place and what is allowed.
public enum ScenarioError: Error, CustomStringConvertible {
    case unreadable(String)
    case invalid(String, String, String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): "cannot read scenario file '\(path)'"
        case .invalid(let file, let location, let path, let message): "\(file):\(location): \(path): \(message)"
        }
    }
}
