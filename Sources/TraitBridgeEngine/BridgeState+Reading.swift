import FoundationEssentials
public import TraitBridgeJSON
public import TraitBridgeModel

/// Which devices a reader asks for: the same filters as `traitbridge devices`, compared ignoring
/// case; a type or trait matches by its full id or its name (`DimmableLight`, `matter.OnOff`).
public struct DeviceFilter: Sendable, Hashable {
    public var home: String?
    public var room: String?
    public var zone: String?
    public var type: String?
    public var trait: String?
    public var connectivity: String?
    public var source: String?

    public init() {}

    /// Whether a device summary (``BridgeState/deviceSummary(_:matching:)``) is one of these.
    public func matches(_ summary: JSONValue) -> Bool {
        func texts(_ key: String) -> [String] {
            guard let value = summary[key] else { return [] }
            if case .string(let text) = value { return [text] }
            guard case .array(let items) = value else { return [] }
            return items.compactMap { item in
                if case .string(let text) = item { return text }
                return nil
            }
        }
        return Self.matches(home, texts("home")) && Self.matches(room, texts("room"))
            && Self.matches(zone, texts("zones")) && Self.matches(type, texts("types"), byName: true)
            && Self.matches(trait, texts("traits"), byName: true)
            && Self.matches(connectivity, texts("connectivityState")) && Self.matches(source, texts("sources"))
    }

    /// Whether every filter is unset.
    public var isEmpty: Bool { self == DeviceFilter() }

    /// Equal ignoring ASCII case (names, rooms, filters).
    static func same(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    private static func matches(_ wanted: String?, _ values: [String], byName: Bool = false) -> Bool {
        guard let wanted else { return true }
        return values.contains { value in
            same(value, wanted)
                || (byName && same(String(value.split(separator: ".").last ?? Substring(value)), wanted))
        }
    }
}

/// The devices as the HTTP API reads them, from a copy of the state (no lock held, nothing
/// changed): a summary per device for lists, and one device whole (its description and its
/// state, the two retained payloads the broker has, in one document).
extension BridgeState {
    /// `{"devices": [...]}`: ``deviceSummaries(_:)`` as the API's list.
    public func deviceList(_ filter: DeviceFilter) -> [UInt8] {
        Self.deviceList(deviceSummaries(filter))
    }

    /// `{"devices": [...]}` of summaries already made.
    public static func deviceList(_ summaries: [JSONValue]) -> [UInt8] {
        JSONValue.object(["devices": .array(summaries)]).serializedBytes()
    }

    /// The summary (``deviceSummary(_:matching:)``) of each device `filter` matches, sorted by
    /// room, then name.
    public func deviceSummaries(_ filter: DeviceFilter) -> [JSONValue] {
        var entries: [(room: String, name: String, value: JSONValue)] = []
        for device in graph.devices.values {
            guard let summary = deviceSummary(device.id, matching: filter) else { continue }
            entries.append((graph.room(of: device.id)?.name ?? "", device.name, summary))
        }
        entries.sort { ($0.room, $0.name) < ($1.room, $1.name) }
        return entries.map(\.value)
    }

    /// A device's id, name, home, room, zones, types, traits, sources, connectivity, locality and
    /// last update; nil when there is no such device or `filter` does not match it.
    public func deviceSummary(_ id: DeviceID, matching filter: DeviceFilter = DeviceFilter()) -> JSONValue? {
        guard let device = graph.devices[id] else { return nil }
        let home = device.homeID.flatMap { graph.home($0) }
        let room = graph.room(of: device.id)
        let zones = room.map { room in home?.zones.filter { $0.roomIDs.contains(room.id) }.map(\.name) ?? [] } ?? []
        let connectivity = device.sourceConnectivity
        // A device type once, though two paths or endpoints of the device (its cloud twin) have it.
        var types: [String] = []
        for type in device.deviceTypes where !types.contains(type.typeID.description) {
            types.append(type.typeID.description)
        }
        var object: JSONObject = [
            "id": .string(device.id.rawValue), "name": .string(device.name),
            "home": home.map { .string($0.name) } ?? .null, "room": room.map { .string($0.name) } ?? .null,
            "zones": .array(zones.map { .string($0) }),
            "types": .array(types.map { .string($0) }),
            "traits": .array(
                Set(device.deviceTypes.flatMap { $0.traits.map(\.traitID.description) }).sorted().map { .string($0) }),
            "sources": .array(Set(device.sources.map(\.family)).sorted().map { .string($0) }),
            "connectivityState": .string(connectivity.connectivityState.rawValue),
            "dataSourceLocality": .string(connectivity.dataSourceLocality.rawValue),
        ]
        if let lastUpdate = published[device.id]?.lastUpdate {
            object.append("lastUpdate", .string(DevicePayloads.timestamp(lastUpdate)))
        }
        let summary = JSONValue.object(object)
        // (Not `matches ? summary : nil`: JSONValue takes `nil` as a literal, and that would be `.null`.)
        guard filter.matches(summary) else { return nil }
        return summary
    }

    /// Every device's id (for a change feed's first picture).
    public var deviceIDs: [DeviceID] { Array(graph.devices.keys) }

    /// `{"description": …, "state": …}` for one device (by id, or by name ignoring case), or nil.
    public func deviceDocument(_ idOrName: String) -> [UInt8]? {
        guard let id = deviceID(named: idOrName), let device = graph.devices[id] else { return nil }
        var feeds: [TraitAddress: TraitFeed] = [:]
        let description = descriptionPayload(device.id, feeds: &feeds)
        let state = DevicePayloads.state(of: device, lastUpdate: published[device.id]?.lastUpdate)
        return Array(#"{"description":"#.utf8) + description + Array(#","state":"#.utf8) + state + [UInt8(ascii: "}")]
    }

    /// `{"homes": [...]}`: each home as its retained topic has it (rooms, zones, groups, scenes).
    public func homeList() -> [UInt8] {
        JSONValue.object(["homes": .array(graph.homes.map(homeDocument))]).serializedBytes()
    }

    /// The id of the device a path names (its id, or its name ignoring case).
    public func deviceID(named idOrName: String) -> DeviceID? {
        if let id = try? DeviceID(idOrName), graph.devices[id] != nil { return id }
        return graph.devices.values.first { DeviceFilter.same($0.name, idOrName) }?.id
    }
}
