import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// A request to the bridge that cannot be done, in words for the person who asked.
struct RequestRefusal: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// How much of a layout one home may hold: each bound is a refusal that says so.
enum LayoutLimits {
    static let homes = 64
    static let itemsPerKind = 1_000
    static let groupMembers = 500
    static let sceneActions = 500
}

/// The edits of the home layout (admin requests on `<prefix>/bridge/request/<operation>`): homes,
/// rooms, zones, groups and scenes. Each is answered with the thing as it is now, or a refusal
/// that names the clash; a refused edit changes nothing.
extension BridgeState {
    static let layoutOperations = [
        "home-add", "home-rename", "home-remove", "home-primary", "room-add", "room-rename", "room-remove",
        "zone-add", "zone-rename", "zone-remove", "zone-rooms", "group-add", "group-rename", "group-remove",
        "group-members", "scene-add", "scene-rename", "scene-remove", "scene-actions", "scene-capture",
    ]

    mutating func handleLayoutRequest(_ operation: String, payload: [UInt8], now: Date, effects: inout BridgeEffects)
        -> JSONValue
    {
        do {
            let root: JSON
            do { root = try JSONDocument.parse(payload.isEmpty ? Array("{}".utf8) : payload, maxDepth: 16).root } catch
            {
                throw RequestRefusal("the request is not JSON: \(error)")
            }
            guard root.kind == .object else { throw RequestRefusal("the request must be a JSON object") }
            return try layoutEdit(operation, root, now: now, effects: &effects)
        } catch let refusal as RequestRefusal {
            return ["status": "error", "message": .string("\(operation): \(refusal.message)")]
        } catch let error as ModelError {
            return ["status": "error", "message": .string("\(operation): \(error)")]
        } catch {
            return ["status": "error", "message": .string("\(operation): \(error)")]
        }
    }

    private mutating func layoutEdit(_ operation: String, _ root: JSON, now: Date, effects: inout BridgeEffects) throws
        -> JSONValue
    {
        let home = try requestHome(root)
        switch operation {
        case "home-add":
            guard graph.homes.count < LayoutLimits.homes else {
                throw RequestRefusal("the bridge holds \(LayoutLimits.homes) homes, its most; remove one first")
            }
            let id = try graph.addHome(named: try field(root, "name"))
            layoutChanged(republishing: [], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(id)!))
        case "home-rename":
            try graph.renameHome(home.id, to: try field(root, "name"))
            layoutChanged(republishing: [home.id], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "home-remove":
            guard root["home"]?.string != nil else { throw RequestRefusal("name the home to remove with \"home\"") }
            let moved = try graph.removeHome(home.id)
            layoutChanged(republishing: [graph.primaryHome.id], now: now, effects: &effects)
            return [
                "status": "ok", "removed": .string(home.name),
                "moved": .array(moved.map { .string($0.rawValue) }),
                "primary": .string(graph.primaryHome.name),
            ]
        case "home-primary":
            try graph.setPrimaryHome(home.id)
            layoutChanged(republishing: [], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "room-add":
            try bound(home.rooms.count, "rooms", in: home)
            try graph.addRoom(named: try field(root, "name"), to: home.id)
            layoutChanged(republishing: [], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "room-rename":
            try graph.renameRoom(try requestRoom(root, in: home).id, to: try field(root, "name"))
            layoutChanged(republishing: [home.id], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "room-remove":
            try graph.removeRoom(try requestRoom(root, in: home).id)
            layoutChanged(republishing: [home.id], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "zone-add":
            try bound(home.zones.count, "zones", in: home)
            let rooms = try roomList(root, in: home, required: false)
            try graph.addZone(named: try field(root, "name"), to: home.id, rooms: rooms)
            layoutChanged(republishing: [home.id], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "zone-rename", "zone-remove", "zone-rooms":
            let zone = try find(root, "zone", in: home, \.zones, id: \.id.rawValue, name: \.name)
            switch operation {
            case "zone-rename": try graph.renameZone(zone.id, to: try field(root, "name"))
            case "zone-remove": try graph.removeZone(zone.id)
            default: try graph.setRooms(try roomList(root, in: home, required: true), ofZone: zone.id)
            }
            layoutChanged(republishing: [home.id], now: now, effects: &effects)
            return answer("home", homeDocument(graph.home(home.id)!))
        case "group-add":
            try bound(home.groups.count, "groups", in: home)
            let id = try graph.addGroup(named: try field(root, "name"), to: home.id, members: try members(root))
            layoutChanged(republishing: [], now: now, effects: &effects)
            return answer("group", groupDocument(graph.group(id)!, in: graph.home(home.id)!))
        case "group-rename", "group-remove", "group-members":
            let group = try find(root, "group", in: home, \.groups, id: \.id.rawValue, name: \.name)
            switch operation {
            case "group-rename": try graph.renameGroup(group.id, to: try field(root, "name"))
            case "group-remove": try graph.removeGroup(group.id)
            default: try graph.setMembers(try members(root), ofGroup: group.id)
            }
            layoutChanged(republishing: [], now: now, effects: &effects)
            guard let changed = graph.group(group.id) else { return ["status": "ok", "removed": .string(group.name)] }
            return answer("group", groupDocument(changed, in: graph.home(home.id)!))
        case "scene-add", "scene-capture":
            try bound(home.scenes.count, "scenes", in: home)
            let actions = operation == "scene-add" ? try sceneActions(root) : try capture(root, in: home)
            let id = try graph.addScene(named: try field(root, "name"), to: home.id, actions: actions)
            layoutChanged(republishing: [], now: now, effects: &effects)
            return answer("scene", sceneDocument(graph.scene(id)!, in: graph.home(home.id)!))
        case "scene-rename", "scene-remove", "scene-actions":
            let scene = try find(root, "scene", in: home, \.scenes, id: \.id.rawValue, name: \.name)
            switch operation {
            case "scene-rename": try graph.renameScene(scene.id, to: try field(root, "name"))
            case "scene-remove": try graph.removeScene(scene.id)
            default: try graph.setActions(try sceneActions(root), ofScene: scene.id)
            }
            if operation == "scene-remove" { layout.setLastRun(nil, of: scene.id) }
            layoutChanged(republishing: [], now: now, effects: &effects)
            guard let changed = graph.scene(scene.id) else { return ["status": "ok", "removed": .string(scene.name)] }
            return answer("scene", sceneDocument(changed, in: graph.home(home.id)!))
        default:
            throw RequestRefusal("unknown layout operation")
        }
    }

    private func answer(_ key: String, _ document: JSONValue) -> JSONValue {
        var object = JSONObject()
        object.append("status", "ok")
        object.append(key, document)
        return .object(object)
    }

    private func bound(_ count: Int, _ kind: String, in home: Home) throws(RequestRefusal) {
        guard count < LayoutLimits.itemsPerKind else {
            throw RequestRefusal("home '\(home.name)' holds \(count) \(kind), its most; remove one first")
        }
    }

}
