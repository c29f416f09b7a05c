public import TraitBridgeJSON
import TraitBridgeModel

/// How one device fared in an EXECUTE: Google's status, the confirmed states, or an errorCode.
public struct ExecuteOutcome: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Confirmed: the device reported the new state.
        case success = "SUCCESS"
        /// Sent; not confirmed yet (or on its way through a cloud relay).
        case pending = "PENDING"
        case offline = "OFFLINE"
        case error = "ERROR"
    }

    public var c2cID: String
    public var status: Status
    /// QUERY-shaped states after the command (with `online`), for SUCCESS.
    public var states: JSONObject?
    public var errorCode: String?
    /// For logs only; Google never shows it to users.
    public var debugString: String?
    /// With `errorCode: challengeNeeded`: `ackNeeded`, `pinNeeded` or `challengeFailedPinNeeded`.
    public var challengeNeeded: String?

    public init(
        c2cID: String, status: Status, states: JSONObject? = nil, errorCode: String? = nil, debugString: String? = nil,
        challengeNeeded: String? = nil
    ) {
        self.c2cID = c2cID
        self.status = status
        self.states = states
        self.errorCode = errorCode
        self.debugString = debugString
        self.challengeNeeded = challengeNeeded
    }
}

extension GoogleC2C {
    /// An EXECUTE response: outcomes grouped by status, errorCode and states (Google allows any
    /// grouping), groups in the order their first device appeared.
    public func executeResponse(requestID: String, outcomes: [ExecuteOutcome]) -> JSONValue {
        var groups: [(key: ExecuteOutcome, ids: [String])] = []
        for outcome in outcomes {
            var key = outcome
            key.c2cID = ""
            key.debugString = nil
            if let index = groups.firstIndex(where: { $0.key == key }) {
                groups[index].ids.append(outcome.c2cID)
            } else {
                groups.append((key, [outcome.c2cID]))
            }
        }
        let commands: [JSONValue] = groups.map { group in
            var object = JSONObject()
            object.append("ids", .array(group.ids.map { .string($0) }))
            object.append("status", .string(group.key.status.rawValue))
            if let states = group.key.states { object.append("states", .object(states)) }
            if let code = group.key.errorCode { object.append("errorCode", .string(code)) }
            if let type = group.key.challengeNeeded { object.append("challengeNeeded", ["type": .string(type)]) }
            return .object(object)
        }
        return ["requestId": .string(requestID), "payload": ["commands": .array(commands)]]
    }

    /// The QUERY-shaped states of one exported device, with `online`, for an EXECUTE SUCCESS.
    public func executeStates(of input: CloudExportInput) -> JSONObject {
        var states = JSONObject()
        let connectivity = input.device.sourceConnectivity.connectivityState
        states.append("online", .bool(connectivity == .online || connectivity == .partiallyOnline))
        for (key, value) in self.states(of: input).members { states.append(key, value) }
        return states
    }
}
