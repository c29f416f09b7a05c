import FoundationEssentials
import TraitBridgeJSON
public import TraitBridgeModel
public import TraitBridgeStore

/// The user's names and rooms (`traitbridge rename` and `traitbridge move`): requests that set
/// them, and the rule that they win over whatever a source or the cloud says afterwards.
extension BridgeState {
    static let placementOperations = ["rename", "move"]

    /// Puts the kept placements back at start and applies them to the devices restored so far.
    public mutating func restorePlacements(_ kept: [DeviceID: UserPlacement]) -> [BridgeLogLine] {
        layout.restore(kept)
        var effects = BridgeEffects()
        for id in kept.keys.sorted() where graph.devices[id] != nil { applyPlacement(id, effects: &effects) }
        return effects.logs
    }

    /// Gives the device the user's name and room, if the user chose any. Called after every
    /// source or cloud description of the device; publishes nothing by itself.
    mutating func applyPlacement(_ id: DeviceID, effects: inout BridgeEffects) {
        guard let placement = layout.placement(of: id), let device = graph.devices[id] else { return }
        if let name = placement.name, device.name != name {
            _ = try? graph.modifyDevice(id) { $0.name = name }
        }
        // The home the user chose (while it exists), else where the device is.
        let chosenHome = placement.home.flatMap { graph.home(HomeID($0)) }
        let home = chosenHome?.id ?? device.homeID ?? graph.primaryHome.id
        if let roomName = placement.room {
            guard graph.room(of: id)?.name != roomName || (device.homeID ?? graph.primaryHome.id) != home else {
                return
            }
            do {
                let room = try graph.room(named: roomName, addingTo: home)
                try graph.assignDevice(id, to: room)
            } catch {
                effects.log(
                    .warning, "the room '\(roomName)' the user chose is not used: \(error)",
                    ["tb.device.id": id.rawValue])
            }
        } else if let chosenHome, device.homeID != chosenHome.id {
            try? graph.assignDevice(id, to: chosenHome.defaultRoom.id)
        }
    }

    /// `rename` `{"device": id, "name": "Garage switch"}` (`"name": null` gives back the source's
    /// name) and `move` `{"device": id, "room": "Garage"}` (`"room": null`: the home's default
    /// room). Kept in the registry; answered with the device's id, name and room.
    mutating func handlePlacementRequest(_ operation: String, payload: [UInt8], now: Date, effects: inout BridgeEffects)
        -> JSONValue
    {
        func failure(_ message: String) -> JSONValue { ["status": "error", "message": .string(message)] }
        let root: JSON
        do { root = try JSONDocument.parse(payload, maxDepth: 8).root } catch {
            return failure("\(operation): the request is not JSON: \(error)")
        }
        guard let idText = root["device"]?.string, let id = try? DeviceID(idText), let device = graph.devices[id] else {
            return failure(
                "\(operation): no device with id '\(root["device"]?.string ?? "")' (\"device\" must be a device id; traitbridge devices lists them)"
            )
        }
        let field = operation == "rename" ? "name" : "room"
        guard let value = root[field], value.isNull || value.string != nil else {
            return failure("\(operation): give \"\(field)\" as a string, or null to reset it")
        }
        var placement = layout.placement(of: id) ?? UserPlacement()
        let text = value.string.map {
            String($0.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        }
        if operation == "rename" {
            if let text {
                if let problem = nameProblem(text, for: id) { return failure("rename: \(problem)") }
                placement.name = text
            } else {
                placement.name = nil
                let name = published[id]?.sourceName ?? device.name
                _ = try? graph.modifyDevice(id) { $0.name = name }
            }
        } else {
            var home = device.homeID ?? graph.primaryHome.id
            if let homeText = root["home"]?.string {
                guard let chosen = findHome(homeText) else {
                    return failure("move: no home '\(homeText)' (traitbridge home list names them)")
                }
                home = chosen.id
                placement.home = chosen.id.rawValue
            }
            if let text {
                do {
                    let room = try graph.room(named: text, addingTo: home)
                    try graph.assignDevice(id, to: room)
                } catch {
                    return failure("move: '\(text)' cannot be a room: \(error)")
                }
                placement.room = graph.room(of: id)?.name ?? text
            } else {
                placement.room = nil
                if let home = graph.home(home) { try? graph.assignDevice(id, to: home.defaultRoom.id) }
            }
        }
        layout.setPlacement(placement, of: id)
        applyPlacement(id, effects: &effects)
        effects.storeChanges.append(.placement(id, placement))
        storeAndPublish(id, now: now, effects: &effects)
        effects.log(
            .info,
            "\(operation): \(id.rawValue) is now '\(graph.devices[id]?.name ?? "")' in \(graph.room(of: id)?.name ?? "no room")",
            ["tb.device.id": id.rawValue])
        var answer = JSONObject()
        answer.append("status", .string("ok"))
        answer.append("device", .string(id.rawValue))
        answer.append("name", .string(graph.devices[id]?.name ?? ""))
        answer.append("room", graph.room(of: id).map { .string($0.name) } ?? .null)
        if graph.homes.count > 1, let home = graph.devices[id]?.homeID.flatMap({ graph.home($0) }) {
            answer.append("home", .string(home.name))  // said only where there is a choice of homes
        }
        return .object(answer)
    }

    /// Why `name` cannot be this device's name, or `nil`: names are what people type to the CLI,
    /// so they are printable, at most 64 characters, and no two devices share one.
    private func nameProblem(_ name: String, for id: DeviceID) -> String? {
        if name.isEmpty { return "the name is empty; give a name, or null to take the source's name again" }
        if name.count > 64 { return "'\(name.prefix(20))…' is \(name.count) characters; at most 64" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the name has a control character; use letters, digits, spaces and punctuation"
        }
        let key = NameRules.comparisonKey(name)
        if let other = graph.devices.values.first(where: { $0.id != id && NameRules.comparisonKey($0.name) == key }) {
            return
                "another device (\(other.id.rawValue)) is already called '\(other.name)'; names must tell devices apart"
        }
        return nil
    }
}
