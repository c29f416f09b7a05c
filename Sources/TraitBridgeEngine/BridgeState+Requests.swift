import FoundationEssentials
import TraitBridgeCloud
import TraitBridgeJSON
import TraitBridgeModel

extension BridgeState {
    /// The operations the CLI asks for on `<prefix>/bridge/request/<operation>/<correlation>`;
    /// each answers on `<prefix>/bridge/response/<operation>/<correlation>` (MQTT 3.1.1 has no
    /// response topic property, so the correlation id is the last topic level).
    static let requestOperations = ["sync-import", "sync-export", "query-import", "query-export", "execute"]

    mutating func handleRequest(_ operation: String, correlation: String, payload: [UInt8], now: Date, effects: inout BridgeEffects) {
        let replyTopic = "\(configuration.prefix)/bridge/response/\(operation)/\(correlation)"
        func reply(_ value: JSONValue) { effects.publish(replyTopic, value.serializedBytes(), retain: false, qos: 1) }
        func fail(_ message: String) { reply(["status": "error", "message": .string(message)]) }
        guard let cloud else {
            fail("this bridge has no Cloud-to-cloud table (mappings/cloud/google-c2c.json); start serve with --mappings pointing at a folder that has it")
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
        case "sync-export":
            let options = try? JSONDocument.parse(payload.isEmpty ? Array("{}".utf8) : payload).root
            let agent = options?["agentUserId"]?.string ?? "traitbridge"
            let requestID = options?["requestId"]?.string ?? correlation
            reply(cloud.syncResponse(cloudExportInputs(), agentUserID: agent, requestID: requestID).response)
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
            startExecute(payload, replyTopic: replyTopic, correlation: correlation, now: now, effects: &effects)
        default:
            fail("unknown operation '\(operation)'; the bridge answers: \(Self.requestOperations.joined(separator: ", "))")
        }
    }
}
