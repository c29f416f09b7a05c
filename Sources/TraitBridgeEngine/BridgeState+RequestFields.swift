import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// Reading the fields of a layout request: the home, rooms, members and scene actions it names,
/// each refused with what to write instead.
extension BridgeState {
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

    func requestRoom(_ root: JSON, in home: Home) throws(RequestRefusal) -> Room {
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

    func roomList(_ root: JSON, in home: Home, required: Bool) throws(RequestRefusal) -> [RoomID] {
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
    func members(_ root: JSON) throws(RequestRefusal) -> [GroupMember] {
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
    func sceneActions(_ root: JSON) throws(RequestRefusal) -> [SceneAction] {
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
            do { _ = try CommandRouting.address(on: device, trait, deviceTypeKey: key) } catch {
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
