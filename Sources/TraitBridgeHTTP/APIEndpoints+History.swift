import Hummingbird
import TraitBridgeEngine
import TraitBridgeJSON

/// `GET /api/v1/devices/{device}/history`: a device's connectivity and value changes, the answer
/// of the `history` request (the same bytes `traitbridge history --json` prints); and
/// `GET /api/v1/availability`: every device's reachability over a time, those that drop most first.
extension APIEndpoints {
    static let historyParameters: Set<Substring> = ["trait", "attribute", "from", "to", "limit"]

    func registerHistory(on router: Router<ClientRequestContext>) {
        router.get("api/v1/availability") { request, _ in
            if case .failure(let refusal) = role(of: request, writing: false) { return refusal.response }
            var payload = JSONObject()
            for (name, value) in request.uri.queryParameters {
                let text = String(value)
                if let refusal = Self.refuseParameter(name, text, request) { return refusal }
                switch name {
                case "from", "to": payload[String(name)] = .string(text)
                case "limit":
                    guard let limit = Int64(text), (1...10_000).contains(limit) else {
                        return Self.problem(
                            .badRequest, "bad limit", "limit '\(text)' is not a whole number from 1 to 10000", request)
                    }
                    payload["limit"] = .int(limit)
                default:
                    return Self.problem(
                        .badRequest, "unknown parameter", "'\(name.prefix(40))' is not one of from, to, limit", request)
                }
            }
            return await historyAnswer("history-availability", payload, request)
        }
        router.get("api/v1/devices/:device/history") { request, context in
            if case .failure(let refusal) = role(of: request, writing: false) { return refusal.response }
            var payload: JSONObject = ["device": .string(Self.parameter(context, "device"))]
            for (name, value) in request.uri.queryParameters {
                let text = String(value)
                if let refusal = Self.refuseParameter(name, text, request) { return refusal }
                guard Self.historyParameters.contains(name) else {
                    return Self.problem(
                        .badRequest, "unknown parameter",
                        "'\(name.prefix(40))' is not one of \(Self.historyParameters.sorted().joined(separator: ", "))",
                        request)
                }
                if name == "limit" {
                    guard let limit = Int64(text), (1...10_000).contains(limit) else {
                        return Self.problem(
                            .badRequest, "bad limit", "limit '\(text)' is not a whole number from 1 to 10000", request)
                    }
                    payload["limit"] = .int(limit)
                } else {
                    payload[String(name)] = .string(text)
                }
            }
            return await historyAnswer("history", payload, request)
        }
    }

    /// The bridge's answer to a history request, or the problem its refusal is.
    private func historyAnswer(_ operation: String, _ payload: JSONObject, _ request: Request) async -> Response {
        let answer = await bridge.request(operation, payload: JSONValue.object(payload).serializedBytes())
        guard let root = try? JSONDocument.parse(answer).root, let status = root["status"]?.string else {
            return Self.problem(.internalServerError, "no answer", "the bridge gave no answer", request)
        }
        guard status == "error" else { return FulfillmentServer.json(.ok, answer) }
        let message = root["message"]?.string ?? "history refused"
        switch root["code"]?.string {
        case "deviceNotFound": return Self.problem(.notFound, "no such device", message, request)
        case "historyOff": return Self.problem(.conflict, "no history kept", message, request)
        case "badParameter": return Self.problem(.badRequest, "bad parameter", message, request)
        case "notInDevice": return Self.problem(.unprocessableContent, "not in this device", message, request)
        default: return Self.problem(.internalServerError, "history unreadable", message, request)
        }
    }
}
