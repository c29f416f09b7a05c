import FoundationEssentials
public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// One Matter Server command: `device_command` (a cluster command with its payload) or
/// `write_attribute`, on one endpoint; the plug-in adds the node.
public struct MatterCommand: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// `cluster_id`, `command_name` (the SDK's class name: `MoveToLevelWithOnOff`) and its fields.
        case invoke(cluster: UInt32, name: String, payload: [String: JSONValue])
        /// `attribute_path` `e/c/a` and the value.
        case write(cluster: UInt32, attribute: UInt32, value: JSONValue)
    }
    public var endpoint: UInt16
    public var kind: Kind

    /// The WebSocket command for `node`; its answer carries `messageID` back.
    public func json(node: UInt64, messageID: String) -> JSONValue {
        let node = JSONValue.int(Int64(clamping: node))
        switch kind {
        case .invoke(let cluster, let name, let payload):
            var fields = JSONObject()
            for (key, value) in payload.sorted(by: { $0.key < $1.key }) { fields[key] = value }
            return [
                "message_id": .string(messageID), "command": "device_command",
                "args": .object([
                    "node_id": node, "endpoint_id": .int(Int64(endpoint)), "cluster_id": .int(Int64(cluster)),
                    "command_name": .string(name), "payload": .object(fields),
                ]),
            ]
        case .write(let cluster, let attribute, let value):
            return [
                "message_id": .string(messageID), "command": "write_attribute",
                "args": .object([
                    "node_id": node, "attribute_path": .string("\(endpoint)/\(cluster)/\(attribute)"), "value": value,
                ]),
            ]
        }
    }
}

/// How unified writes become Matter cluster commands: data, one rule per (trait, attribute).
/// A write no rule names goes out as `write_attribute` when the catalog says the attribute is
/// writable (thermostat setpoints and modes, fan mode and speed…); anything else is refused.
public enum MatterCommands {
    /// What a rule sends for a written value.
    enum Action: Sendable {
        /// A boolean picks one of two commands with no fields (OnOff).
        case choose(whenTrue: String, whenFalse: String)
        /// An enumeration value picks a command (DoorLock lockState 1 → LockDoor).
        case byValue([Int64: String])
        /// The value goes into `field` of `command`, beside fixed fields.
        case field(command: String, field: String, fixed: [String: JSONValue])
        /// Two attributes written together go into one command (currentX, currentY → MoveToColor).
        case pair(command: String, fields: [String: String], fixed: [String: JSONValue])
    }

    static let now: [String: JSONValue] = ["transitionTime": 0, "optionsMask": 0, "optionsOverride": 0]

    /// (trait name, attribute) → action. Command and field names are the Matter SDK's.
    static let rules: [String: [String: Action]] = [
        "OnOff": ["onOff": .choose(whenTrue: "On", whenFalse: "Off")],
        "LevelControl": ["currentLevel": .field(command: "MoveToLevelWithOnOff", field: "level", fixed: now)],
        "ColorControl": [
            "colorTemperatureMireds": .field(
                command: "MoveToColorTemperature", field: "colorTemperatureMireds", fixed: now),
            "currentHue": .field(
                command: "MoveToHue", field: "hue", fixed: now.merging(["direction": 0]) { a, _ in a }),
            "currentSaturation": .field(command: "MoveToSaturation", field: "saturation", fixed: now),
            "currentX": .pair(
                command: "MoveToColor", fields: ["currentX": "colorX", "currentY": "colorY"], fixed: now),
            "currentY": .pair(
                command: "MoveToColor", fields: ["currentX": "colorX", "currentY": "colorY"], fixed: now),
        ],
        "DoorLock": ["lockState": .byValue([1: "LockDoor", 2: "UnlockDoor"])],
        "WindowCovering": [
            "targetPositionLiftPercent100ths": .field(
                command: "GoToLiftPercentage", field: "liftPercent100thsValue", fixed: [:]),
            "currentPositionLiftPercent100ths": .field(
                command: "GoToLiftPercentage", field: "liftPercent100thsValue", fixed: [:]),
            "targetPositionTiltPercent100ths": .field(
                command: "GoToTiltPercentage", field: "tiltPercent100thsValue", fixed: [:]),
        ],
    ]

    /// The commands for `writes` on a device whose device type keys sit on these endpoints.
    public static func plan(_ writes: [AttributeUpdate], catalog: Catalog, endpoints: [String: UInt16])
        throws(SourceCommandError) -> [MatterCommand]
    {
        var commands: [MatterCommand] = []
        var paired: Set<String> = []
        for write in writes {
            let trait = write.address.traitID
            let place = "\(write.address).\(write.attribute)"
            guard trait.namespace == .matter, let definition = catalog.trait(trait), let cluster = definition.clusterID,
                let endpoint = endpoints[write.address.deviceTypeKey]
            else {
                throw .notSupported("\(place): not a Matter cluster on this device; Matter cannot do it")
            }
            switch rules[trait.name]?[write.attribute] {
            case .choose(let whenTrue, let whenFalse):
                guard case .bool(let flag) = write.value else {
                    throw .valueNotRepresentable("\(place): expected true or false")
                }
                commands.append(
                    .init(
                        endpoint: endpoint,
                        kind: .invoke(cluster: cluster, name: flag ? whenTrue : whenFalse, payload: [:])))
            case .byValue(let names):
                guard
                    let number = write.value.numericValue.flatMap({ value in
                        FiniteNumber.int64(rounding: value).flatMap { Double($0) == value ? $0 : nil }
                    }), let name = names[number]
                else {
                    let known = names.keys.sorted().map(String.init).joined(separator: ", ")
                    throw .valueNotRepresentable("\(place): Matter has a command for \(known) only")
                }
                commands.append(.init(endpoint: endpoint, kind: .invoke(cluster: cluster, name: name, payload: [:])))
            case .field(let command, let field, let fixed):
                var payload = fixed
                payload[field] = try integral(write.value, place)
                commands.append(
                    .init(endpoint: endpoint, kind: .invoke(cluster: cluster, name: command, payload: payload)))
            case .pair(let command, let fields, let fixed):
                let key = "\(write.address.deviceTypeKey)/\(command)"
                guard !paired.contains(key) else { continue }
                var payload = fixed
                for (attribute, field) in fields {
                    guard
                        let partner = writes.first(where: { $0.address == write.address && $0.attribute == attribute })
                    else {
                        throw .notSupported(
                            "\(place): Matter's \(command) needs "
                                + "\(fields.keys.sorted().joined(separator: " and ")) together"
                        )
                    }
                    payload[field] = try integral(partner.value, place)
                }
                paired.insert(key)
                commands.append(
                    .init(endpoint: endpoint, kind: .invoke(cluster: cluster, name: command, payload: payload)))
            case nil:
                guard let attribute = definition.attribute(named: write.attribute), attribute.metadata.isWritable,
                    let id = attribute.id
                else {
                    throw .notSupported("\(place): no Matter command sets it and the attribute is not writable")
                }
                commands.append(
                    .init(
                        endpoint: endpoint, kind: .write(cluster: cluster, attribute: id, value: write.value.jsonValue))
                )
            }
        }
        return commands
    }

    private static func integral(_ value: AttributeValue, _ place: String) throws(SourceCommandError) -> JSONValue {
        guard let number = value.numericValue, let integer = FiniteNumber.int64(rounding: number) else {
            throw .valueNotRepresentable("\(place): expected a number, found \(value)")
        }
        return .int(integer)
    }
}
