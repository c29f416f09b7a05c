public import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// An EXECUTE request, read: groups of device ids, each with the executions to run on every one.
public struct ExecuteRequest: Sendable {
    public struct Execution: Sendable {
        /// The short command name, `OnOff`, `ColorAbsolute`.
        public var command: String
        public var params: [String: AttributeValue]
        public var path: JSONPath
        /// The user's answer to a challenge (`challenge: {ack, pin}`), when Google sends one.
        public var challenge: ChallengeAnswer?

        public init(
            command: String, params: [String: AttributeValue], path: JSONPath = .root, challenge: ChallengeAnswer? = nil
        ) {
            self.command = command
            self.params = params
            self.path = path
            self.challenge = challenge
        }
    }

    public struct Group: Sendable {
        public var deviceIDs: [String]
        public var executions: [Execution]
    }

    public var requestID: String?
    public var groups: [Group] = []
    public var problems: [CloudProblem] = []
}

/// What TraitBridge does for one execution on one device: model writes or a command on a trait.
public enum CloudAction: Sendable, Hashable {
    case write(TraitAddress, attribute: String, value: AttributeValue)
    case invoke(TraitAddress, command: String, arguments: [String: AttributeValue])
}

/// Why an execution cannot run on a device, with Google's errorCode.
public struct ExecuteFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// `functionNotSupported`, `valueOutOfRange`, `deviceNotFound`, `deviceOffline`, `notSupported`, `protocolError`.
    public var errorCode: String
    public var message: String

    public init(_ errorCode: String, _ message: String) {
        self.errorCode = errorCode
        self.message = message
    }

    public var description: String { "\(errorCode): \(message)" }
}

extension GoogleC2C {
    /// Reads `{requestId, inputs: [{intent: "action.devices.EXECUTE", payload: {commands: [...]}}]}`
    /// (or the payload alone).
    public func parseExecuteRequest(_ bytes: [UInt8], source: String) throws(CloudError) -> ExecuteRequest {
        let root = try Self.parse(bytes, source: source)
        var request = ExecuteRequest(requestID: root["requestId"]?.string)
        var payload = root
        var payloadPath = JSONPath.root
        if let inputs = root["inputs"], inputs.kind == .array {
            guard
                let index = inputs.elements.firstIndex(where: {
                    $0["intent"]?.isString("action.devices.EXECUTE") == true
                })
            else {
                throw .wrongShape(
                    source: source, path: "inputs", expected: "an input with \"intent\": \"action.devices.EXECUTE\"")
            }
            payloadPath = JSONPath("inputs").appending(index).appending("payload")
            guard let inner = inputs[index]?["payload"] else {
                throw .wrongShape(source: source, path: payloadPath, expected: "the EXECUTE payload {commands: [...]}")
            }
            payload = inner
        }
        guard let commands = payload["commands"], commands.kind == .array else {
            throw .wrongShape(
                source: source, path: payloadPath.appending("commands"),
                expected: "an array of {devices: [{id}], execution: [{command, params}]}")
        }
        for (index, command) in commands.elements.enumerated() {
            let path = payloadPath.appending("commands").appending(index)
            let ids = (command["devices"]?.elements ?? []).compactMap { $0["id"]?.string }
            if ids.isEmpty {
                request.problems.append(
                    CloudProblem(path.appending("devices"), "expected [{\"id\": …}], at least one device"))
            }
            var executions: [ExecuteRequest.Execution] = []
            for (executionIndex, execution) in (command["execution"]?.elements ?? []).enumerated() {
                let executionPath = path.appending("execution").appending(executionIndex)
                guard let name = execution["command"]?.string, name.hasPrefix(Self.commandPrefix) else {
                    request.problems.append(
                        CloudProblem(executionPath.appending("command"), "expected \"action.devices.commands.<Name>\""))
                    continue
                }
                var answer: ChallengeAnswer?
                if let challenge = execution["challenge"], challenge.kind == .object {
                    answer = ChallengeAnswer(ack: challenge["ack"]?.bool == true, pin: challenge["pin"]?.string)
                }
                executions.append(
                    .init(
                        command: Self.shortName(name), params: execution["params"].map(Self.states(of:)) ?? [:],
                        path: executionPath,
                        challenge: answer))
            }
            if executions.isEmpty {
                request.problems.append(CloudProblem(path.appending("execution"), "no command to execute"))
            }
            request.groups.append(.init(deviceIDs: ids, executions: executions))
        }
        return request
    }
}

extension GoogleC2C {
    /// The device ids of a QUERY request (`inputs[].payload.devices[].id`), or of its payload.
    public func parseQueryRequest(_ bytes: [UInt8], source: String) throws(CloudError) -> (
        requestID: String?, ids: [String]
    ) {
        let root = try Self.parse(bytes, source: source)
        let payload =
            root["inputs"]?.elements.first { $0["intent"]?.isString("action.devices.QUERY") == true }?["payload"]
            ?? root
        guard let devices = payload["devices"], devices.kind == .array else {
            throw .wrongShape(
                source: source, path: "inputs[0].payload.devices",
                expected: "a QUERY request {inputs: [{intent: \"action.devices.QUERY\", payload: {devices: [{id}]}}]}")
        }
        return (root["requestId"]?.string, devices.elements.compactMap { $0["id"]?.string })
    }
}
