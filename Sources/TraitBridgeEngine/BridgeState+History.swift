import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
public import TraitBridgeStore

/// A `history` request waiting for the history's thread: the device's records, then the answer to `sink`.
public struct HistoryQuery: Sendable {
    public var sink: ResponseSink
    public var filter: HistoryFilter
    /// The device's name when asked (the answer says it).
    public var name: String
}

/// What the history keeps, as the engine sees it: records made where a value or a trait's
/// connectivity changes (only when history is on), and `history` requests checked against the home
/// before the history's thread reads the file.
extension BridgeState {
    static let historyOperations = ["history", "history-availability"]
    static let historyLimit = 10_000
    static let historyDefaultLimit = 1_000

    /// Records each trait's connectivity of `id` fed by `source` (every trait when nil) as it is now.
    /// The history's writer keeps one record per band (a new reason alone is not a change).
    mutating func recordConnectivity(
        of id: DeviceID, forTraitsOf source: SourceReference?, effects: inout BridgeEffects
    ) {
        graph.readDevice(id) { device in Self.recordConnectivity(of: device, forTraitsOf: source, effects: &effects) }
    }

    static func recordConnectivity(
        of device: borrowing Device, forTraitsOf source: SourceReference?, effects: inout BridgeEffects
    ) {
        for type in device.deviceTypes {
            for trait in type.traits where source == nil || trait.source == source {
                let address = TraitAddress(deviceTypeKey: type.key, traitID: trait.traitID)
                effects.history.append(
                    HistoryRecord(
                        device: device.id, address: address, attribute: "", at: trait.connectivity.since ?? Date(),
                        change: .connectivity(HistoryConnectivity(trait.connectivity))))
            }
        }
    }

    /// Records every value of the traits of `id` fed by `source` (a cloud's report names no single change).
    mutating func recordValues(
        of id: DeviceID, forTraitsOf source: SourceReference?, at now: Date, effects: inout BridgeEffects
    ) {
        graph.readDevice(id) { device in
            for type in device.deviceTypes {
                for trait in type.traits where source == nil || trait.source == source {
                    let address = TraitAddress(deviceTypeKey: type.key, traitID: trait.traitID)
                    for (attribute, value) in trait.attributes.sorted(by: { $0.key < $1.key }) {
                        effects.history.append(
                            HistoryRecord(
                                device: id, address: address, attribute: attribute, at: now, change: .value(value)))
                    }
                }
            }
        }
    }

    /// The answer to a history request when this bridge keeps none.
    var historyOff: [UInt8]? {
        configuration.recordsHistory
            ? nil
            : Self.historyRefusal(
                "historyOff", "this bridge keeps no history; serve's configuration turns it on (\"history\")")
    }

    static func historyRefusal(_ code: String, _ message: String) -> [UInt8] {
        let answer: JSONValue = ["status": "error", "code": .string(code), "message": .string(message)]
        return answer.serializedBytes()
    }

    /// Checks a `history` request (`{"device", "trait"?, "attribute"?, "from"?, "to"?, "limit"?}`)
    /// and hands it to the history's thread, or answers at once what is wrong.
    mutating func handleHistoryRequest(
        _ payload: [UInt8], sink: ResponseSink, now: Date, effects: inout BridgeEffects
    ) {
        func refuse(_ code: String, _ message: String) { effects.answer(sink, Self.historyRefusal(code, message)) }
        if let off = historyOff { return effects.answer(sink, off) }
        let shape = #"expected {"device": "<id or name>", "trait"?, "attribute"?, "from"?, "to"?, "limit"?}"#
        guard let root = try? JSONDocument.parse(payload).root, root.kind == .object, let name = root["device"]?.string
        else {
            refuse("badParameter", shape)
            return
        }
        for (key, _) in root.members where !["device", "trait", "attribute", "from", "to", "limit"].contains(key) {
            refuse("badParameter", "unknown field '\(key.prefix(40))'; \(shape)")
            return
        }
        guard let id = deviceID(named: name) else {
            refuse("deviceNotFound", "no device '\(name.prefix(80))'\(didYouMean(name, kind: .device))")
            return
        }
        do throws(HistoryRequestError) {
            let filter = try historyFilter(root, device: id, now: now)
            let deviceName = graph.readDevice(id, \.name) ?? id.rawValue
            effects.historyQueries.append(HistoryQuery(sink: sink, filter: filter, name: deviceName))
        } catch {
            refuse(error.code, error.message)
        }
    }

