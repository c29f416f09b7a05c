public import FoundationEssentials
import TraitBridgeJSON
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
}

/// The devices as the HTTP API reads them, from a copy of the state (no lock held, nothing
/// changed): a summary per device for lists, and one device whole (its description and its
/// state, the two retained payloads the broker has, in one document).
extension BridgeState {
    /// `{"devices": [...]}`: each device's id, name, home, room, types, traits, sources, connectivity,
    /// locality and last update, sorted by room, then name.
    public func deviceList(_ filter: DeviceFilter) -> [UInt8] {
        var entries: [(room: String, name: String, value: JSONValue)] = []
        for device in graph.devices.values {
            let home = device.homeID.flatMap { graph.home($0) }
            let room = graph.room(of: device.id)
            let zones = room.map { room in home?.zones.filter { $0.roomIDs.contains(room.id) }.map(\.name) ?? [] } ?? []
            let types = device.deviceTypes.map(\.typeID.description)
            let traits = Set(device.deviceTypes.flatMap { $0.traits.map(\.traitID.description) }).sorted()
            let sources = Set(device.sources.map(\.family)).sorted()
            let connectivity = device.sourceConnectivity
            guard Self.matches(filter.home, [home?.name].compactMap { $0 }),
                Self.matches(filter.room, [room?.name].compactMap { $0 }), Self.matches(filter.zone, zones),
                Self.matches(filter.type, types, byName: true), Self.matches(filter.trait, traits, byName: true),
                Self.matches(filter.connectivity, [connectivity.connectivityState.rawValue]),
                Self.matches(filter.source, sources)
            else { continue }
            var object: JSONObject = [
                "id": .string(device.id.rawValue), "name": .string(device.name),
                "home": home.map { .string($0.name) } ?? .null, "room": room.map { .string($0.name) } ?? .null,
                "types": .array(types.map { .string($0) }), "traits": .array(traits.map { .string($0) }),
                "sources": .array(sources.map { .string($0) }),
                "connectivityState": .string(connectivity.connectivityState.rawValue),
                "dataSourceLocality": .string(connectivity.dataSourceLocality.rawValue),
            ]
            if let lastUpdate = published[device.id]?.lastUpdate {
                object.append("lastUpdate", .string(DevicePayloads.timestamp(lastUpdate)))
            }
            entries.append((room?.name ?? "", device.name, .object(object)))
        }
        entries.sort { ($0.room, $0.name) < ($1.room, $1.name) }
        return JSONValue.object(["devices": .array(entries.map(\.value))]).serializedBytes()
    }

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
        return graph.devices.values.first { Self.same($0.name, idOrName) }?.id
    }

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
