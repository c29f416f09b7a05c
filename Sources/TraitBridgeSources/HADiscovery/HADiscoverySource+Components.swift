import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Each supported component's options, read into channels (state in) and commands (writes out).
/// Defaults are Home Assistant's (`ON`/`OFF`, `LOCKED`, `open`, brightness scale 255…).
extension HADiscoverySource {
    func buildSwitch(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        draft.type = table.deviceType(component: "switch", features: [])
        draft.add(.matter("OnOff"))
        return onOff(config, templateKeys: ["value_template"], into: &draft)
    }

    func buildLight(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        let schema = config.string("schema") ?? "default"
        if schema == "json" { return buildJSONLight(config, into: &draft) }
        guard schema == "default" || schema == "basic" else {
            return .failure(
                SourceProblem(
                    location: "schema",
                    message:
                        "light schema '\(schema)' is not supported; TraitBridge reads the default and the json schema"))
        }
        var features: Set<String> = []
        draft.add(.matter("OnOff"))
        if case .failure(let problem) = onOff(
            config, templateKeys: ["state_value_template", "value_template"], into: &draft)
        {
            return .failure(problem)
        }
        let key = draft.key
        let scale = config.number("brightness_scale") ?? 255
        guard scale > 0 else {
            return .failure(SourceProblem(location: "brightness_scale", message: "expected a number above 0"))
        }
        if config.string("brightness_state_topic") != nil || config.string("brightness_command_topic") != nil {
            features.insert("brightness")
            draft.add(.matter("LevelControl"))
            let pipeline = ValuePipeline([.scale(254 / scale)])
            let address = TraitAddress(deviceTypeKey: key, traitID: .matter("LevelControl"))
            channel(
                config, topicKey: "brightness_state_topic", templateKey: "brightness_value_template", reading: .number,
                address: address, attribute: "currentLevel", pipeline: pipeline, into: &draft)
            command(
                config, topicKey: "brightness_command_topic", templateKey: "brightness_command_template",
                address: address, attribute: "currentLevel",
                pipeline: pipeline, integral: true, range: 0...scale, into: &draft)
        }
        if config.string("color_temp_state_topic") != nil || config.string("color_temp_command_topic") != nil {
            features.insert("color_temp")
            draft.add(.matter("ColorControl"))
            draft.modelRanges["colorTemperatureMireds"] = Self.miredsRange(config)
            let pipeline = ValuePipeline(config.bool("color_temp_kelvin") == true ? [.kelvinToMireds] : [])
            let address = TraitAddress(deviceTypeKey: key, traitID: .matter("ColorControl"))
            channel(
                config, topicKey: "color_temp_state_topic", templateKey: "color_temp_value_template", reading: .number,
                address: address, attribute: "colorTemperatureMireds", pipeline: pipeline, into: &draft)
            command(
                config, topicKey: "color_temp_command_topic", templateKey: "color_temp_command_template",
                address: address, attribute: "colorTemperatureMireds",
                pipeline: pipeline, integral: true, range: nil, into: &draft)
        }
        colorTopics(config, key: key, features: &features, into: &draft)
        draft.type = table.deviceType(component: "light", features: features)
        return .success(())
    }

