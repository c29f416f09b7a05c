import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeModel

/// A scene captured from what a room, zone or group shows now.
extension BridgeState {
    /// The settable values a room, zone or group shows now, as a scene's actions: what the
    /// catalog's command rules set (on/off, level, colour, setpoints…), for colour only the
    /// attributes of the mode the light is in. Offline devices and unknown values are left out.
    func capture(_ root: JSON, in home: Home) throws(RequestRefusal) -> [SceneAction] {
        var targets: [GroupMember] = []
        if root["room"] != nil {
            let room = try find(root, "room", in: home, \.rooms, id: \.id.rawValue, name: \.name)
            targets = graph.devices(in: room.id).map { GroupMember(device: $0.id) }
        } else if root["zone"] != nil {
            let zone = try find(root, "zone", in: home, \.zones, id: \.id.rawValue, name: \.name)
            targets = zone.roomIDs.flatMap { graph.devices(in: $0) }.map { GroupMember(device: $0.id) }
        } else if root["group"] != nil {
            targets = try find(root, "group", in: home, \.groups, id: \.id.rawValue, name: \.name).members
        } else {
            throw RequestRefusal("give the \"room\", \"zone\" or \"group\" whose current state the scene keeps")
        }
        var actions: [SceneAction] = []
        for member in targets {
            guard let device = graph.devices[member.device] else { continue }
            for type in device.deviceTypes where member.deviceTypeKey == nil || member.deviceTypeKey == type.key {
                for trait in type.traits where trait.connectivity.state != .offline {
                    let settable = Set(
                        catalog.commandRules.filter { $0.trait == trait.traitID }.flatMap { $0.sets.map(\.attribute) })
                    for name in Self.capturedAttributes(trait, settable: settable) {
                        guard let value = trait.attributes[name] else { continue }
                        actions.append(
                            SceneAction(
                                device: device.id, deviceTypeKey: device.deviceTypes.count > 1 ? type.key : nil,
                                trait: trait.traitID, operation: .write(attribute: name, value: value)))
                    }
                }
            }
        }
        guard !actions.isEmpty else { throw RequestRefusal("nothing there has a known value a scene could set") }
        guard actions.count <= LayoutLimits.sceneActions else {
            throw RequestRefusal("\(actions.count) actions; a scene holds at most \(LayoutLimits.sceneActions)")
        }
        return actions
    }

    /// The attributes of a trait a captured scene sets, in a fixed order.
    static func capturedAttributes(_ trait: TraitInstance, settable: Set<String>) -> [String] {
        var names = settable.filter { trait.attributes[$0] != nil }
        if trait.traitID.description == "matter.ColorControl" {
            // colorMode 0: hue and saturation, 1: xy, 2: colour temperature (Matter's ColorMode).
            let byMode: [Int: Set<String>] = [
                0: ["currentHue", "currentSaturation"], 1: ["currentX", "currentY"], 2: ["colorTemperatureMireds"],
            ]
            let mode = trait.attributes["colorMode"]?.numericValue.flatMap { FiniteNumber.int(clamping: $0) }
            names = names.intersection(mode.flatMap { byMode[$0] } ?? byMode[2]!)
        }
        return names.sorted()
    }
}
