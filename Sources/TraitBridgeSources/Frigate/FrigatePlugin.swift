import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// Frigate's cameras behind the plug-in boundary, from its MQTT contract (Frigate's
/// `docs/integrations/mqtt.md`): a camera is known from `<prefix>/stats` (its `cameras`) or from
/// one of its own `<prefix>/<camera>/<feature>/state` topics. Recording on/off is the camera's push
/// transport (`recordings/set`); the wake-up sensitivity is Frigate's motion threshold and contour
/// area (`mappings/sources/frigate.json`); motion is occupancy; tracked objects and review items
/// are notifications, none while the camera does not record; `<prefix>/available` is the source's
/// own availability and a camera whose stats say 0 frames a second is offline.
public struct FrigatePlugin: SourcePlugin {
    public static let family = "frigate"
    public let instance: String
    public let locality: TraitLocality
    let settings: FrigateFamily.Settings
    let table: FrigateTable
    let catalog: Catalog
    /// Cameras by Frigate's name, and their names by device id.
    private var cameras: [String: FrigateCamera] = [:]
    func cameras(named name: String) -> FrigateCamera? { cameras[name] }
    private var names: [DeviceID: String] = [:]
    /// Topics routed to it already.
    private var routed: Set<String> = []
    /// The longest camera name taken (a topic level is not a place for a paragraph).
    static let nameLimit = 64

    init(
        instance: String, settings: FrigateFamily.Settings, table: FrigateTable, catalog: Catalog,
        locality: TraitLocality
    ) {
        self.instance = instance
        self.settings = settings
        self.table = table
        self.catalog = catalog
        self.locality = locality
    }

    public var family: String { Self.family }
    public var staleness: Duration { settings.staleness }
    public var deviceIDs: [DeviceID] { names.keys.sorted() }
    public var deviceCount: Int { cameras.count }
    var prefix: String { settings.topicPrefix }
    /// Not `<prefix>/#`: object snapshots (JPEG) and per-zone counts are not read.
    public var subscriptions: [String] {
        ["available", "stats", "events", "reviews", "+/motion", "+/+/state"].map { "\(prefix)/\($0)" }
    }