    private mutating func historyFilter(_ root: JSON, device id: DeviceID, now: Date) throws(HistoryRequestError)
        -> HistoryFilter
    {
        let to = try Self.historyTime(root["to"], field: "to") ?? now
        let from = try Self.historyTime(root["from"], field: "from") ?? to - 86_400
        guard from <= to else { throw .init("'from' is after 'to'", code: "notInDevice") }
        let limit = try Self.historyLimit(root["limit"]) ?? Self.historyDefaultLimit
        let trait = root["trait"]?.string
        if root["trait"] != nil, trait == nil { throw .init("'trait' must be a string") }
        let attribute = root["attribute"]?.string
        if root["attribute"] != nil, attribute == nil { throw .init("'attribute' must be a string") }
        let addresses =
            graph.readDevice(id) { device in
                device.deviceTypes.flatMap { type in
                    type.traits.map { trait -> (TraitAddress, [String]) in
                        (TraitAddress(deviceTypeKey: type.key, traitID: trait.traitID), Array(trait.attributes.keys))
                    }
                }
            } ?? []
        var matching = addresses
        if let trait {
            matching = addresses.filter { $0.0.description == trait || $0.0.traitID.description == trait }
            guard !matching.isEmpty else {
                let names = Array(Set(addresses.map { $0.0.description })).sorted()
                throw .init(
                    "the device has no trait '\(trait.prefix(80))'\(Suggestions.didYouMean(trait, among: names)); "
                        + "its traits: \(names.joined(separator: ", "))", code: "notInDevice")
            }
        }
        if let attribute, attribute != "connectivity", attribute != HistoryRecord.notificationAttribute {
            let known = Set(
                matching.flatMap { address, keys in
                    catalog.trait(address.traitID).map { definition in definition.attributes.map { $0.name } } ?? keys
                })
            guard known.contains(attribute) else {
                let names = known.sorted()
                throw .init(
                    "no attribute '\(attribute.prefix(80))'\(Suggestions.didYouMean(attribute, among: names)); "
                        + "its attributes: \((names + ["connectivity", "notification"]).joined(separator: ", "))",
                    code: "notInDevice")
            }
        }
        return HistoryFilter(device: id, trait: trait, attribute: attribute, from: from, to: to, limit: limit)
    }

    /// A request's `limit`: a whole number from 1 to ``historyLimit``; nil when not given.
    static func historyLimit(_ value: JSON?) throws(HistoryRequestError) -> Int? {
        guard let value else { return nil }
        guard value.isInteger, let number = value.int64, (1...Int64(Self.historyLimit)).contains(number) else {
            throw .init("'limit' must be a whole number from 1 to \(Self.historyLimit)")
        }
        return Int(number)
    }

    static func historyTime(_ value: JSON?, field: String) throws(HistoryRequestError) -> Date? {
        guard let value else { return nil }
        guard let text = value.string, let date = Timestamp.parse(text) else {
            throw .init("'\(field)' must be a time as RFC 3339 gives it (2026-11-30T08:00:00Z)")
        }
        return date
    }

    /// The answer to a `history` request, oldest first; values as the device sent them.
    public static func historyAnswer(_ page: HistoryPage, query: HistoryQuery) -> [UInt8] {
        func entry(_ record: HistoryRecord) -> JSONValue {
            var object: JSONObject = [
                "at": .string(Timestamp.iso8601(record.at)), "trait": .string(record.address.description),
            ]
            switch record.change {
            case .value(let value):
                object.append("attribute", .string(record.attribute))
                object.append("value", value.jsonValue)
            case .connectivity(let connectivity):
                object.append("connectivity", .string(connectivity.state.rawValue))
                object.append("locality", .string(connectivity.locality.rawValue))
                object.append("reasonCode", .string(connectivity.reasonCode))
                object.append("reason", .string(connectivity.reason))
            case .notification(let text):
                object.append("attribute", .string(record.attribute))
                let parsed = try? JSONDocument.parse(Array(text.utf8)).root.value
                object.append("notification", parsed ?? .string(text))
            }
            return .object(object)
        }
        let answer: JSONValue = [
            "status": "ok", "device": .string(query.filter.device.rawValue), "name": .string(query.name),
            "from": .string(Timestamp.iso8601(query.filter.from)), "to": .string(Timestamp.iso8601(query.filter.to)),
            "before": .array(page.before.map(entry)), "records": .array(page.records.map(entry)),
            "truncated": .bool(page.truncated),
        ]
        return answer.serializedBytes()
    }
}

/// Why a `history` request was refused, in words for whoever sent it: `badParameter` (a field's
/// form), `notInDevice` (a trait or attribute the device does not have, a range that is none).
struct HistoryRequestError: Error {
    var message: String
    var code: String
    init(_ message: String, code: String = "badParameter") {
        self.message = message
        self.code = code
    }
}
