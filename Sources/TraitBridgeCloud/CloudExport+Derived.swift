import TraitBridgeJSON
import TraitBridgeModel

/// Google traits a device has through another trait of its own, as Home Assistant's
/// `google_assistant` gives them: OnOff for a thermostat that can be off (on = any mode but off;
/// turning on picks heat-cool, else heat, else cool), StartStop for a cover that can stop (running
/// while it opens or closes; stop only — a cover starts by OpenClose).
extension GoogleC2C {
    /// Matter Thermostat systemMode values: off, and the modes "on" turns to, in order.
    static let thermostatOff: Int64 = 0
    static let thermostatOnModes: [Int64] = [1, 4, 3]

    /// The extra (name, SYNC attributes) that follow `name` for the trait at `address`.
    func derivedExtraTraits(
        _ name: String, device: Device, address: TraitAddress, narrowed: [String: AttributeMetadata],
        commandable: Set<String>
    ) -> [(name: String, attributes: JSONObject)] {
        switch name {
        case "TemperatureSetting":
            guard !hasOwnOnOff(device) else { return [] }
            let modes = thermostatModes(address, narrowed: narrowed)
            guard modes.contains(Self.thermostatOff), modes.contains(where: { $0 != Self.thermostatOff }) else {
                return []
            }
            return [("OnOff", JSONObject())]
        case "OpenClose":
            guard address.traitID == .matter("WindowCovering"), commandable.contains("operationalStatus") else {
                return []
            }
            return [("StartStop", Self.object(["pausable": .bool(false)]))]
        default:
            return []
        }
    }

    /// The QUERY states of an extra trait, from the values of the trait it comes from.
    func derivedExtraStates(
        _ name: String, values: [String: AttributeValue], into states: inout [String: AttributeValue]
    ) {
        switch name {
        case "OnOff":
            guard let mode = values["systemMode"]?.numericValue else { return }
            states["on"] = .bool(mode != Double(Self.thermostatOff))
        case "StartStop":
            guard let status = values["operationalStatus"]?.numericValue else { return }
            // Bits 0–1: the covering's global movement, 1 opening, 2 closing, 0 stopped.
            let global = (FiniteNumber.int64(rounding: status) ?? 0) & 0b11
            states["isRunning"] = .bool(global != 0)
            states["isPaused"] = .bool(false)
        default:
            return
        }
    }

    /// OnOff on a thermostat, StartStop on a cover: the writes they mean; `nil` when the device
    /// has neither.
    func derivedActions(
        _ execution: ExecuteRequest.Execution, on device: Device, metadata: [TraitAddress: [String: AttributeMetadata]]
    ) -> Result<[CloudAction], ExecuteFailure>? {
        switch execution.command {
        case "OnOff":
            guard let address = device.traitAddresses.first(where: { $0.traitID == .matter("Thermostat") }) else {
                return nil
            }
            guard case .bool(let on)? = execution.params["on"] else {
                return .failure(ExecuteFailure("protocolError", "OnOff needs params.on, true or false"))
            }
            if !on { return .success([.write(address, attribute: "systemMode", value: .int(Self.thermostatOff))]) }
            let modes = thermostatModes(address, narrowed: metadata[address] ?? [:])
            guard let mode = Self.thermostatOnModes.first(where: modes.contains) else {
                return .failure(
                    ExecuteFailure("notSupported", "\(device.name) has no heating or cooling mode to turn on"))
            }
            return .success([.write(address, attribute: "systemMode", value: .int(mode))])
        case "StartStop":
            guard let address = device.traitAddresses.first(where: { $0.traitID == .matter("WindowCovering") }) else {
                return nil
            }
            guard execution.params["start"] == .bool(false) else {
                return .failure(
                    ExecuteFailure("notSupported", "a cover is started by OpenClose; StartStop can only stop it"))
            }
            return .success([.write(address, attribute: "operationalStatus", value: .int(0))])
        default:
            return nil
        }
    }

    private func hasOwnOnOff(_ device: Device) -> Bool {
        device.traitAddresses.contains { $0.traitID == .matter("OnOff") }
    }

    /// The thermostat's own systemMode values (its source's), else the catalog's.
    private func thermostatModes(_ address: TraitAddress, narrowed: [String: AttributeMetadata]) -> [Int64] {
        let values =
            narrowed["systemMode"]?.validValues?.map(\.value)
            ?? ((try? catalog.attributeMetadata(address.traitID, "systemMode"))?.validValues ?? []).map(\.value)
        return values.compactMap { $0.numericValue.flatMap { FiniteNumber.int64(rounding: $0) } }
    }
}
