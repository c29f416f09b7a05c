import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// Tasmota as a source: discovery configs in, devices out; LWT, STATE, RESULT, POWER<n> and
/// SENSOR payloads in (JSON or plain text on the same topics), attribute updates out; unified
/// writes in, `cmnd/<topic>/POWER<n>`, `Dimmer`, `CT`, `HSBColor1/2` messages out.
///
/// It never sees the broker: tested from recorded payloads. Rules: `mappings/sources/tasmota.json`.
public struct TasmotaSource: Sendable {
    public static let family = "tasmota"
    public let table: TasmotaTable
    public let catalog: Catalog
    public let instance: String

    public init(table: TasmotaTable, catalog: Catalog, instance: String = "default") {
        self.table = table
        self.catalog = catalog
        self.instance = instance
    }

    /// What a message on one of the device's topics is.
    public enum MessageKind: Sendable, Hashable {
        /// `tele/<t>/LWT`: the device's own online/offline words.
        case lastWill
        /// `tele/<t>/STATE`, `stat/<t>/STATE`, `stat/<t>/RESULT`: a JSON object of values.
        case state
        /// `tele/<t>/SENSOR`: sensor objects.
        case sensor
        /// `stat/<t>/POWER<n>` (`POWER` is 1): `ON`/`OFF`, or JSON `{"POWER": "ON"}`.
        case power(Int)
    }

    /// Online, offline, or `nil` for anything else.
    public func availability(_ payload: [UInt8], of device: TasmotaDevice) -> Bool? {
        let text = String(decoding: payload, as: UTF8.self)
        if text == device.onlinePayload { return true }
        if text == device.offlinePayload { return false }
        return nil
    }

    /// The attribute updates of a message. A payload that is not JSON where JSON is expected (a
    /// RESULT of a rule: `CHOD,DHW`) is a problem of its own; a value that cannot be converted too.
    public func updates(_ kind: MessageKind, payload: [UInt8], of device: TasmotaDevice) -> (updates: [AttributeUpdate], problems: [SourceProblem]) {
        var updates: [AttributeUpdate] = []
        var problems: [SourceProblem] = []
        if case .power(let number) = kind, payload.first != UInt8(ascii: "{") {
            if let key = device.powerKeys[number], let value = power(.string(String(decoding: payload, as: UTF8.self)), key: key, problems: &problems) {
                updates.append(value)
            }
            return (updates, problems)
        }
        guard let root = try? JSONDocument.parse(payload).root, root.kind == .object else {
            return ([], [SourceProblem(location: "$", message: "not a JSON object (\(payload.count) bytes): ignored")])
        }
        switch kind {
        case .lastWill: break
        case .state, .power:
            for (key, value) in root.members {
                if key == "POWER" || (key.hasPrefix("POWER") && Int(key.dropFirst(5)) != nil) {
                    let number = key == "POWER" ? 1 : Int(key.dropFirst(5)) ?? 0
                    if let deviceKey = device.powerKeys[number], let update = power(AttributeValue(json: value), key: deviceKey, problems: &problems) {
                        updates.append(update)
                    }
                } else if let light = device.light {
                    if let rule = table.light.first(where: { $0.key == key && $0.minimumSubtype <= light.subtype }) {
                        convert(AttributeValue(json: value), rule, key: light.key, location: key, into: &updates, problems: &problems)
                    } else if key == "HSBColor", light.subtype >= 3, let text = value.string {
                        let parts = text.split(separator: ",").compactMap { FiniteNumber.parse($0) }
                        guard parts.count == 3 else {
                            problems.append(SourceProblem(location: key, message: "expected \"hue,saturation,brightness\", found \(text)"))
                            continue
                        }
                        let address = TraitAddress(deviceTypeKey: light.key, traitID: .matter("ColorControl"))
                        updates.append(AttributeUpdate(address: address, attribute: "currentHue", value: .int(Int64((parts[0].truncatingRemainder(dividingBy: 360) / 360 * 254).rounded()))))  // finite, |x| < 254
                        updates.append(AttributeUpdate(address: address, attribute: "currentSaturation", value: .int(Int64((min(100, max(0, parts[1])) / 100 * 254).rounded()))))
                    }
                }
            }
        case .sensor:
            let isFahrenheit = root["TempUnit"]?.isString("F") == true
            for (name, object) in root.members where object.kind == .object {
                if name == "ENERGY", let key = device.energyKey {
                    for rule in table.energy { if let value = object[rule.key] { convert(AttributeValue(json: value), rule, key: key, location: "ENERGY.\(rule.key)", into: &updates, problems: &problems) } }
                    continue
                }
                for (rule, key) in device.sensors[name] ?? [] {
                    guard let raw = object[rule.key], !raw.isNull else { continue }
                    var value = AttributeValue(json: raw)
                    if isFahrenheit, rule.key == "Temperature", let fahrenheit = value.numericValue { value = .double((fahrenheit - 32) * 5 / 9) }
                    convert(value, rule, key: key, location: "\(name).\(rule.key)", into: &updates, problems: &problems)
                }
            }
        }
        return (updates, problems)
    }

