public import TraitBridgeJSON
public import TraitBridgeMapping
public import TraitBridgeModel

/// zigbee2mqtt as a source: `bridge/devices` in, devices with bindings out; a device's state
/// payload in, attribute updates out; unified writes in, a `<name>/set` payload out.
///
/// It never sees the broker: every method takes a payload and returns values, so it is tested
/// from recorded payloads alone. The rules come from `mappings/sources/zigbee2mqtt.json`.
public struct Zigbee2MQTTSource: Sendable {
    public static let family = "zigbee2mqtt"
    public let table: Zigbee2MQTTTable
    public let catalog: Catalog
    /// The configured instance name (two networks on one broker are two instances).
    public let instance: String

    public init(table: Zigbee2MQTTTable, catalog: Catalog, instance: String = "default") {
        self.table = table
        self.catalog = catalog
        self.instance = instance
    }

    // MARK: Availability

    /// `online` / `offline`, plain or as `{"state": "online"}`; `nil` for an empty payload (the
    /// leftover of a rename) or anything else.
    public static func availability(_ payload: [UInt8]) -> Bool? {
        let text = String(decoding: payload, as: UTF8.self).trimmingSpaces()
        switch text.lowercased() {
        case "online": return true
        case "offline": return false
        default: break
        }
        guard text.hasPrefix("{"), let document = try? JSONDocument.parse(payload) else { return nil }
        guard let state = document.root["state"] else { return nil }
        if state.isString("online") { return true }
        if state.isString("offline") { return false }
        return nil
    }

    // MARK: State

    /// The attribute updates in a device's state payload. Keys without a binding are ignored;
    /// a value that cannot be converted is a problem of its own and the other keys still apply.
    public func updates(from payload: JSON, of device: Zigbee2MQTTDevice) -> (
        updates: [AttributeUpdate], problems: [SourceProblem]
    ) {
        var updates: [AttributeUpdate] = []
        var problems: [SourceProblem] = []
        updates.reserveCapacity(device.bindings.count)
        for (key, bindings) in device.bindings {
            guard let raw = payload[key] else { continue }
            let isEvent = !device.notifyingKeys.isEmpty && device.notifyingKeys.contains(key)
            for binding in bindings {
                guard let value = binding.fieldKey.map({ raw[$0] }) ?? raw else { continue }
                if value.isNull || isEvent && value.isString("") { continue }  // "": zigbee2mqtt clearing an action
                guard let modelValue = binding.modelValue(from: AttributeValue(json: value)) else {
                    problems.append(
                        SourceProblem(
                            location: binding.fieldKey.map { "\(key).\($0)" } ?? key,
                            message: "cannot convert \(value.value.serialized()) to "
                                + "\(binding.address.traitID).\(binding.attribute)"))
                    continue
                }
                if isEvent, let allowed = binding.metadata.validValues,
                    !allowed.contains(where: { $0.value == modelValue })
                {
                    let listed = allowed.prefix(8).map(\.value.description).joined(separator: ", ")
                    problems.append(
                        SourceProblem(
                            location: key,
                            message:
                                "\(value.value.serialized()) is not one of this device's actions in bridge/devices "
                                + "(\(listed)\(allowed.count > 8 ? ", …" : "")); ignored"))
                    continue
                }
                updates.append(
                    AttributeUpdate(address: binding.address, attribute: binding.attribute, value: modelValue))
            }
        }
        return (updates, problems)
    }

    // MARK: Commands

    /// The `<name>/set` payload for model writes; throws when a write has no writable binding.
    public func commandPayload(for writes: [AttributeUpdate], on device: Zigbee2MQTTDevice) throws(SourceCommandError)
        -> JSONValue
    {
        var payload = JSONObject()
        for write in writes {
            let bindings = device.bindings(for: write.address, attribute: write.attribute)
            guard let binding = bindings.first(where: \.isWritable) else {
                guard let readOnly = bindings.first else {
                    throw .notSupported("\(write.address).\(write.attribute) is not fed by zigbee2mqtt for this device")
                }
                throw .notSupported(
                    "zigbee2mqtt does not accept writes of \(readOnly.payloadKey) for this device "
                        + "(access bit 2 not set)")
            }
            guard let sourceValue = binding.sourceValue(from: write.value) else {
                throw .valueNotRepresentable("\(write.value) has no zigbee2mqtt form for \(binding.payloadKey)")
            }
            if let field = binding.fieldKey {
                var inner: JSONObject
                if case .object(let existing) = payload[binding.payloadKey] {
                    inner = existing
                } else {
                    inner = JSONObject()
                }
                inner[field] = sourceValue.jsonValue
                payload[binding.payloadKey] = .object(inner)
            } else {
                payload[binding.payloadKey] = sourceValue.jsonValue
            }
        }
        return .object(payload)
    }
}

extension String {
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