    public func claims(_ topic: String) -> Bool { FrigateTopic(topic, prefix: prefix) != nil }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let topic = FrigateTopic(message.topic, prefix: prefix) else { return }
        defer { route(topic, message.topic, into: &events) }
        // Frigate's words (ON, online, 25) are short: a longer payload is read only for JSON, and
        // JSON topics never need the word.
        var text: String {
            String(String(decoding: message.payload.prefix(64), as: UTF8.self).filter { !$0.isWhitespace })
        }
        switch topic {
        case .available:
            let word = text
            guard word == "online" || word == "offline" else {
                events.append(.log(.notice, "ignored \(message.topic): expected online or offline", device: nil))
                return
            }
            events.append(.sourceAvailability(isOnline: word == "online", origin: "Frigate (\(message.topic))"))
        case .stats:
            stats(message, into: &events)
        case .events:
            trackedObject(message, into: &events)
        case .reviews:
            reviewItem(message, into: &events)
        case .motion(let name):
            guard let camera = cameras[name] else { return events.append(.keepUntilKnown) }
            guard let isOn = Self.onOff(text) else {
                return events.append(.log(.notice, "ignored \(message.topic): expected ON or OFF", device: nil))
            }
            events.append(
                .values(
                    camera.device.id,
                    [
                        AttributeUpdate(
                            address: FrigateCamera.occupancy, attribute: "occupancy", value: .int(isOn ? 1 : 0))
                    ],
                    isNews: true))
            if camera.isRecording != false {
                events.append(
                    .notification(
                        camera.device.id, trait: FrigateCamera.occupancy.traitID,
                        ["kind": "motion", "state": .string(isOn ? "start" : "end")]))
            }
        case .state(let name, let feature):
            state(name, feature, text, message, into: &events)
        }
    }

    /// A camera name as a URL query value: unreserved characters kept, every other byte %-encoded.
    static func queryValue(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            if (byte < 0x80 && (scalar.properties.isAlphabetic || ("0"..."9").contains(Character(scalar))))
                || "-._~".unicodeScalars.contains(scalar)
            {
                encoded.unicodeScalars.append(scalar)
            } else {
                encoded += byte < 16 ? "%0" : "%"
                encoded += String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// Routes a topic read once, so the engine hands it here without asking again: Frigate's own
    /// topics, and a known camera's (at most one route per topic; a camera not known gets none).
    private mutating func route(_ topic: FrigateTopic, _ text: String, into events: inout [SourceEvent]) {
        guard !routed.contains(text) else { return }
        switch topic {
        case .motion(let name), .state(let name, _): guard cameras[name] != nil else { return }
        case .available, .stats, .events, .reviews: break
        }
        routed.insert(text)
        events.append(.route([text]))
    }

    /// `ON`/`OFF` (Frigate's words for every switch); nil for anything else.
    static func onOff(_ text: String) -> Bool? { text == "ON" ? true : text == "OFF" ? false : nil }

    private mutating func state(
        _ name: String, _ feature: String, _ text: String, _ message: SourceMessage, into events: inout [SourceEvent]
    ) {
        guard var camera = camera(name, message, into: &events) else { return }
        switch feature {
        case "recordings":
            guard let isOn = Self.onOff(text) else {
                return events.append(.log(.notice, "ignored \(message.topic): expected ON or OFF", device: nil))
            }
            camera.isRecording = isOn
        case "motion_threshold", "motion_contour_area":
            guard let number = Int(text), (1...10_000).contains(number) else {
                return events.append(
                    .log(.notice, "ignored \(message.topic): expected a whole number 1…10000", device: nil))
            }
            if feature == "motion_threshold" { camera.threshold = number } else { camera.contourArea = number }
        default:
            return  // detect, snapshots, audio…: known, not in the model
        }
        cameras[name] = camera
        if let value = camera.connections(table: table, maxEventSeconds: settings.maxEventSeconds) {
            events.append(
                .values(
                    camera.device.id,
                    [
                        AttributeUpdate(
                            address: FrigateCamera.transport, attribute: FrigateCamera.connections, value: value)
                    ],
                    isNews: true))
        }
    }

    /// The known camera of this name, or a new one (described, its early messages let through).
    mutating func camera(_ name: String, _ message: SourceMessage, into events: inout [SourceEvent])
        -> FrigateCamera?
    {
        if let known = cameras[name] { return known }
        guard !name.isEmpty, name.utf8.count <= Self.nameLimit else {
            events.append(
                .log(.notice, "ignored Frigate camera '\(name.prefix(Self.nameLimit))…': name too long", device: nil))
            return nil
        }
        guard cameras.count < message.deviceLimit else {
            events.append(.refusedDevice("a new Frigate camera '\(name)': \(cameras.count) are known already"))
            return nil
        }
        let source = SourceReference(family: family, instance: instance, nativeID: name)
        do {
            let camera = try FrigateCamera(name: name, source: source, catalog: catalog)
            cameras[name] = camera
            names[camera.device.id] = name
            var described = SourceDevice(device: camera.device, stalenessBudget: staleness, keepsName: true)
            described.liveViewEndpoint = settings.go2rtc.map { "\($0)/api/webrtc?src=\(Self.queryValue(name))" }
            events.append(.described(described))
            events.append(.replay(["\(prefix)/\(name)/motion"]))
            return camera
        } catch {
            events.append(.log(.warning, "ignored Frigate camera '\(name)': \(error)", device: nil))
            return nil
        }
    }

    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard !writes.isEmpty else { return [] }
        guard let name = names[id], let camera = cameras[name] else {
            throw .notSupported("camera '\(id)' has not been heard from since start; Frigate's next stats name it")
        }
        var outgoing: [SourceOutgoing] = []
        for write in writes {
            guard write.address == FrigateCamera.transport, write.attribute == FrigateCamera.connections else {
                throw .notSupported("Frigate takes no \(write.address).\(write.attribute) over MQTT")
            }
            outgoing += try transportCommands(write.value, camera: camera)
        }
        return outgoing
    }
}
