import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// The layout topics' documents: homes, groups (with their members' state), scenes and their actions.
extension BridgeState {
    // MARK: Documents

    func homeDocument(_ home: Home) -> JSONValue {
        var object = JSONObject()
        object.append("id", .string(home.id.rawValue))
        object.append("name", .string(home.name))
        object.append("primary", .bool(home.isPrimary))
        object.append(
            "rooms",
            .array(
                home.rooms.map { room in
                    ["id": .string(room.id.rawValue), "name": .string(room.name), "default": .bool(room.isDefault)]
                }))
        object.append(
            "zones",
            .array(
                home.zones.map { zone in
                    [
                        "id": .string(zone.id.rawValue), "name": .string(zone.name),
                        "rooms": .array(zone.roomIDs.compactMap { home.room($0).map { .string($0.name) } }),
                    ]
                }))
        object.append(
            "groups", .array(home.groups.map { ["id": .string($0.id.rawValue), "name": .string($0.name)] }))
        object.append(
            "scenes",
            .array(
                home.scenes.map {
                    ["id": .string($0.id.rawValue), "name": .string($0.name), "kind": .string($0.kind.rawValue)]
                }))
        return .object(object)
    }

    func groupDocument(_ group: DeviceGroup, in home: Home) -> JSONValue {
        var object = JSONObject()
        object.append("id", .string(group.id.rawValue))
        object.append("name", .string(group.name))
        object.append("home", .string(home.name))
        object.append(
            "members",
            .array(
                group.members.map { member in
                    var entry = JSONObject()
                    entry.append("device", .string(member.device.rawValue))
                    entry.setIfPresent("deviceType", member.deviceTypeKey.map { .string($0) })
                    entry.setIfPresent("name", graph.devices[member.device].map { .string($0.name) })
                    return .object(entry)
                }))
        return .object(object)
    }

    /// A group's state: its connectivity (aggregated like a device's), each member's, and the
    /// values its members share (`values`) or do not (`mixed`: the attributes whose values differ).
    func groupState(_ group: DeviceGroup) -> JSONValue {
        var object = JSONObject()
        object.append("id", .string(group.id.rawValue))
        object.append("name", .string(group.name))
        let connectivity = graph.connectivity(of: group)
        object.append("connectivityState", .string(connectivity.connectivityState.rawValue))
        object.append("dataSourceLocality", .string(connectivity.dataSourceLocality.rawValue))
        var members: [JSONValue] = []
        var values: [String: AttributeValue] = [:]
        var mixed: Set<String> = []
        for member in group.members {
            let memberConnectivity = graph.connectivity(of: member)
            var entry = JSONObject()
            entry.append("device", .string(member.device.rawValue))
            entry.setIfPresent("deviceType", member.deviceTypeKey.map { .string($0) })
            entry.append("connectivityState", .string(memberConnectivity.connectivityState.rawValue))
            entry.append("dataSourceLocality", .string(memberConnectivity.dataSourceLocality.rawValue))
            if graph.devices[member.device] == nil { entry.append("missing", .bool(true)) }
            members.append(.object(entry))
            guard let device = graph.devices[member.device] else { continue }
            for type in device.deviceTypes where member.deviceTypeKey == nil || member.deviceTypeKey == type.key {
                for trait in type.traits {
                    for (name, value) in trait.attributes {
                        let key = "\(trait.traitID).\(name)"
                        if let seen = values[key], seen != value { mixed.insert(key) } else { values[key] = value }
                    }
                }
            }
        }
        object.append("members", .array(members))
        var shared = JSONObject()
        for key in values.keys.sorted() where !mixed.contains(key) { shared.append(key, values[key]!.jsonValue) }
        object.append("values", .object(shared))
        object.append("mixed", .array(mixed.sorted().map { .string($0) }))
        return .object(object)
    }

    func sceneDocument(_ scene: Scene, in home: Home) -> JSONValue {
        var object = JSONObject()
        object.append("id", .string(scene.id.rawValue))
        object.append("name", .string(scene.name))
        object.append("kind", .string(scene.kind.rawValue))
        object.append("home", .string(home.name))
        object.append("actions", .array(scene.actions.map(Self.actionDocument)))
        object.setIfPresent("lastRun", layout.lastRun(of: scene.id))
        return .object(object)
    }

    /// A scene action in the unified command's words, with its device.
    static func actionDocument(_ action: SceneAction) -> JSONValue {
        var entry = JSONObject()
        entry.append("device", .string(action.device.rawValue))
        entry.setIfPresent("deviceType", action.deviceTypeKey.map { .string($0) })
        entry.append("trait", .string(action.trait.description))
        switch action.operation {
        case .write(let attribute, let value):
            entry.append("attribute", .string(attribute))
            entry.append("value", value.jsonValue)
        case .invoke(let command, let arguments):
            entry.append("command", .string(command))
            if !arguments.isEmpty {
                var object = JSONObject()
                for name in arguments.keys.sorted() { object.append(name, arguments[name]!.jsonValue) }
                entry.append("arguments", .object(object))
            }
        }
        return .object(entry)
    }
}
