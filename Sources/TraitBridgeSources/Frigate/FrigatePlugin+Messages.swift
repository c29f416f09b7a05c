import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// The topics a Frigate plug-in reads, under its prefix.
enum FrigateTopic: Hashable {
    case available, stats, events, reviews
    /// `<camera>/motion`: motion seen now (`ON` until `mqtt_off_delay` without any).
    case motion(String)
    /// `<camera>/<feature>/state`: a camera's switch or setting.
    case state(String, String)

    init?(_ topic: String, prefix: String) {
        guard topic.utf8.count > prefix.utf8.count + 1, topic.hasPrefix(prefix + "/") else { return nil }
        let parts = topic.dropFirst(prefix.count + 1).split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            switch parts[0] {
            case "available": self = .available
            case "stats": self = .stats
            case "events": self = .events
            case "reviews": self = .reviews
            default: return nil
            }
        case 2 where parts[1] == "motion" && !parts[0].isEmpty: self = .motion(String(parts[0]))
        case 3 where parts[2] == "state" && !parts[0].isEmpty: self = .state(String(parts[0]), String(parts[1]))
        default: return nil
        }
    }
}

extension FrigatePlugin {
    /// `<prefix>/stats`: every camera it names is known and news; one whose `camera_fps` is 0
    /// gets no frames from its camera: offline, with that reason, until the stats say otherwise.
    mutating func stats(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let root = try? JSONDocument.parse(message.payload, maxDepth: 16).root,
            let list = root["cameras"], list.kind == .object
        else {
            return events.append(
                .log(
                    .notice, "ignored \(message.topic): expected Frigate's stats, an object with \"cameras\"",
                    device: nil))
        }
        for (name, stats) in list.members {
            guard let camera = camera(name, message, into: &events) else { continue }
            events.append(.values(camera.device.id, [], isNews: true))
            guard let fps = stats["camera_fps"]?.double, fps.isFinite, fps >= 0 else { continue }
            events.append(
                .availability(
                    SourceReference(family: family, instance: instance, nativeID: name), isOnline: fps > 0,
                    origin: "Frigate's stats (\(message.topic)): \(name) camera_fps \(fps > 0 ? "above 0" : "0")"))
        }
    }

    /// `<prefix>/events`: a tracked object's start and end (not its updates) as a notification
    /// of the camera that saw it, unless it was a false positive or the camera does not record.
    mutating func trackedObject(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let (type, after, camera) = item(message, into: &events), type != "update",
            after["false_positive"]?.bool != true
        else { return }
        var note: JSONObject = ["kind": "object", "type": .string(type)]
        note.setIfPresent("label", after["label"]?.string.map { .string(String($0.prefix(64))) })
        note.setIfPresent("score", (after["top_score"] ?? after["score"])?.double.map { .double($0) })
        note["zones"] = Self.names(after["entered_zones"])
        note.setIfPresent("eventId", after["id"]?.string.map { .string(String($0.prefix(64))) })
        note.setIfPresent("startTime", after["start_time"]?.double.map { .double($0) })
        note.setIfPresent("endTime", after["end_time"]?.double.map { .double($0) })
        events.append(.notification(camera.device.id, trait: FrigateCamera.occupancy.traitID, .object(note)))
    }

    /// `<prefix>/reviews`: a review item (an alert or a detection) opened or closed.
    mutating func reviewItem(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard let (type, after, camera) = item(message, into: &events), type != "update" else { return }
        var note: JSONObject = ["kind": "review", "type": .string(type)]
        note.setIfPresent("severity", after["severity"]?.string.map { .string(String($0.prefix(32))) })
        note["objects"] = Self.names(after["data"]?["objects"])
        note["zones"] = Self.names(after["data"]?["zones"])
        note.setIfPresent("reviewId", after["id"]?.string.map { .string(String($0.prefix(64))) })
        events.append(.notification(camera.device.id, trait: FrigateCamera.occupancy.traitID, .object(note)))
    }

    /// An event or review message's type, its `after` object and its camera, when the camera is
    /// known and records; a message of another shape is logged, one of a camera not recording
    /// is dropped (with recording off, no events).
    private func item(_ message: SourceMessage, into events: inout [SourceEvent])
        -> (String, JSON, FrigateCamera)?
    {
        guard let root = try? JSONDocument.parse(message.payload, maxDepth: 16).root,
            let type = root["type"]?.string, ["new", "update", "end"].contains(type),
            let after = root["after"], after.kind == .object, let name = after["camera"]?.string
        else {
            events.append(
                .log(
                    .notice,
                    "ignored \(message.topic): expected {\"type\": new|update|end, "
                        + "\"after\": {\"camera\"…}}",
                    device: nil))
            return nil
        }
        guard let camera = cameras(named: name), camera.isRecording != false else { return nil }
        return (type, after, camera)
    }

    /// Up to 16 names of a JSON array of strings (zones, object labels), each at most 64 bytes.
    static func names(_ value: JSON?) -> JSONValue {
        .array((value?.elements ?? []).prefix(16).compactMap { $0.string.map { .string(String($0.prefix(64))) } })
    }

    /// The messages that make a camera's push transport what `value` says: recording on or off,
    /// the wake-up sensitivity. What Frigate cannot take over MQTT is refused, saying why.
    func transportCommands(_ value: AttributeValue, camera: FrigateCamera) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard case .list(let items) = value, items.count == 1, case .structure(let item) = items[0],
            item["connectionId"] == .int(FrigateCamera.connectionID)
        else {
            throw .valueNotRepresentable("a Frigate camera has one push transport, connectionId 1 (its recording)")
        }
        var outgoing: [SourceOutgoing] = []
        let base = "\(prefix)/\(camera.name)/"
        if let status = item["transportStatus"] {
            guard status == .int(0) || status == .int(1) else {
                throw .valueNotRepresentable("transportStatus must be 0 (Active) or 1 (Inactive)")
            }
            if camera.isRecording != (status == .int(0)) {
                outgoing.append(
                    SourceOutgoing(
                        topic: base + "recordings/set", payload: Array((status == .int(0) ? "ON" : "OFF").utf8)))
            }
        }
        guard case .structure(let options)? = item["transportOptions"],
            case .structure(let trigger)? = options["triggerOptions"]
        else { return outgoing }
        if let type = trigger["triggerType"], type != .int(1) {
            throw .notSupported(
                "Frigate records on motion (triggerType 1); continuous recording is set in its config file")
        }
        if case .structure(let time)? = trigger["motionTimeControl"], let longest = time["maxDuration"],
            longest != .int(Int64(settings.maxEventSeconds))
        {
            throw .notSupported(
                "Frigate records an event as long as its config file says (record: alerts and detections, "
                    + "post_capture), not over MQTT; set maxEventSeconds in the frigate section to what it records "
                    + "(\(settings.maxEventSeconds) s now)")
        }
        if let wanted = trigger["motionSensitivity"], wanted != .null {
            guard case .int(let sensitivity) = wanted, let level = table.level(sensitivity: Int(clamping: sensitivity))
            else {
                throw .valueNotRepresentable(
                    "wake-up sensitivity (motionSensitivity) must be 1 (low), 5 (medium) or 10 (high)")
            }
            if camera.threshold != level.threshold || camera.contourArea != level.contourArea {
                outgoing.append(
                    SourceOutgoing(topic: base + "motion_threshold/set", payload: Array("\(level.threshold)".utf8)))
                outgoing.append(
                    SourceOutgoing(topic: base + "motion_contour_area/set", payload: Array("\(level.contourArea)".utf8))
                )
            }
        }
        return outgoing
    }
}
