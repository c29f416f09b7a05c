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

    // MARK: Reading requests

    /// A string field that must be there.
    func field(_ root: JSON, _ name: String) throws(RequestRefusal) -> String {
        guard let value = root[name]?.string else { throw RequestRefusal("give \"\(name)\" as a string") }
        return value
    }

    /// The home a request is about: `"home"` by id or name, else the primary home.
    func requestHome(_ root: JSON) throws(RequestRefusal) -> Home {
        guard let given = root["home"] else { return graph.primaryHome }
        guard let text = given.string, let home = findHome(text) else {
            throw RequestRefusal(
                "no home '\(given.string ?? "")'; the bridge has "
                    + graph.homes.map { "'\($0.name)'" }.joined(separator: ", ")
            )
        }
        return home
    }

    /// A home by id, or by name (compared as names are).
    func findHome(_ text: String) -> Home? {
        if let home = graph.home(HomeID(text)) { return home }
        let key = NameRules.comparisonKey(text)
        return graph.homes.first { NameRules.comparisonKey($0.name) == key }
    }

    private func requestRoom(_ root: JSON, in home: Home) throws(RequestRefusal) -> Room {
        try find(root, "room", in: home, \.rooms, id: \.id.rawValue, name: \.name)
    }

    /// A zone, group, scene or room named by `field`: by id in any home, else by name in the
    /// request's home. The refusal lists what the home has.
    func find<Item>(
        _ root: JSON, _ field: String, in home: Home, _ items: (Home) -> [Item], id: (Item) -> String,
        name: (Item) -> String
    ) throws(RequestRefusal) -> Item {
        try find(text: try self.field(root, field), field, in: home, items, id: id, name: name)
    }

    func find<Item>(
        text: String, _ field: String, in home: Home, _ items: (Home) -> [Item], id: (Item) -> String,
        name: (Item) -> String
    ) throws(RequestRefusal) -> Item {
        if let item = items(home).first(where: { id($0) == text }) { return item }
        let key = NameRules.comparisonKey(text)
        if let item = items(home).first(where: { NameRules.comparisonKey(name($0)) == key }) { return item }
        for other in graph.homes where other.id != home.id {
            if items(other).contains(where: { id($0) == text }) {
                throw RequestRefusal("'\(text)' is in the home '\(other.name)'; add \"home\": \"\(other.name)\"")
            }
        }
        let known = items(home).map { "'\(name($0))'" }.joined(separator: ", ")
        throw RequestRefusal("home '\(home.name)' has no \(field) '\(text)'; it has: \(known.isEmpty ? "none" : known)")
    }

    private func roomList(_ root: JSON, in home: Home, required: Bool) throws(RequestRefusal) -> [RoomID] {
        guard let list = root["rooms"] else {
            if required { throw RequestRefusal("give \"rooms\" as a list of room names") }
            return []
        }
        guard list.kind == .array else { throw RequestRefusal("\"rooms\" must be a list of room names") }
        var rooms: [RoomID] = []
        for (index, element) in list.elements.enumerated() {
            guard let text = element.string else { throw RequestRefusal("rooms[\(index)] must be a room name") }
            rooms.append(try find(text: text, "room", in: home, \.rooms, id: \.id.rawValue, name: \.name).id)
        }
        return rooms
    }

    /// `"members": ["id", {"device": "id", "deviceType": "l2"}]`.
    private func members(_ root: JSON) throws(RequestRefusal) -> [GroupMember] {
        guard let list = root["members"], list.kind == .array else {
            throw RequestRefusal("give \"members\" as a list of device ids or {\"device\", \"deviceType\"}")
        }
        guard list.elements.count <= LayoutLimits.groupMembers else {
            throw RequestRefusal(
                "\(list.elements.count) members; a group holds at most \(LayoutLimits.groupMembers)")
        }
        var members: [GroupMember] = []
        for (index, element) in list.elements.enumerated() {
            let text = element.string ?? element["device"]?.string
            guard let text, let id = try? DeviceID(text) else {
                throw RequestRefusal("members[\(index)] must be a device id or {\"device\": id}")
            }
            let key = element["deviceType"]?.string
            if element.kind == .object, element["deviceType"] != nil, key == nil {
                throw RequestRefusal("members[\(index)].deviceType must be a string")
            }
            members.append(GroupMember(device: id, deviceTypeKey: key))
        }
        return members
    }

    /// `"actions": [{"device", "trait", "command", "arguments"} | {"device", "trait", "attribute", "value"}]`,
    /// each checked against the device and the catalog.
    private func sceneActions(_ root: JSON) throws(RequestRefusal) -> [SceneAction] {
        guard let list = root["actions"], list.kind == .array else {
            throw RequestRefusal(
                "give \"actions\" as a list of {\"device\", \"trait\", \"command\"} or {\"device\", \"trait\", "
                    + "\"attribute\", \"value\"}")
        }
        guard list.elements.count <= LayoutLimits.sceneActions else {
            throw RequestRefusal("\(list.elements.count) actions; a scene holds at most \(LayoutLimits.sceneActions)")
        }
        var actions: [SceneAction] = []
        for (index, entry) in list.elements.enumerated() {
            let place = "actions[\(index)]"
            guard let text = entry["device"]?.string, let id = try? DeviceID(text), let device = graph.devices[id]
            else {
                throw RequestRefusal("\(place).device must be the id of a device the bridge holds")
            }
            guard let traitText = entry["trait"]?.string, let trait = TraitID(parsing: traitText) else {
                throw RequestRefusal("\(place).trait must be a trait id such as \"matter.OnOff\"")
            }
            let key = entry["deviceType"]?.string
            do { _ = try commandAddress(device, trait, deviceTypeKey: key) } catch {
                throw RequestRefusal("\(place): \(id.rawValue): \(error.message)")
            }
            if let command = entry["command"]?.string {
                guard catalog.trait(trait)?.command(named: command) != nil else {
                    throw RequestRefusal("\(place): trait \(trait) has no command '\(command)'")
                }
                var arguments: [String: AttributeValue] = [:]
                for (name, value) in entry["arguments"]?.members ?? [] { arguments[name] = AttributeValue(json: value) }
                actions.append(
                    SceneAction(
                        device: id, deviceTypeKey: key, trait: trait,
                        operation: .invoke(command: command, arguments: arguments)))
            } else if let attribute = entry["attribute"]?.string, let value = entry["value"] {
                do { _ = try catalog.attributeMetadata(trait, attribute) } catch {
                    throw RequestRefusal("\(place): \(error)")
                }
                actions.append(
                    SceneAction(
                        device: id, deviceTypeKey: key, trait: trait,
                        operation: .write(attribute: attribute, value: AttributeValue(json: value))))
            } else {
                throw RequestRefusal(
                    "\(place): give \"command\" (with optional \"arguments\") or \"attribute\" and \"value\"")
            }
        }
        return actions
    }
}