    private func buildJSONLight(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<
        Void, SourceProblem
    > {
        var modes = Set(config.strings("supported_color_modes"))
        for legacy in ["brightness", "color_temp", "xy", "hs", "rgb"] where config.bool(legacy) == true {
            modes.insert(legacy)
        }
        if !modes.isDisjoint(with: ["color_temp", "xy", "hs", "rgb", "rgbw", "rgbww", "white"]) {
            modes.insert("brightness")
        }
        let scale = config.number("brightness_scale") ?? 255
        guard scale > 0 else {
            return .failure(SourceProblem(location: "brightness_scale", message: "expected a number above 0"))
        }
        let light = HAJSONLight(
            deviceTypeKey: draft.key, brightnessScale: modes.contains("brightness") ? scale : nil,
            hasColorTemperature: modes.contains("color_temp"),
            colorTemperatureInKelvin: config.bool("color_temp_kelvin") == true,
            hasXY: modes.contains("xy"), hasHueSaturation: modes.contains("hs"),
            hasRGB: !modes.isDisjoint(with: ["rgb", "rgbw", "rgbww"]))
        draft.type = table.deviceType(component: "light", features: modes)
        draft.add(.matter("OnOff"))
        if light.brightnessScale != nil { draft.add(.matter("LevelControl")) }
        if light.hasColorTemperature || light.hasXYModel || light.hasHueSaturation {
            draft.add(.matter("ColorControl"))
        }
        if light.hasColorTemperature { draft.modelRanges["colorTemperatureMireds"] = Self.miredsRange(config) }
        let onOff = TraitAddress(deviceTypeKey: draft.key, traitID: .matter("OnOff"))
        if let topic = config.string("state_topic"),
            let metadata = try? catalog.attributeMetadata(.matter("OnOff"), "onOff")
        {
            draft.channels.append(
                HAChannel(
                    topic: topic, template: .json([]), reading: .jsonLight(light), address: onOff, attribute: "onOff",
                    pipeline: ValuePipeline(), metadata: metadata))
        }
        guard let topic = config.string("command_topic") else {
            return .failure(
                SourceProblem(location: "command_topic", message: "a json-schema light needs command_topic"))
        }
        var writable: [(TraitID, String)] = [(.matter("OnOff"), "onOff")]
        if light.brightnessScale != nil { writable.append((.matter("LevelControl"), "currentLevel")) }
        if light.hasColorTemperature { writable.append((.matter("ColorControl"), "colorTemperatureMireds")) }
        if light.hasXYModel {
            writable += [(.matter("ColorControl"), "currentX"), (.matter("ColorControl"), "currentY")]
        }
        if light.hasHueSaturation {
            writable += [(.matter("ColorControl"), "currentHue"), (.matter("ColorControl"), "currentSaturation")]
        }
        for (trait, attribute) in writable {
            draft.commands.append(
                HACommand(
                    address: TraitAddress(deviceTypeKey: draft.key, traitID: trait), attribute: attribute, topic: topic,
                    encoding: .jsonLight(light), pipeline: ValuePipeline()))
        }
        return .success(())
    }

    /// A default-schema light's colour topics (`hs_*`, `xy_*`, `rgb_*`; HA's default formats
    /// `h,s`, `x,y`, `r,g,b`). The first of hs, xy, rgb that has a command topic is written.
    func colorTopics(
        _ config: HADiscoveryConfig, key: String, features: inout Set<String>, into draft: inout EntityDraft
    ) {
        let address = TraitAddress(deviceTypeKey: key, traitID: .matter("ColorControl"))
        var commanded = false
        for format in [HAColorFormat.hs, .xy, .rgb] {
            let name = format.rawValue
            let state = config.string("\(name)_state_topic")
            let command = config.string("\(name)_command_topic")
            guard state != nil || command != nil else { continue }
            features.insert(name)
            draft.add(.matter("ColorControl"))
            let attribute = format.attributes.0
            if let state, let metadata = try? catalog.attributeMetadata(address.traitID, attribute) {
                switch HAValueTemplate.parse(config.string("\(name)_value_template")) {
                case .success(let template):
                    draft.channels.append(
                        HAChannel(
                            topic: state, template: template, reading: .color(format), address: address,
                            attribute: attribute, pipeline: ValuePipeline(), metadata: metadata))
                case .failure(let problem):
                    draft.notes.append(
                        "\(name)_value_template \(problem.message); the colour is not read from \(state)")
                }
            }
            guard let command, !commanded else { continue }
            if config["\(name)_command_template"] != nil {
                draft.notes.append(
                    "\(name)_command_template is not filled by TraitBridge; colour is not set through \(command)")
                continue
            }
            commanded = true
            for attribute in [format.attributes.0, format.attributes.1] {
                draft.commands.append(
                    HACommand(
                        address: address, attribute: attribute, topic: command, encoding: .color(format),
                        pipeline: ValuePipeline()))
            }
        }
    }

    /// A light's colour-temperature range in mireds: `min_mireds`/`max_mireds`, else
    /// `min_kelvin`/`max_kelvin`, else Home Assistant's default (153…500).
    static func miredsRange(_ config: HADiscoveryConfig) -> ClosedRange<Double> {
        if let low = config.number("min_mireds"), let high = config.number("max_mireds"), low > 0, high >= low {
            return low...high
        }
        if let low = config.number("min_kelvin"), let high = config.number("max_kelvin"), low > 0, high >= low {
            return (1_000_000 / high)...(1_000_000 / low)
        }
        return 153...500
    }

    func buildSensor(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        let known = table.sensors.keys.sorted().joined(separator: ", ")
        guard let deviceClass = config.string("device_class") else {
            return .failure(
                SourceProblem(
                    location: "device_class",
                    message: "a sensor without device_class has no meaning TraitBridge can map; it maps \(known)"))
        }
        guard let measurement = table.sensors[deviceClass] else {
            return .failure(
                SourceProblem(
                    location: "device_class",
                    message: "sensor device_class '\(deviceClass)' is not mapped; TraitBridge maps \(known)"))
        }
        let units = measurement.units.keys.sorted()
        let unit = config.string("unit_of_measurement") ?? (units.count == 1 ? units[0] : "")
        guard let pipeline = measurement.units[unit] else {
            return .failure(
                SourceProblem(
                    location: "unit_of_measurement",
                    message: "unit '\(unit)' of a \(deviceClass) sensor is not one of \(units.joined(separator: ", "))")
            )
        }
        return measured(config, measurement, pipeline: pipeline, reading: .number, into: &draft)
    }

    func buildBinarySensor(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        let known = table.binarySensors.keys.sorted().joined(separator: ", ")
        guard let deviceClass = config.string("device_class"), let measurement = table.binarySensors[deviceClass] else {
            let found = config.string("device_class").map { "device_class '\($0)'" } ?? "no device_class"
            return .failure(
                SourceProblem(
                    location: "device_class",
                    message: "a binary_sensor with \(found) has no meaning TraitBridge can map; it maps \(known)"))
        }
        let words: [String: AttributeValue] = [
            config.string("payload_on") ?? "ON": .bool(true), config.string("payload_off") ?? "OFF": .bool(false),
        ]
        return measured(
            config, measurement, pipeline: measurement.units[""] ?? ValuePipeline(),
            reading: .words(words, ignored: []), into: &draft)
    }

    private func measured(
        _ config: HADiscoveryConfig, _ measurement: HomeAssistantTable.Measurement, pipeline: ValuePipeline,
        reading: HAChannel.Reading, into draft: inout EntityDraft
    ) -> Result<Void, SourceProblem> {
        guard config.string("state_topic") != nil else {
            return .failure(SourceProblem(location: "state_topic", message: "a sensor needs state_topic"))
        }
        draft.type = measurement.deviceType
        draft.add(measurement.trait)
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: measurement.trait)
        channel(
            config, topicKey: "state_topic", templateKey: "value_template", reading: reading, address: address,
            attribute: measurement.attribute, pipeline: pipeline, into: &draft)
        return .success(())
    }