    private func power(_ value: AttributeValue, key: String, problems: inout [SourceProblem]) -> AttributeUpdate? {
        guard let rule = table.power else { return nil }
        guard let model = rule.pipeline.forward(value, fittingTo: rule.metadata) else {
            problems.append(SourceProblem(location: "POWER", message: "\(value) is not ON, OFF, 1 or 0"))
            return nil
        }
        return AttributeUpdate(address: TraitAddress(deviceTypeKey: key, traitID: rule.trait), attribute: rule.attribute, value: model)
    }

    private func convert(_ value: AttributeValue, _ rule: TasmotaTable.Value, key: String, location: String, into updates: inout [AttributeUpdate], problems: inout [SourceProblem]) {
        guard let model = rule.pipeline.forward(value, fittingTo: rule.metadata) else {
            problems.append(SourceProblem(location: location, message: "cannot convert \(value) to \(rule.trait).\(rule.attribute)"))
            return
        }
        updates.append(AttributeUpdate(address: TraitAddress(deviceTypeKey: key, traitID: rule.trait), attribute: rule.attribute, value: model))
    }

    /// The `cmnd/…` messages for unified writes: POWER<n> ON/OFF, Dimmer 0…100, CT mireds,
    /// HSBColor1 degrees and HSBColor2 percent. Anything else is refused with the reason.
    public func commands(for writes: [AttributeUpdate], on device: TasmotaDevice) throws(SourceProblem) -> [(topic: String, payload: String)] {
        var messages: [(topic: String, payload: String)] = []
        for write in writes {
            let key = write.address.deviceTypeKey
            switch (write.address.traitID, write.attribute) {
            case (.matter("OnOff"), "onOff"):
                guard let number = device.powerIndex(of: key), case .bool(let on) = write.value else { break }
                messages.append((device.topic(.command, "POWER\(number)"), on ? "ON" : "OFF"))
                continue
            case (.matter("ColorControl"), "currentHue"):
                guard let hue = write.value.numericValue, let degrees = FiniteNumber.int64(rounding: hue / 254 * 360) else { break }
                messages.append((device.topic(.command, "HSBColor1"), String(degrees)))
                continue
            case (.matter("ColorControl"), "currentSaturation"):
                guard let saturation = write.value.numericValue, let percent = FiniteNumber.int64(rounding: saturation / 254 * 100) else { break }
                messages.append((device.topic(.command, "HSBColor2"), String(percent)))
                continue
            default:
                if let light = device.light, key == light.key,
                    let rule = table.light.first(where: { $0.trait == write.address.traitID && $0.attribute == write.attribute && $0.minimumSubtype <= light.subtype }),
                    let value = rule.pipeline.inverse(write.value, integral: true)
                {
                    messages.append((device.topic(.command, rule.key), value.description))
                    continue
                }
            }
            throw SourceProblem(location: "\(write.address).\(write.attribute)", message: "Tasmota has no command for this attribute")
        }
        return messages
    }
}
