import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

extension BridgeState {
    /// The operations the CLI (or any MQTT client) asks for on `<prefix>/bridge/request/<operation>`.
    ///
    /// MQTT 5: the answer goes to the request's Response Topic with its Correlation Data (so
    /// `mosquitto_rr` works). MQTT 3.1.1 has neither property, so there the correlation id is a
    /// last topic level, `…/request/<operation>/<correlation>`, answered on
    /// `…/response/<operation>/<correlation>`. When both are present the properties win.
    static let requestOperations =
        ["sync-import", "sync-export", "sync-preview", "query-import", "query-export", "execute", "camera-sessions"]
        + placementOperations
        + layoutOperations + fanOutOperations + automationOperations + historyOperations

    /// The requests that edit the home (names and places, homes, rooms, zones, groups, scenes,
    /// automations, the location): what the HTTP API's admin route runs.
    public static var editOperations: [String] {
        placementOperations + layoutOperations + automationOperations.filter { $0 != "automation-run" }
    }

    mutating func handleRequest(
        _ operation: String, correlation topicCorrelation: String?, replyTo: ReplyAddress?, payload: [UInt8], now: Date,
        effects: inout BridgeEffects
    ) {
        let address =
            replyTo
            ?? topicCorrelation.map {
                ReplyAddress(topic: "\(configuration.prefix)/bridge/response/\(operation)/\($0)")
            }
        guard let address else {
            effects.log(
                .warning,
                "a request without a Response Topic (MQTT 5) or a correlation level (MQTT 3.1.1) cannot be answered; not run",
                ["tb.mqtt.topic": "\(configuration.prefix)/bridge/request/\(operation)"])
            return
        }
        // The id that names this request in logs and default request ids of exports.
        let correlation = topicCorrelation ?? address.correlationData.map(Self.printable) ?? "request"
        runRequest(
            operation, sink: .mqtt(address), correlation: correlation, payload: payload, now: now, effects: &effects)
    }

    /// Runs a request and answers `sink`: an MQTT reply address, or a caller in this process (the
    /// HTTP API's groups, scenes, automations and layout edits go through here too).
    mutating func runRequest(
        _ operation: String, sink: ResponseSink, correlation: String, payload: [UInt8], now: Date,
        effects: inout BridgeEffects
    ) {
        func reply(_ value: JSONValue) { effects.answer(sink, value.serializedBytes()) }
        func fail(_ message: String) { reply(["status": "error", "message": .string(message)]) }
        if Self.placementOperations.contains(operation) {
            reply(handlePlacementRequest(operation, payload: payload, now: now, effects: &effects))
            return
        }
        if Self.layoutOperations.contains(operation) {
            reply(handleLayoutRequest(operation, payload: payload, now: now, effects: &effects))
            return
        }
        if Self.automationOperations.contains(operation) {
            handleAutomationRequest(operation, payload: payload, reply: sink, now: now, effects: &effects)
            return
        }
        if operation == "history" {
            handleHistoryRequest(payload, sink: sink, now: now, effects: &effects)
            return
        }
        if operation == "history-availability" {
            handleAvailabilityRequest(payload, sink: sink, now: now, effects: &effects)
            return
        }
        if operation == "camera-sessions" {
            reply(cameraSessionsAnswer(payload, now: now))
            return
        }
        if Self.fanOutOperations.contains(operation) {
            startFanOut(operation, payload: payload, reply: sink, now: now, effects: &effects)
            return
        }
        guard let cloud else {
            fail(
                "this bridge has no Cloud-to-cloud table (mappings/cloud/google-c2c.json); start serve with --mappings pointing at a folder that has it"
            )
            return
        }
        switch operation {
        case "sync-import":
            do {
                let result = try cloud.importSync(payload, source: "sync import", now: now)
                reply(.object(importCloud(result, now: now, effects: &effects)))
            } catch {
                fail(error.description)
            }
        case "sync-export", "sync-preview":
            let options = try? JSONDocument.parse(payload.isEmpty ? Array("{}".utf8) : payload).root
            let agent = options?["agentUserId"]?.string ?? "traitbridge"
            let requestID = options?["requestId"]?.string ?? correlation
            let (exported, skipped) = cloud.syncResponse(cloudExportInputs(), agentUserID: agent, requestID: requestID)
            let response = addingScenes(toSync: exported)
            guard operation == "sync-preview" else {
                reply(response)
                return
            }
            // What Google would get, and what it would not, with the reason.
            let excluded = graph.devices.keys.sorted().filter { exportedInput($0) == nil }
            reply([
                "sync": response, "skipped": .array(skipped.map { .string($0) }),
                "excluded": .array(excluded.map { .string("\($0.rawValue): left out by the export rules") }),
            ])
        case "query-import":
            reply(.object(handleCloudReports(payload, source: "query import", now: now, effects: &effects)))
        case "query-export":
            var ids: [String]?
            var requestID = correlation
            if !payload.isEmpty {
                do {
                    let request = try cloud.parseQueryRequest(payload, source: "query export")
                    ids = request.ids
                    requestID = request.requestID ?? correlation
                } catch {
                    fail(error.description)
                    return
                }
            }
            reply(cloud.queryResponse(cloudExportInputs(ids: ids), requestID: requestID))
        case "execute":
            startExecute(
                payload, reply: sink, correlation: correlation, source: "execute request \(correlation)",
                now: now,
                effects: &effects)
        default:
            fail(
                "unknown operation '\(operation)'; the bridge answers: \(Self.requestOperations.joined(separator: ", "))"
            )
        }
    }

    /// A request for a caller waiting on its answer (``Bridge/request(_:payload:)``).
    mutating func runRequest(_ operation: String, payload: [UInt8], waiter: Int, now: Date) -> BridgeEffects {
        var effects = BridgeEffects()
        runRequest(
            operation, sink: .waiter(waiter), correlation: "http-\(waiter)", payload: payload, now: now,
            effects: &effects)
        return effects
    }

    /// Correlation data as text for logs and request ids: itself when it is printable UTF-8,
    /// otherwise hex.
    static func printable(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self), !text.isEmpty,
            text.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control })
        {
            return text
        }
        return bytes.map { byte in
            String(byte, radix: 16).count == 1 ? "0" + String(byte, radix: 16) : String(byte, radix: 16)
        }.joined()
    }
}
