import TraitBridgeMapping
import TraitBridgeModel

/// Fans and climate entities, and the helpers every component uses to add a channel or a command
/// (a template TraitBridge cannot read leaves that channel out, with a note that says so).
extension HADiscoverySource {
    func buildFan(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        draft.type = table.deviceType(component: "fan", features: [])
        if config.string("state_topic") != nil || config.string("command_topic") != nil {
            draft.add(.matter("OnOff"))
            if case .failure(let problem) = onOff(config, templateKeys: ["state_value_template"], into: &draft) {
                return .failure(problem)
            }
        }
        draft.add(.matter("FanControl"))
        let low = config.number("speed_range_min") ?? 1
        let high = config.number("speed_range_max") ?? 100
        guard low >= 1, high >= low else {
            return .failure(
                SourceProblem(location: "speed_range_min", message: "expected 1 ≤ speed_range_min ≤ speed_range_max"))
        }
        // A speed s of low…high is (s − low + 1) / (high − low + 1) of 100 %, as HA counts it.
        let percent = ValuePipeline([.offset(-(low - 1)), .scale(100 / (high - low + 1))])
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: .matter("FanControl"))
        channel(
            config, topicKey: "percentage_state_topic", templateKey: "percentage_value_template", reading: .number,
            address: address, attribute: "percentSetting", pipeline: percent, into: &draft)
        command(
            config, topicKey: "percentage_command_topic", templateKey: "percentage_command_template", address: address,
            attribute: "percentSetting",
            pipeline: percent, integral: true, range: 0...high, into: &draft)
        presetModes(config, into: &draft)
        return draft.requireTopics(at: "state_topic", "a fan needs a state, percentage or command topic")
    }

    /// A fan's named presets (`preset_modes`, read and set through the preset-mode topics) as
    /// the vendor trait `vendor.homeassistant.PresetMode`, narrowed to the config's list.
    func presetModes(_ config: HADiscoveryConfig, into draft: inout EntityDraft) {
        let presets = config.strings("preset_modes").filter { !$0.isEmpty && $0.utf8.count <= 64 }
        guard !presets.isEmpty,
            config.string("preset_mode_state_topic") != nil || config.string("preset_mode_command_topic") != nil
        else { return }
        let trait = TraitID(namespace: .vendor("homeassistant"), name: "PresetMode")
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: trait)
        draft.add(trait)
        draft.modelValidValues["presetMode"] = presets.map { .string($0) }
        channel(
            config, topicKey: "preset_mode_state_topic", templateKey: "preset_mode_value_template", reading: .text,
            address: address, attribute: "presetMode", pipeline: ValuePipeline(), into: &draft)
        guard let topic = config.string("preset_mode_command_topic") else { return }
        switch HACommandTemplate.parse(config.string("preset_mode_command_template")) {
        case .success(let template):
            draft.commands.append(
                HACommand(
                    address: address, attribute: "presetMode", topic: topic,
                    encoding: .word(template, allowed: presets),
                    pipeline: ValuePipeline()))
        case .failure(let problem):
            draft.notes.append("preset_mode_command_template \(problem.message); the preset cannot be set")
        }
    }

    func buildClimate(_ config: HADiscoveryConfig, into draft: inout EntityDraft) -> Result<Void, SourceProblem> {
        draft.type = table.deviceType(component: "climate", features: [])
        draft.add(.matter("Thermostat"))
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: .matter("Thermostat"))
        let unit = config.string("temperature_unit") ?? "C"
        guard unit == "C" || unit == "F" else {
            return .failure(SourceProblem(location: "temperature_unit", message: "expected C or F, found \(unit)"))
        }
        let temperature = ValuePipeline(unit == "F" ? [.fahrenheitToCelsius, .scale(100)] : [.scale(100)])
        channel(
            config, topicKey: "current_temperature_topic", templateKey: "current_temperature_template",
            reading: .number, address: address, attribute: "localTemperature", pipeline: temperature, into: &draft)
        channel(
            config, topicKey: "temperature_state_topic", templateKey: "temperature_state_template", reading: .number,
            address: address, attribute: "occupiedHeatingSetpoint", pipeline: temperature, into: &draft)
        let range: ClosedRange<Double>? =
            if let low = config.number("min_temp"), let high = config.number("max_temp"), low <= high {
                low...high
            } else { nil }
        command(
            config, topicKey: "temperature_command_topic", templateKey: "temperature_command_template",
            address: address, attribute: "occupiedHeatingSetpoint",
            pipeline: temperature, integral: false, range: range, into: &draft)
        channel(
            config, topicKey: "mode_state_topic", templateKey: "mode_state_template", reading: .text, address: address,
            attribute: "systemMode", pipeline: table.climateModes, into: &draft)
        let modes =
            config["modes"] == nil ? ["auto", "off", "cool", "heat", "dry", "fan_only"] : config.strings("modes")
        if let metadata = try? catalog.attributeMetadata(.matter("Thermostat"), "systemMode") {
            var allowed: [AttributeValue] = []
            for mode in modes {
                if let value = table.climateModes.forward(.string(mode), fittingTo: metadata), !allowed.contains(value)
                {
                    allowed.append(value)
                }
            }
            draft.modelValidValues["systemMode"] = allowed
        }
        if let topic = config.string("mode_command_topic") {
            switch HACommandTemplate.parse(config.string("mode_command_template")) {
            case .success(let template):
                draft.commands.append(
                    HACommand(
                        address: address, attribute: "systemMode", topic: topic,
                        encoding: .word(template, allowed: modes), pipeline: table.climateModes))
            case .failure(let problem):
                draft.notes.append("mode_command_template \(problem.message); systemMode cannot be set")
            }
        }
        return draft.requireTopics(
            at: "current_temperature_topic", "a climate entity needs a temperature or mode topic")
    }

    /// On/off over `state_topic` (words `state_on`/`state_off`, by default the payloads) and
    /// `command_topic` (`payload_on`/`payload_off`, by default `ON`/`OFF`).
    func onOff(_ config: HADiscoveryConfig, templateKeys: [String], into draft: inout EntityDraft) -> Result<
        Void, SourceProblem
    > {
        guard config.string("state_topic") != nil || config.string("command_topic") != nil else {
            return .failure(SourceProblem(location: "state_topic", message: "needs state_topic or command_topic"))
        }
        let on = config.string("payload_on") ?? "ON"
        let off = config.string("payload_off") ?? "OFF"
        let words: [String: AttributeValue] = [
            config.string("state_on") ?? on: .bool(true), config.string("state_off") ?? off: .bool(false),
        ]
        let address = TraitAddress(deviceTypeKey: draft.key, traitID: .matter("OnOff"))
        let templateKey = templateKeys.first { config[$0] != nil } ?? templateKeys[0]
        channel(
            config, topicKey: "state_topic", templateKey: templateKey, reading: .words(words, ignored: []),
            address: address, attribute: "onOff", pipeline: ValuePipeline(), into: &draft)
        if let topic = config.string("command_topic") {
            draft.commands.append(
                HACommand(
                    address: address, attribute: "onOff", topic: topic,
                    encoding: .words([(.bool(true), on), (.bool(false), off)]), pipeline: ValuePipeline()))
        }
        return .success(())
    }

    /// Adds the channel of `topicKey` when the config has that topic and a template TraitBridge reads.
    func channel(
        _ config: HADiscoveryConfig, topicKey: String, templateKey: String, reading: HAChannel.Reading,
        address: TraitAddress, attribute: String, pipeline: ValuePipeline, into draft: inout EntityDraft
    ) {
        guard let topic = config.string(topicKey),
            let metadata = try? catalog.attributeMetadata(address.traitID, attribute)
        else { return }
        switch HAValueTemplate.parse(config.string(templateKey)) {
        case .success(let template):
            draft.channels.append(
                HAChannel(
                    topic: topic, template: template, reading: reading, address: address, attribute: attribute,
                    pipeline: pipeline, metadata: metadata))
        case .failure(let problem):
            draft.notes.append(
                "\(templateKey) \(problem.message); \(address.traitID).\(attribute) is not read from \(topic)")
        }
    }

    /// Adds the command of `topicKey` when the config has that topic and a template TraitBridge fills.
    func command(
        _ config: HADiscoveryConfig, topicKey: String, templateKey: String, variable: String = "value",
        address: TraitAddress, attribute: String,
        pipeline: ValuePipeline, integral: Bool, range: ClosedRange<Double>?, into draft: inout EntityDraft
    ) {
        guard let topic = config.string(topicKey) else { return }
        switch HACommandTemplate.parse(config.string(templateKey), variable: variable) {
        case .success(let template):
            draft.commands.append(
                HACommand(
                    address: address, attribute: attribute, topic: topic,
                    encoding: .number(template, integral: integral, range: range), pipeline: pipeline))
        case .failure(let problem):
            draft.notes.append("\(templateKey) \(problem.message); \(address.traitID).\(attribute) cannot be set")
        }
    }
}
