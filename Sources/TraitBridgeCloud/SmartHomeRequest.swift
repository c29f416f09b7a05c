public import TraitBridgeJSON

/// The envelope Google posts to a fulfillment URL: `{requestId, inputs: [{intent, payload?}]}`.
///
/// Read before anything else so that every answer, an error included, echoes the `requestId`,
/// and so that the caller knows which intent it is handling (DISCONNECT is the HTTP layer's).
public struct SmartHomeRequest: Sendable, Hashable {
    /// The four intents a partner cloud answers.
    public enum Intent: String, Sendable, Hashable, CaseIterable {
        case sync = "action.devices.SYNC"
        case query = "action.devices.QUERY"
        case execute = "action.devices.EXECUTE"
        case disconnect = "action.devices.DISCONNECT"
    }

    public var requestID: String
    public var intent: Intent

    public init(requestID: String, intent: Intent) {
        self.requestID = requestID
        self.intent = intent
    }

    /// Reads the envelope. The error names the JSON path and what was expected there; when the
    /// `requestId` was readable it comes with the error, so the answer can still echo it.
    public static func parse(_ bytes: [UInt8], source: String) throws(SmartHomeRequestError) -> SmartHomeRequest {
        let root: JSON
        do {
            root = try GoogleC2C.parse(bytes, source: source)
        } catch {
            throw SmartHomeRequestError(requestID: nil, error: error)
        }
        guard root.kind == .object else {
            throw .init(requestID: nil, error: .wrongShape(source: source, path: .root, expected: Self.shape))
        }
        guard let requestID = root["requestId"]?.string, !requestID.isEmpty else {
            throw .init(requestID: nil, error: .wrongShape(source: source, path: "requestId", expected: "a string"))
        }
        guard let inputs = root["inputs"], inputs.kind == .array, let first = inputs[0] else {
            throw .init(
                requestID: requestID,
                error: .wrongShape(source: source, path: "inputs", expected: "an array of one {intent, payload}"))
        }
        let path = JSONPath("inputs").appending(0).appending("intent")
        guard let name = first["intent"]?.string else {
            throw .init(requestID: requestID, error: .wrongShape(source: source, path: path, expected: "a string"))
        }
        guard let intent = Intent(rawValue: name) else {
            let known = Intent.allCases.map(\.rawValue).joined(separator: ", ")
            throw .init(
                requestID: requestID, error: .wrongShape(source: source, path: path, expected: "one of \(known)"),
                errorCode: "notSupported")
        }
        return SmartHomeRequest(requestID: requestID, intent: intent)
    }

    static let shape = "{\"requestId\": \"…\", \"inputs\": [{\"intent\": \"action.devices.…\"}]}"
}

/// A fulfillment request that cannot be answered, with what is known of it.
public struct SmartHomeRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public var requestID: String?
    public var error: CloudError
    /// Google's code for the answer's `payload.errorCode`.
    public var errorCode: String

    public init(requestID: String?, error: CloudError, errorCode: String = "protocolError") {
        self.requestID = requestID
        self.error = error
        self.errorCode = errorCode
    }

    public var description: String { error.description }
}

extension GoogleC2C {
    /// An answer that fails the whole request the way Google reads it:
    /// `{requestId, payload: {errorCode, debugString}}`.
    public static func errorResponse(requestID: String, errorCode: String, debugString: String) -> JSONValue {
        .object([
            "requestId": .string(requestID),
            "payload": .object(["errorCode": .string(errorCode), "debugString": .string(debugString)]),
        ])
    }
}
