import FoundationEssentials
public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

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
/// command become one message to the device. `"challenge": {"ack": true}` or `{"pin": "1234"}`
/// answers a partner cloud that asked for the user's yes or PIN (it travels in the link's EXECUTE).
public struct UnifiedCommand: Sendable {
    public enum Action: Sendable {
        case invoke(trait: TraitID, deviceTypeKey: String?, command: String, arguments: [String: AttributeValue])
        case write(trait: TraitID, deviceTypeKey: String?, attribute: String, value: AttributeValue)
    }

    /// Writes one command may carry (a bound on what a caller makes the bridge do at once).
    public static let maxWrites = 64

    /// The caller's correlation id, echoed in the result.
    public var correlationID: String?
    public var actions: [Action]
    /// The user's answer to a partner's challenge: Google's `challenge` object, `{ack}` or `{pin}`.
    public var challenge: JSONValue?

    public init(correlationID: String?, actions: [Action], challenge: JSONValue? = nil) {
        self.correlationID = correlationID
        self.actions = actions
        self.challenge = challenge
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
        guard root.kind == .object else {
            return .failure(CommandFailure(.protocolError, "the command must be a JSON object"))
        }
        let correlationID = root["id"]?.string
        var actions: [Action] = []
        let entries = root["writes"].map(\.elements) ?? [root]
        guard entries.count <= Self.maxWrites else {
            return .failure(
                CommandFailure(.protocolError, "at most \(Self.maxWrites) writes in one command", correlationID))
        }
        for (index, entry) in entries.enumerated() {
            let place = root["writes"] == nil ? "" : "writes[\(index)]: "
            guard let traitText = entry["trait"]?.string else {
                return .failure(
                    CommandFailure(.protocolError, "\(place)missing \"trait\" (e.g. \"matter.OnOff\")", correlationID))
            }
            guard let trait = TraitID(parsing: traitText) else {
                return .failure(
                    CommandFailure(
                        .protocolError,
                        "\(place)malformed trait '\(traitText)'; write matter.Name, google.Name or vendor.<org>.Name",
                        correlationID))
            }
            let key = entry["deviceType"]?.string
            if let command = entry["command"]?.string {
                var arguments: [String: AttributeValue] = [:]
                for (name, value) in entry["arguments"]?.members ?? [] { arguments[name] = AttributeValue(json: value) }
                actions.append(.invoke(trait: trait, deviceTypeKey: key, command: command, arguments: arguments))
            } else if let attribute = entry["attribute"]?.string, let value = entry["value"] {
                actions.append(
                    .write(trait: trait, deviceTypeKey: key, attribute: attribute, value: AttributeValue(json: value)))
            } else {
                return .failure(
                    CommandFailure(
                        .protocolError,
                        "\(place)give \"command\" (with optional \"arguments\") or \"attribute\" and \"value\"",
                        correlationID))
            }
        }
        guard !actions.isEmpty else {
            return .failure(CommandFailure(.protocolError, "\"writes\" is empty", correlationID))
        }
        var challenge: JSONValue?
        if let given = root["challenge"] {
            if given["ack"]?.bool == true, given.members.count == 1 {
                challenge = ["ack": true]
            } else if let pin = given["pin"]?.string, given.members.count == 1,
                (1...32).contains(pin.unicodeScalars.count)
            {
                challenge = ["pin": .string(pin)]
            } else {
                let message = "\"challenge\" must be {\"ack\": true} or {\"pin\": \"<1 to 32 characters>\"}"
                return .failure(CommandFailure(.protocolError, message, correlationID))
            }
        }
        return .success(UnifiedCommand(correlationID: correlationID, actions: actions, challenge: challenge))
    }
}

/// Why a command was refused; `code` is one word of the contract.
public struct CommandFailure: Error, Sendable, Hashable {
    public enum Code: String, Sendable {
        case notSupported, valueOutOfRange, deviceOffline, deviceNotFound, protocolError, invalidValue
        /// The device is there but not in a state to do it (a camera's live view while it does not record).
        case failedPrecondition
        /// A bound was reached (live view sessions): end one first.
        case resourceExhausted
        /// A partner cloud wants the user's yes (`ackNeeded`) or PIN first: send again with `challenge`.
        case challengeNeeded
        /// A partner cloud refused the command with an errorCode of Google's (in `errorCode`).
        case partnerError
    }

    public var code: Code
    public var message: String
    public var correlationID: String?
    /// The partner's errorCode (Google's words), when a partner cloud refused.
    public var errorCode: String?
    /// With `challengeNeeded`: `ackNeeded`, `pinNeeded` or `challengeFailedPinNeeded`.
    public var challenge: String?

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
    var deadline: Date
    var sink: CommandSink
    /// EXECUTE requests sent over cloud links and not yet answered SUCCESS, by request id (also
    /// the follow-up token): the link each went to and the values it covers.
    var openLinkRequests: [String: (link: String, covers: Set<AttributeUpdateKey>)] = [:]
    /// Values a partner's SUCCESS vouched for (its states may not carry them).
    var vouched: Set<AttributeUpdateKey> = []
    /// A partner answered PENDING: the result waits for its follow-up (or the follow-up timeout).
    var awaitsFollowUp = false
    /// When it was sent (for the command latency `/metrics` reports); `nil` where not known.
    var sent: Date?
    /// A camera's offer sent and not answered yet: its request id (the command ends with the answer).
    var openOffer: String?
    /// What the command answers beyond its values (a live view's `answerSdp`, `mediaSessionId`…).
    var response: JSONObject?

    struct AttributeUpdateKey: Sendable, Hashable {
        var address: TraitAddress
        var attribute: String
    }
}
