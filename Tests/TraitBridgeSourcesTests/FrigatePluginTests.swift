import Foundation
import Testing
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeSources

/// The Frigate plug-in alone, from Frigate's documented payloads (Fixtures/frigate/SOURCES.md):
/// what a camera becomes, what its topics mean, what a command sends, and what it refuses.
@Suite("Frigate plug-in")
struct FrigatePluginTests {
    static func plugin(maxEventSeconds: Int? = nil) throws -> any SourcePlugin {
        let catalog = try SourceFixtures.catalog()
        let mappings = SourceFixtures.repository + "/mappings"
        let table = try FrigateTable.load(mappingsDirectory: mappings, catalog: catalog)
        let section = maxEventSeconds.map { #"{"maxEventSeconds":\#($0)}"# } ?? "{}"
        let instances = try FrigateFamily().instances(
            from: try JSONDocument.parse(Array(section.utf8)).root, at: JSONPath("frigate"))
        let context = SourcePluginContext(catalog: catalog, bridgePrefix: "traitbridge", defaultLocality: .localPeer)
        return try #require(FrigateFamily().plugin(for: instances[0], table: table, context: context))
    }

    static func fixture(_ name: String) throws -> String {
        let path = SourceFixtures.repository + "/Tests/TraitBridgeSourcesTests/Fixtures/frigate/" + name
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    static func stats(_ cameras: [String: Double]) -> String {
        let entries = cameras.sorted { $0.key < $1.key }.map { #""\#($0.key)":{"camera_fps":\#($0.value)}"# }
        return #"{"cameras":{\#(entries.joined(separator: ","))},"service":{"version":"0.14.1"}}"#
    }

    static func send(_ plugin: inout any SourcePlugin, _ topic: String, _ payload: String, limit: Int = .max)
        -> [SourceEvent]
    {
        var events: [SourceEvent] = []
        plugin.receive(
            SourceMessage(topic: topic, payload: Array(payload.utf8), now: Date(), deviceLimit: limit), into: &events)
        return events
    }

    static func described(_ events: [SourceEvent]) -> [Device] {
        events.compactMap { if case .described(let device) = $0 { device.device } else { nil } }
    }

    static func notifications(_ events: [SourceEvent]) -> [JSONValue] {
        events.compactMap { if case .notification(_, _, let note) = $0 { note } else { nil } }
    }

    static func connections(_ events: [SourceEvent]) -> AttributeValue? {
        events.lazy.compactMap { event -> AttributeValue? in
            guard case .values(_, let updates, _) = event else { return nil }
            return updates.first { $0.attribute == "currentConnections" }?.value
        }.first
    }

    /// A camera known, recording, at Frigate's default threshold.
    static func ready() throws -> any SourcePlugin {
        var plugin = try plugin()
        _ = send(&plugin, "frigate/stats", stats(["front_door": 5]))
        _ = send(&plugin, "frigate/front_door/recordings/state", "ON")
        _ = send(&plugin, "frigate/front_door/motion_threshold/state", "30")
        _ = send(&plugin, "frigate/front_door/motion_contour_area/state", "10")
        return plugin
    }

    @Test("stats make each camera a Camera (push transport, live view, occupancy), named as a person would")
    func camerasFromStats() throws {
        var plugin = try Self.plugin()
        let events = Self.send(&plugin, "frigate/stats", Self.stats(["front_door": 5, "garage": 0]))
        let devices = Self.described(events)
        #expect(devices.map(\.name).sorted() == ["Front door", "Garage"])
        let camera = try #require(devices.first { $0.name == "Front door" })
        #expect(camera.id.rawValue == "frigate-front_door")
        let type = try #require(camera.deviceType(key: "camera"))
        #expect(type.typeID == .google("Camera"))
        #expect(
            Set(type.traits.map(\.traitID)) == [
                .google("PushAvStreamTransport"), .google("WebRtcLiveView"), .matter("OccupancySensing"),
            ])
        let availability = events.compactMap { event -> (String, Bool?, String?)? in
            if case .availability(let reference, let isOnline, let origin) = event {
                (reference.nativeID, isOnline, origin)
            } else {
                nil
            }
        }
        #expect(availability.first { $0.0 == "front_door" }?.1 == true)
        let garage = try #require(availability.first { $0.0 == "garage" })
        #expect(garage.1 == false)
        #expect(garage.2?.contains("garage camera_fps 0") == true, "\(garage)")
        #expect(Self.described(Self.send(&plugin, "frigate/stats", Self.stats(["front_door": 5]))).isEmpty)
    }

    @Test("recording and the motion threshold read as the push transport: active, sensitivity by the table")
    func transportFromState() throws {
        var plugin = try Self.plugin(maxEventSeconds: 120)
        #expect(Self.connections(Self.send(&plugin, "frigate/front_door/motion_threshold/state", "20")) == nil)
        let events = Self.send(&plugin, "frigate/front_door/recordings/state", "OFF")
        let list = try #require(Self.connections(events))
        guard case .list(let items) = list, case .structure(let item)? = items.first,
            case .structure(let options)? = item["transportOptions"],
            case .structure(let trigger)? = options["triggerOptions"],
            case .structure(let time)? = trigger["motionTimeControl"]
        else {
            Issue.record("unexpected shape: \(list)")
            return
        }
        #expect(item["connectionId"] == .int(1))
        #expect(item["transportStatus"] == .int(1), "OFF is Inactive")
        #expect(trigger["motionSensitivity"] == .int(10), "threshold 20 is high")
        #expect(time["maxDuration"] == .int(120))
        let on = Self.connections(Self.send(&plugin, "frigate/front_door/recordings/state", "ON"))
        guard case .list(let after)? = on, case .structure(let first)? = after.first else {
            Issue.record("no list")
            return
        }
        #expect(first["transportStatus"] == .int(0))
    }

    @Test(
        "an object's start and end are notifications; updates, false positives and a camera not recording are not"
    )
    func objectNotifications() throws {
        var plugin = try Self.ready()
        let update = try Self.fixture("events-update.json")
        #expect(Self.notifications(Self.send(&plugin, "frigate/events", update)).isEmpty, "an update is no news")
        let new = update.replacingOccurrences(of: #""type": "update""#, with: #""type": "new""#)
        let note = try #require(Self.notifications(Self.send(&plugin, "frigate/events", new)).first)
        #expect(note["kind"] == "object")
        #expect(note["type"] == "new")
        #expect(note["label"] == "person")
        #expect(note["zones"] == ["yard", "driveway"])
        #expect(note["eventId"] == "1607123955.475377-mxklsc")
        let falsePositive = new.replacingOccurrences(of: #""false_positive": false"#, with: #""false_positive": true"#)
        #expect(Self.notifications(Self.send(&plugin, "frigate/events", falsePositive)).isEmpty)
        _ = Self.send(&plugin, "frigate/front_door/recordings/state", "OFF")
        #expect(Self.notifications(Self.send(&plugin, "frigate/events", new)).isEmpty, "recording off: no events")
        #expect(Self.notifications(Self.send(&plugin, "frigate/front_door/motion", "ON")).isEmpty)
    }

    @Test("a review item opened is a notification with its severity, objects and zones")
    func reviewNotifications() throws {
        var plugin = try Self.plugin()
        _ = Self.send(&plugin, "frigate/front_cam/recordings/state", "ON")
        let review = try Self.fixture("reviews-update.json").replacingOccurrences(
            of: #""type": "update""#, with: #""type": "new""#)
        let note = try #require(Self.notifications(Self.send(&plugin, "frigate/reviews", review)).first)
        #expect(note["kind"] == "review")
        #expect(note["severity"] == "alert")
        #expect(note["objects"] == ["person", "car"])
        #expect(note["zones"] == ["front_yard"])
    }

    static func transport(status: Int, sensitivity: Int? = nil, maxDuration: Int = 300) -> AttributeUpdate {
        var trigger: [String: AttributeValue] = [
            "triggerType": .int(1),
            "motionTimeControl": .structure(["maxDuration": .int(Int64(maxDuration))]),
        ]
        if let sensitivity { trigger["motionSensitivity"] = .int(Int64(sensitivity)) }
        let item: AttributeValue = .structure([
            "connectionId": .int(1), "transportStatus": .int(Int64(status)),
            "transportOptions": .structure(["streamUsage": .int(0), "triggerOptions": .structure(trigger)]),
        ])
        return AttributeUpdate(
            address: TraitAddress(deviceTypeKey: "camera", traitID: .google("PushAvStreamTransport")),
            attribute: "currentConnections", value: .list([item]))
    }

    @Test("commands: recording off, sensitivity high; what Frigate cannot take is refused saying why")
    func commands() throws {
        var plugin = try Self.ready()
        let id = try DeviceID("frigate-front_door")
        let off = try plugin.commands(for: [Self.transport(status: 1, sensitivity: 5)], on: id)
        #expect(off.map(\.topic) == ["frigate/front_door/recordings/set"])
        #expect(off.map { String(decoding: $0.payload, as: UTF8.self) } == ["OFF"])
        let high = try plugin.commands(for: [Self.transport(status: 0, sensitivity: 10)], on: id)
        #expect(
            high.map(\.topic) == [
                "frigate/front_door/motion_threshold/set", "frigate/front_door/motion_contour_area/set",
            ])
        #expect(high.map { String(decoding: $0.payload, as: UTF8.self) } == ["20", "5"])
        #expect(throws: SourceCommandError.self) {
            _ = try plugin.commands(for: [Self.transport(status: 0, sensitivity: 3)], on: id)
        }
        do {
            _ = try plugin.commands(for: [Self.transport(status: 0, maxDuration: 60)], on: id)
            Issue.record("a new event length was taken")
        } catch {
            #expect(error.description.contains("maxEventSeconds"), "\(error)")
        }
        #expect(throws: SourceCommandError.self) {
            _ = try plugin.commands(for: [Self.transport(status: 0)], on: try DeviceID("frigate-unknown"))
        }
    }

    @Test("hostile and malformed messages are refused alone, with the topic; the camera limit holds")
    func hostile() throws {
        var plugin = try Self.ready()
        let bad: [(String, String)] = [
            ("frigate/stats", "not json"), ("frigate/stats", #"{"cameras":[1,2]}"#), ("frigate/events", "\u{0}\u{1}"),
            ("frigate/reviews", #"{"type":"new","after":[]}"#), ("frigate/available", "maybe"),
            ("frigate/front_door/recordings/state", "YES"), ("frigate/front_door/motion_threshold/state", "-3"),
            ("frigate/front_door/motion_threshold/state", "1e309"),
        ]
        for (topic, payload) in bad {
            let events = Self.send(&plugin, topic, payload)
            #expect(events.contains { if case .log = $0 { true } else { false } }, "\(topic) \(payload)")
            #expect(Self.described(events).isEmpty)
        }
        let long = String(repeating: "x", count: 200)
        #expect(Self.described(Self.send(&plugin, "frigate/\(long)/recordings/state", "ON")).isEmpty)
        var limited = try Self.plugin()
        let events = Self.send(&limited, "frigate/stats", Self.stats(["a": 1, "b": 1, "c": 1]), limit: 2)
        #expect(Self.described(events).count == 2)
        #expect(events.contains { if case .refusedDevice = $0 { true } else { false } })
        #expect(!plugin.claims("frigate/front_door/person/snapshot"), "snapshots (JPEG) are not read")
        #expect(!plugin.claims("zigbee2mqtt/frigate/stats"))
    }
}
