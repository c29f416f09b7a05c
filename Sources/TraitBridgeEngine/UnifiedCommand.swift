import TraitBridgeJSON
public import TraitBridgeModel
import TraitBridgeMapping

/// A command in the unified form of the MQTT contract (`<prefix>/devices/<id>/set`):
///
/// ```json
/// {"id": "c1", "deviceType": "light", "trait": "matter.OnOff", "command": "on"}
/// {"trait": "matter.LevelControl", "command": "moveToLevel", "arguments": {"level": 128}}
/// {"trait": "matter.LevelControl", "attribute": "currentLevel", "value": 128}
/// {"writes": [{"trait": "matter.OnOff", "attribute": "onOff", "value": true},
///             {"trait": "matter.LevelControl", "attribute": "currentLevel", "value": 200}]}
/// ```
/// `deviceType` is needed only when two device types hold the trait. Several writes in one
/// command become one message to the device.
public struct UnifiedCommand: Sendable {
    public enum Action: Sendable {
        case invoke(trait: TraitID, deviceTypeKey: String?, command: String, arguments: [String: AttributeValue])
        case write(trait: TraitID, deviceTypeKey: String?, attribute: String, value: AttributeValue)
    }

    /// The caller's correlation id, echoed in the result.
    public var correlationID: String?
    public var actions: [Action]

    public init(correlationID: String?, actions: [Action]) {
        self.correlationID = correlationID
        self.actions = actions
    }

    /// Parses a command; the error is a sentence for the result's `message`.
    public static func parse(_ payload: [UInt8]) -> Result<UnifiedCommand, CommandFailure> {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(payload)
        } catch {
            return .failure(CommandFailure(.protocolError, "the command is not JSON: \(error)"))
        }
        let root = document.root
        guard root.kind == .object else { return .failure(CommandFailure(.protocolError, "the command must be a JSON object")) }
        let correlationID = root["id"]?.string
        var actions: [Action] = []
        let entries = root["writes"].map(\.elements) ?? [root]
        for (index, entry) in entries.enumerated() {
            let place = root["writes"] == nil ? "" : "writes[\(index)]: "
            guard let traitText = entry["trait"]?.string else {
                return .failure(CommandFailure(.protocolError, "\(place)missing \"trait\" (e.g. \"matter.OnOff\")", correlationID))
            }
            guard let trait = TraitID(parsing: traitText) else {
                return .failure(CommandFailure(.protocolError, "\(place)malformed trait '\(traitText)'; write matter.Name, google.Name or vendor.<org>.Name", correlationID))
            }
            let key = entry["deviceType"]?.string
            if let command = entry["command"]?.string {
                var arguments: [String: AttributeValue] = [:]
                for (name, value) in entry["arguments"]?.members ?? [] { arguments[name] = AttributeValue(json: value) }
                actions.append(.invoke(trait: trait, deviceTypeKey: key, command: command, arguments: arguments))
            } else if let attribute = entry["attribute"]?.string, let value = entry["value"] {
                actions.append(.write(trait: trait, deviceTypeKey: key, attribute: attribute, value: AttributeValue(json: value)))
            } else {
                return .failure(CommandFailure(.protocolError, "\(place)give \"command\" (with optional \"arguments\") or \"attribute\" and \"value\"", correlationID))
            }
        }
        guard !actions.isEmpty else { return .failure(CommandFailure(.protocolError, "\"writes\" is empty", correlationID)) }
        return .success(UnifiedCommand(correlationID: correlationID, actions: actions))
    }
}

/// Why a command was refused; `code` is one word of the contract.
public struct CommandFailure: Error, Sendable, Hashable {
    public enum Code: String, Sendable {
        case notSupported, valueOutOfRange, deviceOffline, deviceNotFound, protocolError, invalidValue
    }

    public var code: Code
    public var message: String
    public var correlationID: String?

    public init(_ code: Code, _ message: String, _ correlationID: String? = nil) {
        self.code = code
        self.message = message
        self.correlationID = correlationID
    }
}

/// A command sent to a device, waiting for the echo of the values it asked for.
struct PendingCommand: Sendable {
    var deviceID: DeviceID
    var correlationID: String?
    var expected: [AttributeUpdateKey: AttributeValue]
    var deadline: ContinuousClock.Instant
    var sink: CommandSink

    struct AttributeUpdateKey: Sendable, Hashable {
        var address: TraitAddress
        var attribute: String
    }
}
