import FoundationEssentials
import TraitBridgeModel
import TraitBridgeSources

/// What a source says of a device beside its values: its own availability word, the room it suggests.
extension BridgeState {
    /// What a source reference's own availability word said.
    mutating func referenceAvailability(
        _ reference: SourceReference, isOnline: Bool?, plugin: Int, topic: String, isTopic: Bool = true, now: Date,
        effects: inout BridgeEffects
    ) {
        let status: LinkState.Status = isOnline.map { $0 ? .up : .down } ?? .unknown
        let availability = LinkState(status: status, since: now, origin: topic, originIsTopic: isTopic)
        // A reference not described yet (a Shelly's `online` came first) is kept for when it is.
        guard
            directory.setAvailability(
                reference, availability, plugin: plugin, locality: sources[plugin].locality,
                staleness: sources[plugin].staleness)
        else { return }
        if let target = directory.target(of: reference) {
            refresh(target, now: now, effects: &effects)
        }
    }

    /// A room the source suggests (HA's `suggested_area`): the device goes there, once — a device
    /// the user already placed stays where it is.
    mutating func placeInSuggestedArea(_ id: DeviceID, _ area: String, effects: inout BridgeEffects) {
        guard let device = graph.devices[id], device.roomID == nil, let homeID = device.homeID else { return }
        // HA areas are often written as ids (`living_room`): a room name has spaces instead.
        let area = String(area.map { $0 == "_" || $0 == "-" ? " " : $0 })
        do {
            try graph.assignDevice(id, to: graph.room(named: area, addingTo: homeID))
        } catch {
            effects.log(
                .notice, "suggested_area '\(area)' is not a valid room name: \(error)", ["tb.device.id": id.rawValue])
        }
    }
}
