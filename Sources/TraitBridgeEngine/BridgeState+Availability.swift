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
    /// Every room with a device in it and every group, with their devices when asked.
    public var sets: [AvailabilitySet] = []
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
            var inRoom: [RoomID: [DeviceID]] = [:]
            for (id, device) in graph.devices {
                names[id] = device.name
                if let room = device.roomID { inRoom[room, default: []].append(id) }
            }
            var sets: [AvailabilitySet] = []
            for home in graph.homes {
                for room in home.rooms {
                    guard let devices = inRoom[room.id] else { continue }
                    sets.append(AvailabilitySet(kind: "room", id: room.id.rawValue, name: room.name, devices: devices))
                }
                for group in home.groups where !group.members.isEmpty {
                    let devices = group.members.map(\.device).filter { names[$0] != nil }
                    sets.append(
                        AvailabilitySet(kind: "group", id: group.id.rawValue, name: group.name, devices: devices))
                }
            }
            effects.historyAvailability.append(
                HistoryAvailabilityQuery(sink: sink, from: from, to: to, limit: limit, names: names, sets: sets))
        } catch {
            refuse(error.code, error.message)
        }
    }

    /// The answer: the devices, rooms and groups that dropped most first (then the longest
    /// unreachable), at most `limit` of each.
    public static func availabilityAnswer(_ report: AvailabilityReport, query: HistoryAvailabilityQuery) -> [UInt8] {
        typealias Entry = (key: String, drops: Int, offline: Double, partly: Double, fields: JSONObject)
        func ordered(_ entries: [Entry]) -> [JSONValue] {
            let sorted = entries.sorted { a, b in
                if a.drops != b.drops { return a.drops > b.drops }
                if a.offline + a.partly != b.offline + b.partly { return a.offline + a.partly > b.offline + b.partly }
                return a.key < b.key
            }
            return sorted.prefix(query.limit).map { entry in
                var fields = entry.fields
                fields["drops"] = .int(Int64(entry.drops))
                fields["offlineSeconds"] = .double(entry.offline.rounded())
                fields["partlySeconds"] = .double(entry.partly.rounded())
                return .object(fields)
            }
        }
        let known = report.devices.compactMap { entry -> Entry? in
            guard let name = query.names[entry.device] else { return nil }
            let fields: JSONObject = ["device": .string(entry.device.rawValue), "name": .string(name)]
            return (entry.device.rawValue, entry.drops, entry.offlineSeconds, entry.partlySeconds, fields)
        }
        func sets(_ kind: String) -> [JSONValue] {
            ordered(
                report.sets.filter { $0.set.kind == kind }.map { entry in
                    let fields: JSONObject = [
                        kind: .string(entry.set.id), "name": .string(entry.set.name),
                        "devices": .int(Int64(entry.set.devices.count)),
                    ]
                    return (entry.set.id, entry.drops, entry.offlineSeconds, entry.partlySeconds, fields)
                })
        }
        let answer: JSONValue = [
            "status": "ok", "from": .string(Timestamp.iso8601(query.from)), "to": .string(Timestamp.iso8601(query.to)),
            "devices": .array(ordered(known)), "known": .int(Int64(known.count)),
            "rooms": .array(sets("room")), "groups": .array(sets("group")),
        ]
        return answer.serializedBytes()
    }
}
