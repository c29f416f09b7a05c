public import FoundationEssentials
public import TraitBridgeModel
import TraitBridgeMapping

/// What applying a cloud report changed.
public struct CloudApplyResult: Sendable {
    /// Some attribute value changed.
    public var valuesChanged = false
    public var connectivityChanged = false
    /// States no trait of the device holds (`isJammed`, `activeThermostatMode`…): kept by the
    /// bridge beside the device so that a QUERY export gives them back.
    public var unmapped: [String: AttributeValue] = [:]
    /// Values that could not be taken (out of range, unknown mode), as sentences.
    public var problems: [String] = []
}

extension GoogleC2C {
    /// Applies a report to the traits of `device` that this cloud device feeds (after a merge, the
    /// local traits are never touched): values through the table, connectivity with its reason.
    public func apply(_ report: CloudDeviceReport, to device: inout Device, now: Date) -> CloudApplyResult {
        var result = CloudApplyResult()
        let source = device.sources.first { $0.family == Self.family && $0.nativeID == report.c2cID } ?? source(c2cID: report.c2cID)
        let states = AttributeValue.structure(report.states)
        var used: Set<String> = []
        for address in device.traitAddresses where device.trait(at: address)?.source == source {
            var updates: [(attribute: String, value: AttributeValue)] = []
            let sensors = sensorRules(for: address, in: device)
            if !sensors.isEmpty {
                guard case .list(let data)? = report.states["currentSensorStateData"] else { continue }
                used.insert("currentSensorStateData")
                for rule in sensors {
                    for case .structure(let entry) in data where entry["name"] == .string(rule.name) {
                        guard let raw = rule.descriptive == nil ? entry["rawValue"] : entry["currentSensorState"] else { continue }
                        guard let value = (rule.descriptive ?? ValuePipeline()).forward(raw, fittingTo: rule.metadata) else {
                            result.problems.append("\(rule.name) \(raw) has no \(address.traitID).\(rule.attribute) equivalent")
                            continue
                        }
                        updates.append((rule.attribute, value))
                    }
                }
            } else if let rule = table.rule(forTrait: address.traitID) {
                for state in rule.states {
                    guard let raw = CloudValues.value(at: state.c2cPath, in: states) else { continue }
                    used.insert(state.c2cPath[0])
                    guard let value = state.pipeline.forward(raw, fittingTo: state.metadata) else {
                        result.problems.append("\(state.c2cPath.joined(separator: ".")) \(raw) has no \(address.traitID).\(state.attribute) equivalent")
                        continue
                    }
                    updates.append((state.attribute, value))
                }
                updates += specialStates(rule.c2cName, states: report.states, device: device, address: address, used: &used,
                                         problems: &result.problems)
            } else if let trait = catalog.trait(address.traitID), c2cName(ofGoogleTrait: address.traitID) != nil {
                for attribute in trait.attributes where attribute.metadata.isWritable {
                    guard let value = report.states[attribute.name] else { continue }
                    used.insert(attribute.name)
                    updates.append((attribute.name, value))
                }
            }
            for update in updates {
                do {
                    if try device.report(update.value, attribute: update.attribute, at: address, catalog: catalog, time: now) { result.valuesChanged = true }
                } catch {
                    result.problems.append("\(error)")
                }
            }
        }
        result.unmapped = report.states.filter { !used.contains($0.key) }
        if let (state, reason) = connectivity(of: report) {
            result.connectivityChanged = device.setConnectivity(state, locality: .remote, reason: reason, forTraitsOf: source, time: now)
        }
        return result
    }

    /// The states the table cannot express: spectrum colours, and the single thermostat setpoint
    /// that is the heating or the cooling setpoint depending on the mode. A value no model value
    /// can hold is a problem that says which state, never a silent drop.
    private func specialStates(
        _ c2cName: String, states: [String: AttributeValue], device: Device, address: TraitAddress, used: inout Set<String>,
        problems: inout [String]
    ) -> [(attribute: String, value: AttributeValue)] {
        switch c2cName {
        case "ColorSetting":
            guard case .structure(let color)? = states["color"] else { return [] }
            used.insert("color")
            if let rgb = (color["spectrumRgb"] ?? color["spectrumRGB"])?.numericValue {
                guard let converted = ColorConversion.fromRGB(number: rgb) else {
                    problems.append("color.spectrumRgb \(rgb) is not a colour")
                    return []
                }
                return [("currentHue", .int(converted.hue)), ("currentSaturation", .int(converted.saturation)), ("colorMode", .int(0))]
            }
            if case .structure(let hsv)? = color["spectrumHsv"] ?? color["spectrumHSV"], let hue = hsv["hue"]?.numericValue, let saturation = hsv["saturation"]?.numericValue {
                guard let converted = ColorConversion.fromHSV(hue: hue, saturation: saturation) else {
                    problems.append("color.spectrumHsv \(hue),\(saturation) is not a colour")
                    return []
                }
                return [("currentHue", .int(converted.hue)), ("currentSaturation", .int(converted.saturation)), ("colorMode", .int(0))]
            }
            return color["temperatureK"] != nil ? [("colorMode", .int(2))] : []
        case "TemperatureSetting":
            guard let setpoint = states["thermostatTemperatureSetpoint"]?.numericValue else { return [] }
            used.insert("thermostatTemperatureSetpoint")
            let mode = states["thermostatMode"] ?? device.trait(at: address)?.attributes["systemMode"].map { $0 == .int(3) ? .string("cool") : .string("heat") }
            let attribute = mode == .string("cool") ? "occupiedCoolingSetpoint" : "occupiedHeatingSetpoint"
            guard let centidegrees = FiniteNumber.int64(rounding: setpoint * 100) else {
                problems.append("thermostatTemperatureSetpoint \(setpoint) is not a temperature")
                return []
            }
            return [(attribute, .int(centidegrees))]
        default:
            return []
        }
    }
}
