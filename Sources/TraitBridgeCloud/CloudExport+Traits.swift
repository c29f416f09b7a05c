import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

extension GoogleC2C {
    /// The C2C traits a device's own traits express, each with its SYNC attributes, in trait order:
    /// Matter traits through the table (inverted, plus its `exportSync` constants), google traits
    /// with their own SYNC attributes.
    func derivedTraits(
        _ device: Device, skippingCloudTraits: Bool, metadata: [TraitAddress: [String: AttributeMetadata]],
        commandable: [TraitAddress: Set<String>] = [:]
    ) -> [(name: String, attributes: JSONObject)] {
        var result: [(name: String, attributes: JSONObject)] = []
        var sensors: [AttributeValue] = []
        for address in device.traitAddresses {
            guard let trait = device.trait(at: address) else { continue }
            if skippingCloudTraits && trait.source?.family == Self.family { continue }
            for rule in sensorRules(for: address, in: device)
            where !sensors.contains(where: { CloudValues.value(at: ["name"], in: $0) == .string(rule.name) }) {
                sensors.append(
                    rule.descriptive == nil
                        ? .structure([
                            "name": .string(rule.name),
                            "numericCapabilities": .structure(["rawValueUnit": .string(rule.rawValueUnit ?? "")]),
                        ])
                        : .structure([
                            "name": .string(rule.name),
                            "descriptiveCapabilities": .structure([
                                "availableStates": .list(rule.availableStates.map { .string($0) })
                            ]),
                        ]))
            }
            if !sensorRules(for: address, in: device).isEmpty { continue }
            var name: String?
            var attributes: [String: AttributeValue] = [:]
            let values = trait.attributes
            let narrowed = metadata[address] ?? [:]
            if let rule = table.rule(forTrait: address.traitID) {
                name = rule.c2cName
                for sync in rule.sync {
                    guard let value = values[sync.attribute], let source = sync.pipeline.inverse(value, integral: true)
                    else { continue }
                    CloudValues.set(source, at: sync.c2cPath, in: &attributes)
                }
                switch rule.c2cName {
                case "ColorSetting":
                    let capabilities = values["colorCapabilities"]?.numericValue.flatMap {
                        FiniteNumber.int64(clamping: $0)
                    }
                    // What the device reported, or what its source says it accepts (a Home
                    // Assistant light announces its colour modes before any state).
                    let accepts = { (attribute: String) in commandable[address]?.contains(attribute) == true }
                    if values["currentHue"] != nil || values["currentX"] != nil || accepts("currentX")
                        || accepts("currentHue")
                        || (capabilities.map { $0 & 0b1001 != 0 } ?? false)
                    {
                        attributes["colorModel"] = .string("rgb")
                    }
                    if attributes["colorTemperatureRange"] == nil, let mireds = narrowed["colorTemperatureMireds"],
                        let low = mireds.minimum, let high = mireds.maximum, low > 0, high > 0,
                        values["colorTemperatureMireds"] != nil || accepts("colorTemperatureMireds"),
                        let minimumK = FiniteNumber.int64(rounding: 1_000_000 / high),
                        let maximumK = FiniteNumber.int64(rounding: 1_000_000 / low)
                    {
                        attributes["colorTemperatureRange"] = .structure([
                            "temperatureMinK": .int(minimumK), "temperatureMaxK": .int(maximumK),
                        ])
                    }
                    if attributes.isEmpty { name = nil }  // Google needs colorModel or colorTemperatureRange
                case "TemperatureSetting":
                    let modes = rule.states.first { $0.attribute == "systemMode" }
                    // The device's own modes when its source says them (a Home Assistant climate's `modes`).
                    let own = narrowed["systemMode"]?.validValues?.map(\.value)
                    var allowed: [AttributeValue] = []
                    for value in own ?? catalogValidValues(address.traitID, "systemMode") {
                        if let mode = modes?.pipeline.inverse(value, integral: false), !allowed.contains(mode) {
                            allowed.append(mode)
                        }
                    }
                    attributes["availableThermostatModes"] = .list(
                        allowed.isEmpty ? [.string("off"), .string("heat")] : allowed)
                    attributes["thermostatTemperatureUnit"] = .string("C")
                case "FanSpeed":
                    attributes["supportsFanSpeedPercent"] = .bool(true)
                case "Modes":
                    // One mode per rule state (`currentModeSettings.<mode>`), its settings the values
                    // the device's source allows; Google needs at least one setting.
                    let modes: [AttributeValue] = rule.states.compactMap { state in
                        guard state.c2cPath.count == 2, state.c2cPath[0] == "currentModeSettings",
                            let settings = narrowed[state.attribute]?.validValues?.compactMap({
                                if case .string(let word) = $0.value { word } else { nil }
                            }),
                            !settings.isEmpty
                        else { return nil }
                        return Self.mode(state.c2cPath[1], settings: settings)
                    }
                    attributes["availableModes"] = .list(modes)
                    if modes.isEmpty { name = nil }
                case "OccupancySensing":
                    attributes["occupancySensorConfiguration"] = .list([
                        .structure(["occupancySensorType": .string("PIR")])
                    ])
                default:
                    break
                }
                for (key, value) in rule.exportSync where attributes[key] == nil { attributes[key] = value }
            } else if let short = c2cName(ofGoogleTrait: address.traitID) {
                name = short
                for attribute in syncAttributeNames(address.traitID).sorted() {
                    attributes[attribute] = values[attribute]
                }
            }
            guard let name, !result.contains(where: { $0.name == name }) else { continue }
            result.append((name, Self.object(attributes)))
            for extra in derivedExtraTraits(
                name, device: device, address: address, narrowed: narrowed, commandable: commandable[address] ?? [])
            where !result.contains(where: { $0.name == extra.name }) {
                result.append(extra)
            }
        }
        if !sensors.isEmpty, !result.contains(where: { $0.name == "SensorState" }) {
            result.append(("SensorState", Self.object(["sensorStatesSupported": .list(sensors)])))
        }
        return result
    }

