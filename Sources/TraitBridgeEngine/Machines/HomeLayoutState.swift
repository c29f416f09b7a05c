import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeStore

/// What the bridge keeps for the home layout beside the graph: the names and rooms the user gave
/// (they win over the sources'), the groups each device is in (a device's change republishes only
/// its groups' states), a hash of what each layout topic last carried (publish on change; clear
/// what went away), and scenes' last runs.
///
/// The one owner of those records; the homes, rooms, groups and scenes themselves are the graph's.
struct HomeLayoutState: Sendable {
    private var placements: [DeviceID: UserPlacement] = [:]
    private var groupsByDevice: [DeviceID: [GroupID]] = [:]
    private var published: [String: Int] = [:]
    private var lastRuns: [SceneID: JSONValue] = [:]

    // MARK: Placements

    /// The user's name and room for a device, if any.
    func placement(of id: DeviceID) -> UserPlacement? { placements[id] }

    /// The placements the registry kept, at start.
    mutating func restore(_ kept: [DeviceID: UserPlacement]) {
        placements = kept
    }

    /// The user's name and room for a device now (an empty one: back to the sources').
    mutating func setPlacement(_ placement: UserPlacement, of id: DeviceID) {
        placements[id] = placement.isEmpty ? nil : placement
    }

    // MARK: Groups

    /// The groups each device is in, made again after a layout edit.
    mutating func setGroups(_ index: [DeviceID: [GroupID]]) {
        groupsByDevice = index
    }

    var hasGroups: Bool { !groupsByDevice.isEmpty }

    /// The groups device `id` is in (empty when none).
    func groups(of id: DeviceID) -> [GroupID] { groupsByDevice[id] ?? [] }

    // MARK: Layout topics

    /// A layout topic is to carry a payload with this hash: `false` when it carries it already.
    mutating func publish(_ topic: String, hash: Int) -> Bool {
        guard published[topic] != hash else { return false }
        published[topic] = hash
        return true
    }

    /// The topics published before that `current` no longer names, sorted, forgotten: to clear.
    mutating func removeTopics(notIn current: [String: [UInt8]]) -> [String] {
        let gone = published.keys.filter { current[$0] == nil }.sorted()
        for topic in gone { published.removeValue(forKey: topic) }
        return gone
    }

    /// The broker may have lost them: every known topic is published again (and cleared if gone).
    mutating func forgetEverythingPublished() {
        for topic in published.keys { published[topic] = 0 }
    }

    // MARK: Scene runs

    func lastRun(of scene: SceneID) -> JSONValue? { lastRuns[scene] }

    mutating func setLastRun(_ run: JSONValue?, of scene: SceneID) {
        lastRuns[scene] = run
    }
}
