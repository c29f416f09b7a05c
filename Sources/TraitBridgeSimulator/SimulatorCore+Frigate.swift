import TraitBridgeJSON

/// A Frigate camera as Frigate's MQTT contract has it: stats, switch states and their `…/set`,
/// motion and tracked objects.
extension SimulatorCore {
    /// Frigate's stats naming this camera (the shape of its `/api/stats`).
    func frigateStats(_ device: Scenario.Device, framesPerSecond: Double) -> Message {
        let camera: JSONValue = [
            "camera_fps": .double(framesPerSecond), "process_fps": .double(framesPerSecond), "skipped_fps": 0.0,
            "detection_fps": 0.0, "pid": 52, "capture_pid": 36, "ffmpeg_pid": 37,
        ]
        let stats: JSONValue = [
            "cameras": .object([device.id: camera]), "detection_fps": 0.0,
            "service": ["uptime": 120, "version": "0.14.1-simulated"],
        ]
        return Message("\(device.topic)/stats", json: stats)
    }

    /// `<topic>/<camera>/<feature>/set`: `ON`/`OFF` for a switch, a whole number for the motion
    /// settings; answered with `<feature>/state` as Frigate does (anything else is ignored, as
    /// Frigate ignores it).
    mutating func frigateCommand(_ index: Int, _ feature: String, _ payload: [UInt8]) -> [Message] {
        let text = String(decoding: payload.prefix(32), as: UTF8.self)
        let value: JSONValue
        switch feature {
        case "motion_threshold", "motion_contour_area":
            guard let number = Int64(text), (1...255).contains(number) else { return [] }
            value = .int(number)
        case "recordings", "detect", "snapshots", "motion", "audio", "improve_contrast":
            guard text == "ON" || text == "OFF" else { return [] }
            value = .string(text)
        default: return []
        }
        devices[index].data[feature] = value
        let device = devices[index]
        return [Message("\(device.topic)/\(device.id)/\(feature)/state", text: value.plainText, retain: true)]
    }

    /// The camera sees a person at the door: motion, the tracked object's start and end (Frigate's
    /// `events`), a review item, no motion. Frigate publishes the events whether or not the
    /// camera records (the bridge is the one that stays quiet while recording is off).
    mutating func frigateSighting(_ index: Int) -> [Message] {
        rpcCounter += 1
        let device = devices[index]
        let start = 1_767_225_600.0 + Double(rpcCounter)
        let id = "\(start)-sim\(rpcCounter)"
        func object(_ end: Double?) -> JSONValue {
            [
                "id": .string(id), "camera": .string(device.id), "label": "person", "top_score": 0.91, "score": 0.88,
                "false_positive": false, "start_time": .double(start), "end_time": end.map { .double($0) } ?? .null,
                "current_zones": ["porch"], "entered_zones": ["porch"], "has_clip": true, "has_snapshot": true,
            ]
        }
        let review: JSONValue = [
            "id": .string("review-\(id)"), "camera": .string(device.id), "start_time": .double(start),
            "end_time": .null, "severity": "alert",
            "data": ["detections": [.string(id)], "objects": ["person"], "zones": ["porch"], "audio": []],
        ]
        let motion = "\(device.topic)/\(device.id)/motion"
        return [
            Message(motion, text: "ON"),
            Message("\(device.topic)/events", json: ["type": "new", "before": object(nil), "after": object(nil)]),
            Message("\(device.topic)/reviews", json: ["type": "new", "before": review, "after": review]),
            Message(
                "\(device.topic)/events", json: ["type": "end", "before": object(nil), "after": object(start + 4)]),
            Message(motion, text: "OFF"),
        ]
    }
}

/// A Reolink camera's settings as cam2mqtt has them (its README's MQTT protocol).
extension SimulatorCore {
    /// `…/command/reolink/<setting>`: `auto`/`on`/`off` for night vision, `on`/`off` for the IR
    /// lights, 0–100 for the volume; answered on `…/state/reolink/<setting>` (anything else ignored).
    mutating func cam2mqttCommand(_ index: Int, _ setting: String, _ payload: [UInt8]) -> [Message] {
        let text = String(decoding: payload.prefix(32), as: UTF8.self)
        let value: JSONValue
        switch setting {
        case "nightvision":
            guard ["auto", "on", "off"].contains(text) else { return [] }
            value = .string(text)
        case "irlights":
            guard text == "on" || text == "off" else { return [] }
            value = .string(text)
        case "audio/volume":
            guard let number = Int64(text), (0...100).contains(number) else { return [] }
            value = .int(number)
        default: return []
        }
        devices[index].data[setting] = value
        let device = devices[index]
        return [
            Message(
                "\(device.topic)/camera/\(device.id)/state/reolink/\(setting)", text: value.plainText, retain: true)
        ]
    }
}
