import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel
import TraitBridgeStore

/// The home layout as the registry keeps it: one JSON document of the homes with their rooms,
/// zones, groups and scenes (tens of rows at most, written whole on each edit, in one transaction).
enum HomeLayoutCodec {
    static let version = 1

    private struct Document: Codable {
        var version: Int
        var homes: [Home]
    }

    static func encode(_ homes: [Home]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Document(version: version, homes: homes))).map { [UInt8]($0) } ?? []
    }

    static func decode(_ bytes: [UInt8]) throws -> [Home] {
        let document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        guard document.version == version else {
            throw ModelError.invalidLayout("it is version \(document.version); this TraitBridge reads \(version)")
        }
        return document.homes
    }
}

extension BridgeState {
    var homesTopic: String { "\(configuration.prefix)/homes" }
    var groupsTopic: String { "\(configuration.prefix)/groups" }
    var scenesTopic: String { "\(configuration.prefix)/scenes" }

    /// Puts the kept layout back at start, before the devices: the devices the plug-ins made
    /// already (generic mappings) move into it. A layout that cannot be read is logged and the
    /// bridge starts with one home, as on a first start.
    public mutating func restoreLayout(_ bytes: [UInt8]?) -> [BridgeLogLine] {
        guard let bytes else { return [] }
        do {
            var restored = try HomeGraph.restoring(HomeLayoutCodec.decode(bytes))
            for device in graph.devices.values.sorted(by: { $0.id < $1.id }) {
                var moved = device
                moved.homeID = nil
                try restored.addDevice(moved)
            }
            graph = restored
            rebuildGroupIndex()
            let homes = graph.homes
            return [
                BridgeLogLine(
                    .info,
                    "restored \(homes.count) homes, \(homes.map(\.rooms.count).reduce(0, +)) rooms, "
                        + "\(homes.map(\.zones.count).reduce(0, +)) zones, \(homes.map(\.groups.count).reduce(0, +)) "
                        + "groups and \(homes.map(\.scenes.count).reduce(0, +)) scenes")
            ]
        } catch {
            return [
                BridgeLogLine(
                    .error,
                    "the home layout in the registry cannot be read (\(error)); starting with one home: homes, zones, "
                        + "groups and scenes must be made again (traitbridge home/zone/group/scene)")
            ]
        }
    }

    /// After an edit of the layout: its registry row, the layout topics, the placements that name
    /// homes and rooms, and the descriptions of the devices whose home, room or zones changed.
    mutating func layoutChanged(republishing homes: Set<HomeID>, now: Date, effects: inout BridgeEffects) {
        rebuildGroupIndex()
        effects.storeChanges.append(.layout(HomeLayoutCodec.encode(graph.homes)))
        syncPlacements(effects: &effects)
        if !homes.isEmpty {
            for (id, device) in graph.devices.sorted(by: { $0.key < $1.key })
            where homes.contains(device.homeID ?? graph.primaryHome.id) {
                storeAndPublish(id, now: now, effects: &effects)
            }
        }
        publishLayout(effects: &effects)
    }

    mutating func rebuildGroupIndex() {
        var index: [DeviceID: [GroupID]] = [:]
        for home in graph.homes {
            for group in home.groups {
                for member in group.members where index[member.device]?.contains(group.id) != true {
                    index[member.device, default: []].append(group.id)
                }
            }
        }
        layout.setGroups(index)
    }

    /// Keeps each placement true to the layout after an edit: a renamed room by its new name, a
    /// removed room or home no longer named; and a device outside the primary home keeps its home
    /// (so a change of primary home moves nothing after a restart).
    mutating func syncPlacements(effects: inout BridgeEffects) {
        let primary = graph.primaryHome.id
        for id in graph.devices.keys.sorted() {
            guard let device = graph.devices[id] else { continue }
            let home = device.homeID ?? primary
            var placement = layout.placement(of: id) ?? UserPlacement()
            let before = placement
            placement.home = home == primary && placement.home == nil ? nil : home.rawValue
            if placement.room != nil { placement.room = graph.room(of: id).flatMap { $0.isDefault ? nil : $0.name } }
            guard placement != before else { continue }
            layout.setPlacement(placement, of: id)
            effects.storeChanges.append(.placement(id, placement))
        }
    }

    /// Publishes every layout topic whose payload changed and clears those that went away.
    mutating func publishLayout(effects: inout BridgeEffects) {
        guard sources.broker.status == .up else { return }
        var current: [String: [UInt8]] = [:]
        for home in graph.homes {
            current["\(homesTopic)/\(home.id.rawValue)"] = homeDocument(home).serializedBytes()
            for group in home.groups {
                current["\(groupsTopic)/\(group.id.rawValue)"] = groupDocument(group, in: home).serializedBytes()
                current["\(groupsTopic)/\(group.id.rawValue)/state"] = groupState(group).serializedBytes()
            }
            for scene in home.scenes {
                current["\(scenesTopic)/\(scene.id.rawValue)"] = sceneDocument(scene, in: home).serializedBytes()
            }
        }
        for topic in layout.removeTopics(notIn: current) { effects.publish(topic, [], retain: true, qos: 1) }
        for (topic, payload) in current.sorted(by: { $0.key < $1.key }) {
            guard layout.publish(topic, hash: DeviceRuntime.hash(payload)) else { continue }
            effects.publish(topic, payload, retain: true, qos: 1)
        }
        exportBridgeToHomeAssistant(effects: &effects)
    }

    /// One scene's topic (after a run: its last run), not the whole layout.
    mutating func publishScene(_ id: SceneID, effects: inout BridgeEffects) {
        guard sources.broker.status == .up, let home = graph.home(containing: id), let scene = home.scene(id) else {
            return
        }
        let topic = "\(scenesTopic)/\(id.rawValue)"
        let payload = sceneDocument(scene, in: home).serializedBytes()
        guard layout.publish(topic, hash: DeviceRuntime.hash(payload)) else { return }
        effects.publish(topic, payload, retain: true, qos: 1)
    }

    /// The states of the groups a device is in, after its state was published.
    mutating func refreshGroups(of id: DeviceID, effects: inout BridgeEffects) {
        for groupID in layout.groups(of: id) {
            guard let group = graph.group(groupID) else { continue }
            let topic = "\(groupsTopic)/\(groupID.rawValue)/state"
            let payload = groupState(group).serializedBytes()
            guard layout.publish(topic, hash: DeviceRuntime.hash(payload)) else { continue }
            effects.publish(topic, payload, retain: true, qos: 1)
        }
    }

}