    /// A Modes trait's mode: its name and settings, each its own English synonym.
    static func mode(_ name: String, settings: [String]) -> AttributeValue {
        func synonyms(_ key: String, _ word: String) -> AttributeValue {
            .list([.structure([key: .list([.string(word)]), "lang": .string("en")])])
        }
        return .structure([
            "name": .string(name), "name_values": synonyms("name_synonym", name),
            "settings": .list(
                settings.map {
                    .structure(["setting_name": .string($0), "setting_values": synonyms("setting_synonym", $0)])
                }),
            "ordered": .bool(false),
        ])
    }

    /// The QUERY states of every trait of the device, then the kept cloud states no trait holds.
    func states(of input: CloudExportInput) -> JSONObject {
        var states: [String: AttributeValue] = [:]
        let device = input.device
        var sensorData: [AttributeValue] = []
        for address in device.traitAddresses {
            guard let trait = device.trait(at: address) else { continue }
            let values = trait.attributes
            let sensors = sensorRules(for: address, in: device)
            if !sensors.isEmpty {
                for rule in sensors {
                    guard let value = values[rule.attribute], value != .null else { continue }
                    if let descriptive = rule.descriptive {
                        guard let state = descriptive.inverse(value, integral: false) else { continue }
                        sensorData.append(.structure(["name": .string(rule.name), "currentSensorState": state]))
                    } else {
                        sensorData.append(.structure(["name": .string(rule.name), "rawValue": value]))
                    }
                }
            } else if let rule = table.rule(forTrait: address.traitID) {
                for state in rule.states {
                    guard let value = values[state.attribute], value != .null else { continue }
                    guard
                        let source = state.pipeline.inverse(
                            value, integral: isIntegerState(rule.c2cName, state.c2cPath))
                    else { continue }
                    CloudValues.set(source, at: state.c2cPath, in: &states)
                }
                specialExportStates(rule.c2cName, values: values, origin: input.origin, into: &states)
                if trait.source?.family != Self.family {
                    let extras = derivedExtraTraits(
                        rule.c2cName, device: device, address: address, narrowed: input.metadata[address] ?? [:],
                        commandable: input.commandable[address] ?? [])
                    for extra in extras { derivedExtraStates(extra.name, values: values, into: &states) }
                }
            } else if c2cName(ofGoogleTrait: address.traitID) != nil {
                for attribute in stateAttributeNames(address.traitID) {
                    if let value = values[attribute] { states[attribute] = value }
                }
            }
        }
        if !sensorData.isEmpty, states["currentSensorStateData"] == nil {
            states["currentSensorStateData"] = .list(sensorData)
        }
        for (key, value) in input.extraStates where states[key] == nil { states[key] = value }
        return Self.object(states)
    }

