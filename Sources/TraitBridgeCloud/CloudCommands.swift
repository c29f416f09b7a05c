public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

extension GoogleC2C {
    /// The actions one execution means on `device`: writes through the table for Matter traits
    /// (params checked against Google's own bounds first), or the command itself on a google trait.
    public func actions(
        for execution: ExecuteRequest.Execution, on device: Device,
        metadata: [TraitAddress: [String: AttributeMetadata]] = [:]
    ) -> Result<[CloudAction], ExecuteFailure> {
        for rule in table.allRules {
            guard
                let command = rule.commands.first(where: { $0.command == execution.command })
                    ?? specialCommand(rule.c2cName, execution.command),
                let address = (try? device.resolve(rule.trait))
                    ?? device.traitAddresses.first(where: { $0.traitID == rule.trait })
            else { continue }
            if let failure = checkParams(execution, trait: rule.c2cName) { return .failure(failure) }
            var actions: [CloudAction] = []
            let params = AttributeValue.structure(execution.params)
            for param in command.params {
                guard let raw = CloudValues.value(at: param.c2cPath, in: params) else { continue }
                guard let value = param.pipeline.forward(raw, fittingTo: param.metadata) else {
                    return .failure(
                        ExecuteFailure(
                            "valueOutOfRange",
                            "\(param.c2cPath.joined(separator: ".")) \(raw) has no \(rule.trait).\(param.attribute) equivalent"
                        ))
                }
                actions.append(.write(address, attribute: param.attribute, value: value))
            }
            switch specialActions(rule.c2cName, execution: execution, device: device, address: address) {
            case .success(let special): actions += special
            case .failure(let failure): return .failure(failure)
            }
            guard !actions.isEmpty else {
                return .failure(
                    ExecuteFailure(
                        "notSupported",
                        "\(execution.command) with params \(params) sets nothing TraitBridge can express on \(rule.trait)"
                    ))
            }
            return .success(actions)
        }
        for address in device.traitAddresses {
            guard let short = c2cName(ofGoogleTrait: address.traitID),
                catalog.trait(address.traitID)?.command(named: execution.command) != nil
            else { continue }
            if let failure = checkParams(execution, trait: short) { return .failure(failure) }
            return .success([.invoke(address, command: execution.command, arguments: execution.params)])
        }
        if let derived = derivedActions(execution, on: device, metadata: metadata) { return derived }
        return .failure(
            ExecuteFailure(
                "functionNotSupported",
                "\(device.name) has no trait that accepts action.devices.commands.\(execution.command)"))
    }

    /// Params within Google's own bounds (brightness 0…100…): out of bounds is `valueOutOfRange`.
    private func checkParams(_ execution: ExecuteRequest.Execution, trait short: String) -> ExecuteFailure? {
        guard let definition = googleTrait(short).flatMap({ catalog.trait($0)?.command(named: execution.command) })
        else { return nil }
        for (name, value) in execution.params {
            guard let field = definition.field(named: name) else { continue }
            do { try field.metadata.validate(value) } catch {
                return ExecuteFailure(
                    error.code == "valueOutOfRange" ? "valueOutOfRange" : "protocolError",
                    "\(execution.command).\(name): \(error)")
            }
        }
        return nil
    }

    /// Commands the table lists without params it can express as plain rows.
    private func specialCommand(_ c2cName: String, _ command: String) -> GoogleC2CTable.CommandRule? {
        c2cName == "TemperatureSetting" && command == "ThermostatTemperatureSetpoint"
            ? .init(command: command, params: []) : nil
    }

