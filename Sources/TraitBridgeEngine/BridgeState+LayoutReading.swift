import TraitBridgeAutomation
public import TraitBridgeJSON
import TraitBridgeModel

/// The home above the devices as the HTTP API reads it, from a copy of the state: the same
/// documents the layout and automation topics retain, shaped by ``LayoutLists`` (as the CLI's
/// `--json` is from the retained payloads).
extension BridgeState {
    /// What a layout list names.
    public enum LayoutListKind: String, Sendable, CaseIterable {
        case rooms, zones, groups, scenes, automations
        case cloudLinks = "cloud-links"
    }

    /// One of the lists, as ``LayoutLists`` shapes it.
    public func layoutList(_ kind: LayoutListKind) -> JSONValue {
        switch kind {
        case .rooms:
            var counts: [String: Int] = [:]  // "home\u{0}room" → devices
            for device in graph.devices.values {
                guard let home = device.homeID.flatMap({ graph.home($0) }), let room = graph.room(of: device.id) else {
                    continue
                }
                counts[home.name + "\u{0}" + room.name, default: 0] += 1
            }
            return LayoutLists.rooms(homes: graph.homes.map(homeDocument)) { counts[$0 + "\u{0}" + $1] ?? 0 }
        case .zones: return LayoutLists.zones(homes: graph.homes.map(homeDocument))
        case .groups:
            return LayoutLists.groups(graph.homes.flatMap { home in home.groups.map { groupEntry($0, in: home) } })
        case .scenes:
            return LayoutLists.scenes(graph.homes.flatMap { home in home.scenes.map { sceneDocument($0, in: home) } })
        case .automations: return LayoutLists.automations(automations.all.map(automationDocument))
        case .cloudLinks:
            let links = cloudImport.links.isEmpty ? JSONObject() : linkHealth()
            return LayoutLists.cloudLinks(health: ["links": .object(links)])
        }
    }

    /// One group by id or name (ignoring case, spaces and apostrophes): definition and state.
    public func group(named text: String) -> JSONValue? {
        locate(text, \.groups, id: \.id.rawValue, name: \.name).map { groupEntry($0.0, in: $0.1) }
    }

    /// The id and home (id) of the group with this id or name, if there is one.
    public func groupAddress(named text: String) -> (id: String, home: String)? {
        locate(text, \.groups, id: \.id.rawValue, name: \.name).map { ($0.0.id.rawValue, $0.1.id.rawValue) }
    }

    /// The id and home (id) of the scene with this id or name, if there is one.
    public func scene(named text: String) -> (id: String, home: String)? {
        locate(text, \.scenes, id: \.id.rawValue, name: \.name).map { ($0.0.id.rawValue, $0.1.id.rawValue) }
    }

    /// The kinds of named things a request can miss, for ``didYouMean(_:kind:)``.
    public enum NamedKind: Sendable { case device, group, scene, room, automation }

    /// " (did you mean 'Hall light'?)" when a name of `kind` is near `text`; empty otherwise.
    public func didYouMean(_ text: String, kind: NamedKind) -> String {
        let names: [String] =
            switch kind {
            case .device: graph.devices.values.map(\.name).sorted()
            case .group: graph.homes.flatMap { $0.groups.map(\.name) }
            case .scene: graph.homes.flatMap { $0.scenes.map(\.name) }
            case .room: graph.homes.flatMap { $0.rooms.map(\.name) }
            case .automation: automations.all.map(\.name)
            }
        return Suggestions.didYouMean(text, among: names)
    }

    private func locate<Item>(
        _ text: String, _ items: KeyPath<Home, [Item]>, id: KeyPath<Item, String>, name: KeyPath<Item, String>
    ) -> (Item, Home)? {
        let key = NameRules.comparisonKey(text)
        for home in graph.homes {
            for item in home[keyPath: items]
            where item[keyPath: id] == text || NameRules.comparisonKey(item[keyPath: name]) == key {
                return (item, home)
            }
        }
        return nil
    }

    /// An automation's last runs (`{"runs": [...]}`, newest first, as `…/history` retains them).
    public func automationHistory(named text: String) -> JSONValue? {
        let key = NameRules.comparisonKey(text)
        guard
            let automation = automations[AutomationID(text)]
                ?? automations.all.first(where: { NameRules.comparisonKey($0.name) == key })
        else { return nil }
        return ["runs": .array(automations.runs(of: automation.id))]
    }

    private func groupEntry(_ group: DeviceGroup, in home: Home) -> JSONValue {
        LayoutLists.group(definition: groupDocument(group, in: home), state: groupState(group))
    }
}