    private func specialExportStates(
        _ c2cName: String, values: [String: AttributeValue], origin: CloudDeviceOrigin?,
        into states: inout [String: AttributeValue]
    ) {
        switch c2cName {
        case "ColorSetting":
            guard let color = Self.spectrumColor(values) else { return }
            if case .string("hsv")? = origin.flatMap({ AttributeValue(json: $0.attributes["colorModel"]) }) {
                let (h, s) = ColorConversion.toHSV(color)
                let level = values["currentLevel"]?.numericValue ?? 254
                states["color"] = .structure([
                    "spectrumHsv": .structure([
                        "hue": .double(h), "saturation": .double(s),
                        "value": .double((level / 254 * 1000).rounded() / 1000),
                    ])
                ])
            } else {
                states["color"] = .structure(["spectrumRgb": .int(ColorConversion.toRGB(color))])
            }
        case "TemperatureSetting":
            let mode = states["thermostatMode"]
            if mode != .string("heatcool") {
                let setpoint =
                    mode == .string("cool")
                    ? states["thermostatTemperatureSetpointHigh"] : states["thermostatTemperatureSetpointLow"]
                states["thermostatTemperatureSetpointLow"] = nil
                states["thermostatTemperatureSetpointHigh"] = nil
                if let setpoint { states["thermostatTemperatureSetpoint"] = setpoint }
            }
        default:
            return
        }
    }

    /// The colour a ColorControl shows in hue/saturation: its hue and saturation in mode 0, its
    /// xy in mode 1; with no mode reported, whichever is known (hue first); `nil` for colour
    /// temperature.
    static func spectrumColor(_ values: [String: AttributeValue]) -> ColorConversion.HueSaturation? {
        let mode = values["colorMode"]
        if mode == .int(0) || mode == nil, let hue = values["currentHue"]?.numericValue,
            let saturation = values["currentSaturation"]?.numericValue
        {
            return ColorConversion.matter(hue: hue, saturation: saturation)
        }
        guard mode == .int(1) || (mode == nil && values["currentHue"] == nil),
            let x = values["currentX"]?.numericValue, let y = values["currentY"]?.numericValue,
            let color = ColorSpace.hueSaturation(x: x / 65536, y: y / 65536)
        else { return nil }
        return ColorConversion.fromHSV(hue: color.hue, saturation: color.saturation)
    }

    private func isIntegerState(_ c2cName: String, _ path: [String]) -> Bool {
        guard let trait = googleTrait(c2cName), let metadata = catalog.trait(trait)?.attribute(named: path[0])?.metadata
        else { return true }
        return metadata.format != .float
    }

    private func catalogValidValues(_ trait: TraitID, _ attribute: String) -> [AttributeValue] {
        ((try? catalog.attributeMetadata(trait, attribute))?.validValues ?? []).map(\.value)
    }

    /// A JSON object with keys sorted, for deterministic output.
    static func object(_ values: [String: AttributeValue]) -> JSONObject {
        var object = JSONObject()
        for key in values.keys.sorted() { object.append(key, values[key]!.jsonValue) }
        return object
    }
}

extension AttributeValue {
    init?(json value: JSONValue?) {
        guard let value else { return nil }
        self.init(jsonValue: value)
    }
}
