import TraitBridgeJSON
import TraitBridgeModel

/// The JSON of HAP's IP endpoints (HAP §6.6–6.8): the accessory database, characteristic reads,
/// the writes a `PUT /characteristics` asks for, and event bodies. Pure: database and graph in.
enum HAPDocuments {
    /// `GET /accessories`: every accessory, service and characteristic with its metadata and value.
    static func accessories(_ database: HAPDatabase, graph: HomeGraph) -> [UInt8] {
        let list: [JSONValue] = database.accessories.map { accessory in
            .object([
                "aid": .int(Int64(accessory.aid)),
                "services": .array(
                    accessory.services.map { service in
                        .object([
                            "iid": .int(Int64(service.iid)), "type": .string(service.type),
                            "primary": .bool(service.isPrimary), "hidden": .bool(false),
                            "characteristics": .array(
                                service.characteristics.map { describe($0, graph: graph, metadata: true) }),
                        ])
                    }),
            ])
        }
        return JSONValue.object(["accessories": .array(list)]).serializedBytes()
    }

    /// One characteristic: ids, type, permissions, format, metadata when asked, and its value
    /// (read permission) or nothing when it cannot be read now.
    static func describe(_ item: HAPCharacteristic, graph: HomeGraph, metadata: Bool) -> JSONValue {
        var object: JSONObject = [
            "iid": .int(Int64(item.iid)), "type": .string(item.type),
            "perms": .array(item.permissions.map { .string($0) }), "format": .string(item.format),
        ]
        if metadata {
            if let unit = item.unit { object["unit"] = .string(unit) }
            if let minimum = item.minValue { object["minValue"] = number(minimum) }
            if let maximum = item.maxValue { object["maxValue"] = number(maximum) }
            if let step = item.minStep { object["minStep"] = number(step) }
        }
        if item.permissions.contains("pr"), case .success(let value) = HAPValues.read(item, in: graph) {
            object["value"] = value
        }
        return .object(object)
    }

    private static func number(_ value: Double) -> JSONValue {
        value == value.rounded() && abs(value) < 1e15
            ? FiniteNumber.int64(rounding: value).map(JSONValue.int) ?? .double(value) : .double(value)
    }

    /// `GET /characteristics?id=1.2,1.3`: each value, or its status; 207 when any failed.
    static func read(ids text: String, database: HAPDatabase, graph: HomeGraph, subscribed: (Int, Int) -> Bool)
        -> (status: Int, body: [UInt8])
    {
        let pairs = parseIDs(text)
        guard !pairs.isEmpty else { return (400, statusBody(-70410)) }
        var entries: [JSONObject] = []
        var failed = false
        for (aid, iid) in pairs {
            var entry: JSONObject = ["aid": .int(Int64(aid)), "iid": .int(Int64(iid))]
            switch database.characteristic(aid: aid, iid: iid).map({ item in
                item.permissions.contains("pr") ? HAPValues.read(item, in: graph) : .failure(.writeOnly)
            }) ?? .failure(.notFound) {
            case .success(let value):
                entry["value"] = value
                if subscribed(aid, iid) { entry["ev"] = .bool(true) }
            case .failure(let status):
                entry["status"] = .int(Int64(status.rawValue))
                failed = true
            }
            entries.append(entry)
        }
        if failed {
            for index in entries.indices where entries[index]["status"] == nil { entries[index]["status"] = .int(0) }
        }
        let body = JSONValue.object(["characteristics": .array(entries.map(JSONValue.object))]).serializedBytes()
        return (failed ? 207 : 200, body)
    }

    /// "1.2,1.3" → [(1, 2), (1, 3)]; at most 1024 pairs; anything malformed makes it empty.
    static func parseIDs(_ text: String) -> [(Int, Int)] {
        var pairs: [(Int, Int)] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let halves = part.split(separator: ".", omittingEmptySubsequences: false)
            guard pairs.count < 1024, halves.count == 2, let aid = Int(halves[0]), let iid = Int(halves[1]),
                aid > 0, iid > 0
            else { return [] }
            pairs.append((aid, iid))
        }
        return pairs
    }

    /// One entry of a `PUT /characteristics` body.
    struct Write: Sendable {
        var aid: Int
        var iid: Int
        var value: JSON?
        var events: Bool?
    }

    /// The entries of a `PUT /characteristics` body; nil when it is not such a body.
    static func writes(_ body: [UInt8]) -> [Write]? {
        guard let root = try? JSONDocument.parse(body, maxDepth: 8).root,
            let list = root["characteristics"], list.kind == .array, list.count <= 1024
        else { return nil }
        var writes: [Write] = []
        for element in list.elements {
            guard let aid = element["aid"]?.int64, let iid = element["iid"]?.int64,
                let aidValue = Int(exactly: aid), let iidValue = Int(exactly: iid)
            else { return nil }
            let value = element["value"]
            writes.append(
                Write(
                    aid: aidValue, iid: iidValue, value: value?.isNull == true ? nil : value,
                    events: element["ev"]?.bool))
        }
        return writes
    }

    static func statusBody(_ status: Int) -> [UInt8] {
        JSONValue.object(["status": .int(Int64(status))]).serializedBytes()
    }

    /// An event's body: the changed values.
    static func event(_ values: [(aid: Int, iid: Int, value: JSONValue)]) -> [UInt8] {
        JSONValue.object([
            "characteristics": .array(
                values.map { .object(["aid": .int(Int64($0.aid)), "iid": .int(Int64($0.iid)), "value": $0.value]) })
        ]).serializedBytes()
    }
}
