public import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel
public import TraitBridgeStore

/// A `history-availability` request waiting for the history's thread: every device's reachability
/// over a time, the devices that drop most first.
public struct HistoryAvailabilityQuery: Sendable {
    public var sink: ResponseSink
    public var from: Date
    public var to: Date
    public var limit: Int
    /// Each device's name when asked (a device gone since is left out of the answer).
    public var names: [DeviceID: String]
}

extension BridgeState {
    /// Checks a `history-availability` request (`{"from"?, "to"?, "limit"?}`: the last day, 50 devices).
    mutating func handleAvailabilityRequest(
        _ payload: [UInt8], sink: ResponseSink, now: Date, effects: inout BridgeEffects
    ) {
        func refuse(_ code: String, _ message: String) { effects.answer(sink, Self.historyRefusal(code, message)) }
        if let off = historyOff { return effects.answer(sink, off) }
        guard let root = try? JSONDocument.parse(payload.isEmpty ? Array("{}".utf8) : payload).root,
            root.kind == .object
        else {
            refuse("badParameter", #"expected {"from"?, "to"?, "limit"?}"#)
            return
        }
        do throws(HistoryRequestError) {
            for (key, _) in root.members where !["from", "to", "limit"].contains(key) {
                throw .init("unknown field '\(key.prefix(40))'; expected from, to, limit")
            }
            let to = try Self.historyTime(root["to"], field: "to") ?? now
            let from = try Self.historyTime(root["from"], field: "from") ?? to - 86_400
            guard from <= to else { throw .init("'from' is after 'to'", code: "notInDevice") }
            let limit = try Self.historyLimit(root["limit"]) ?? 50
            var names: [DeviceID: String] = [:]
            for (id, device) in graph.devices { names[id] = device.name }
            effects.historyAvailability.append(
                HistoryAvailabilityQuery(sink: sink, from: from, to: to, limit: limit, names: names))
        } catch {
            refuse(error.code, error.message)
        }
    }

    /// The answer: the devices that dropped most first (then the longest unreachable), at most `limit`.
    public static func availabilityAnswer(_ list: [DeviceAvailability], query: HistoryAvailabilityQuery) -> [UInt8] {
        let known = list.filter { query.names[$0.device] != nil }
        let ordered = known.sorted { a, b in
            if a.drops != b.drops { return a.drops > b.drops }
            let x = a.offlineSeconds + a.partlySeconds
            let y = b.offlineSeconds + b.partlySeconds
            if x != y { return x > y }
            return a.device < b.device
        }
        let devices: [JSONValue] = ordered.prefix(query.limit).map { entry in
            [
                "device": .string(entry.device.rawValue), "name": .string(query.names[entry.device] ?? ""),
                "drops": .int(Int64(entry.drops)), "offlineSeconds": .double(entry.offlineSeconds.rounded()),
                "partlySeconds": .double(entry.partlySeconds.rounded()),
            ]
        }
        let answer: JSONValue = [
            "status": "ok", "from": .string(Timestamp.iso8601(query.from)), "to": .string(Timestamp.iso8601(query.to)),
            "devices": .array(devices), "known": .int(Int64(known.count)),
        ]
        return answer.serializedBytes()
    }
}