    /// A colour or setpoint no model value can hold (spectrumRGB 1e300, a setpoint of inf) is
    /// `valueOutOfRange`, saying which param.
    private func specialActions(
        _ c2cName: String, execution: ExecuteRequest.Execution, device: Device, address: TraitAddress
    ) -> Result<[CloudAction], ExecuteFailure> {
        switch (c2cName, execution.command) {
        case ("ColorSetting", "ColorAbsolute"):
            guard case .structure(let color)? = execution.params["color"] else { return .success([]) }
            var converted: ColorConversion.HueSaturation?
            var given: String?
            if let rgb = (color["spectrumRGB"] ?? color["spectrumRgb"])?.numericValue {
                converted = ColorConversion.fromRGB(number: rgb)
                given = "color.spectrumRGB \(rgb)"
            } else if case .structure(let hsv)? = color["spectrumHSV"] ?? color["spectrumHsv"],
                let hue = hsv["hue"]?.numericValue,
                let saturation = hsv["saturation"]?.numericValue
            {
                converted = ColorConversion.fromHSV(hue: hue, saturation: saturation)
                given = "color.spectrumHSV \(hue),\(saturation)"
            }
            guard let converted else {
                return given.map { .failure(ExecuteFailure("valueOutOfRange", "\($0) is not a colour")) }
                    ?? .success([])
            }
            return .success([
                .write(address, attribute: "currentHue", value: .int(converted.hue)),
                .write(address, attribute: "currentSaturation", value: .int(converted.saturation)),
            ])
        case ("TemperatureSetting", "ThermostatTemperatureSetpoint"):
            guard let setpoint = execution.params["thermostatTemperatureSetpoint"]?.numericValue else {
                return .success([])
            }
            guard let centidegrees = FiniteNumber.int64(rounding: setpoint * 100) else {
                return .failure(
                    ExecuteFailure("valueOutOfRange", "thermostatTemperatureSetpoint \(setpoint) is not a temperature"))
            }
            let cooling = device.trait(at: address)?.attributes["systemMode"] == .int(3)
            return .success([
                .write(
                    address, attribute: cooling ? "occupiedCoolingSetpoint" : "occupiedHeatingSetpoint",
                    value: .int(centidegrees))
            ])
        default:
            return .success([])
        }
    }

    /// The EXECUTE command a fulfillment needs for writes on a cloud device's Matter trait (the
    /// table's command rows inverted); `nil` when no command sets exactly these attributes.
    public func c2cCommand(
        writing values: [String: AttributeValue], on trait: TraitID, current: [String: AttributeValue]
    ) -> (command: String, params: [String: AttributeValue])? {
        guard let rule = table.rule(forTrait: trait) else { return nil }
        for command in rule.commands where Set(values.keys).isSubset(of: command.params.map(\.attribute)) {
            var params: [String: AttributeValue] = [:]
            for param in command.params {
                guard let value = values[param.attribute],
                    let source = param.pipeline.inverse(
                        value,
                        integral: param.c2cPath.last != "thermostatTemperatureSetpointLow"
                            && param.c2cPath.last != "thermostatTemperatureSetpointHigh")
                else { continue }
                CloudValues.set(source, at: param.c2cPath, in: &params)
            }
            if !params.isEmpty { return (command.command, params) }
        }
        if trait == .matter("ColorControl"), let hue = values["currentHue"]?.numericValue,
            let saturation = values["currentSaturation"]?.numericValue,
            let color = ColorConversion.matter(hue: hue, saturation: saturation)
        {
            let rgb = ColorConversion.toRGB(color)
            return ("ColorAbsolute", ["color": .structure(["spectrumRGB": .int(rgb)])])
        }
        if trait == .matter("Thermostat"), values.count == 1, let (attribute, value) = values.first,
            attribute == "occupiedHeatingSetpoint" || attribute == "occupiedCoolingSetpoint",
            let number = value.numericValue
        {
            return ("ThermostatTemperatureSetpoint", ["thermostatTemperatureSetpoint": .double(number / 100)])
        }
        return nil
    }

    /// Google's commands whose params may carry a `followUpToken` (their schemas say so): a
    /// partner may answer PENDING and report the outcome later in a Report State notification.
    public static let followUpCommands: Set<String> = ["OpenClose", "LockUnlock", "ArmDisarm", "TestNetworkSpeed"]

    /// The EXECUTE request for one command on a cloud device, for an external relay or a cloud link
    /// to deliver; `challenge` is the user's answer to the partner's challenge, `followUpToken`
    /// names the command in a follow-up (only for ``followUpCommands``).
    public func relayRequest(
        origin: CloudDeviceOrigin, command: String, params: [String: AttributeValue], requestID: String,
        challenge: JSONValue? = nil, followUpToken: String? = nil
    ) -> JSONValue {
        var device = JSONObject()
        device.append("id", .string(origin.c2cID))
        if let custom = origin.customData { device.append("customData", custom) }
        var execution = JSONObject()
        execution.append("command", .string(Self.commandPrefix + command))
        var parameters = Self.object(params)
        if let followUpToken, Self.followUpCommands.contains(command) {
            parameters.append("followUpToken", .string(followUpToken))
        }
        execution.append("params", .object(parameters))
        if let challenge { execution.append("challenge", challenge) }
        let payload: JSONValue = ["commands": [["devices": [.object(device)], "execution": [.object(execution)]]]]
        return ["requestId": .string(requestID), "inputs": [["intent": "action.devices.EXECUTE", "payload": payload]]]
    }
}