    func buildCover(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        draft.type = table.deviceType(component: "cover", features: [])
        draft.add(.matter("WindowCovering"))
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: .matter("WindowCovering"))
        let attribute = "currentPositionLiftPercent100ths"
        let open = config.number("position_open") ?? 100
        let closed = config.number("position_closed") ?? 0
        guard open != closed else {
            return .failure(
                SourceProblem(location: "position_open", message: "position_open and position_closed must differ"))
        }
        // Position p between closed and open → Matter 0 (open) … 10000 (closed); inverted ranges work too.
        let position = ValuePipeline([.offset(-closed), .scale(-10000 / (open - closed)), .offset(10000)])
        let words: [String: AttributeValue] = [
            config.string("state_open") ?? "open": .int(0), config.string("state_closed") ?? "closed": .int(10000),
        ]
        let ignored: Set<String> = [
            config.string("state_opening") ?? "opening", config.string("state_closing") ?? "closing",
            config.string("state_stopped") ?? "stopped",
        ]
        if config.string("position_topic") != nil {
            channel(
                config, topicKey: "position_topic", templateKey: "position_template", reading: .number,
                address: address, attribute: attribute, pipeline: position, into: &draft)
        } else {
            channel(
                config, topicKey: "state_topic", templateKey: "value_template",
                reading: .words(words, ignored: ignored), address: address, attribute: attribute,
                pipeline: ValuePipeline(), into: &draft)
        }
        if config.string("set_position_topic") != nil {
            command(
                config, topicKey: "set_position_topic", templateKey: "set_position_template", variable: "position",
                address: address, attribute: attribute,
                pipeline: position, integral: true, range: min(open, closed)...max(open, closed), into: &draft)
        } else if let topic = config.string("command_topic") {
            draft.commands.append(
                HACommand(
                    address: address, attribute: attribute, topic: topic,
                    encoding: .words([
                        (.int(0), config.string("payload_open") ?? "OPEN"),
                        (.int(10000), config.string("payload_close") ?? "CLOSE"),
                    ]), pipeline: ValuePipeline()))
        }
        coverMotion(config, address: address, into: &draft)
        return draft.requireTopics(at: "state_topic", "a cover needs a state, position or command topic")
    }

    /// A cover's movement (Matter operationalStatus: 5 opening, 10 closing, 0 still) from
    /// `state_topic`, and its stop: `payload_stop` (default `STOP`) on `command_topic`, unless
    /// the config sets `payload_stop` to null, as Home Assistant reads it.
    func coverMotion(_ config: HADiscoveryConfig, address: TraitAddress, into draft: inout EntityDraft) {
        if config.string("state_topic") != nil {
            let still = [
                config.string("state_stopped") ?? "stopped", config.string("state_open") ?? "open",
                config.string("state_closed") ?? "closed",
            ]
            var words: [String: AttributeValue] = [
                config.string("state_opening") ?? "opening": .int(5),
                config.string("state_closing") ?? "closing": .int(10),
            ]
            for word in still { words[word] = .int(0) }
            channel(
                config, topicKey: "state_topic", templateKey: "value_template", reading: .words(words, ignored: []),
                address: address, attribute: "operationalStatus", pipeline: ValuePipeline(), into: &draft)
        }
        if case .null? = config["payload_stop"] { return }
        guard let topic = config.string("command_topic") else { return }
        draft.commands.append(
            HACommand(
                address: address, attribute: "operationalStatus", topic: topic,
                encoding: .words([(.int(0), config.string("payload_stop") ?? "STOP")]), pipeline: ValuePipeline()))
    }

    func buildLock(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        draft.type = table.deviceType(component: "lock", features: [])
        draft.add(.matter("DoorLock"))
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: .matter("DoorLock"))
        // Matter lockState: 0 not fully locked (jammed), 1 locked, 2 unlocked, 3 unlatched.
        let words: [String: AttributeValue] = [
            config.string("state_locked") ?? "LOCKED": .int(1), config.string("state_unlocked") ?? "UNLOCKED": .int(2),
            config.string("state_jammed") ?? "JAMMED": .int(0), config.string("state_open") ?? "OPEN": .int(3),
        ]
        let ignored: Set<String> = [
            config.string("state_locking") ?? "LOCKING", config.string("state_unlocking") ?? "UNLOCKING",
            config.string("state_opening") ?? "OPENING",
        ]
        channel(
            config, topicKey: "state_topic", templateKey: "value_template", reading: .words(words, ignored: ignored),
            address: address, attribute: "lockState", pipeline: ValuePipeline(), into: &draft)
        guard let topic = config.string("command_topic") else {
            return .failure(SourceProblem(location: "command_topic", message: "a lock needs command_topic"))
        }
        var payloads: [(model: AttributeValue, payload: String)] = [
            (.int(1), config.string("payload_lock") ?? "LOCK"), (.int(2), config.string("payload_unlock") ?? "UNLOCK"),
        ]
        if let open = config.string("payload_open") { payloads.append((.int(3), open)) }
        draft.commands.append(
            HACommand(
                address: address, attribute: "lockState", topic: topic, encoding: .words(payloads),
                pipeline: ValuePipeline()))
        return .success(())
    }
}
