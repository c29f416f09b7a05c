import Foundation
import TraitBridgeEngine
import TraitBridgeHTTP
import TraitBridgeJSON
import TraitBridgeModel
import TraitBridgeSimulator

/// The demo's steps that make the home what the scenario says: the partner cloud's link awaited, and
/// the names and rooms given as a user gives them.
extension DemoCommand {
    /// Waits (≤ 30 s) until the link has SYNCed and QUERYed the partner's devices, then says
    /// which joined a device of the home (the same physical device, by its IEEE address).
    func waitForLink(_ partner: DemoCloud, _ cloudHome: Scenario, bridge: Bridge) {
        let style = TerminalStyle.standardError
        let deadline = ContinuousClock.now + .seconds(30)
        var answered = 0
        while ContinuousClock.now < deadline, !Interruption.isRequested {
            let snapshot = bridge.snapshot
            let ids = snapshot.linkDeviceIDs(partner.link.name)
            answered =
                snapshot.graph.devices.values.filter { device in
                    device.traitAddresses.contains { address in
                        device.trait(at: address)?.source?.instance == partner.link.name
                            && device.trait(at: address)?.connectivity.state == .online
                    }
                }.count
            let total = cloudHome.devices.count
            style.progress("linking to the partner cloud: \(ids.count)/\(total) devices, \(answered) answered")
            if ids.count >= cloudHome.devices.count && answered >= cloudHome.devices.count { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        style.endProgress()
        let merged = bridge.snapshot.graph.devices.values.filter { device in
            let instances = Set(device.sources.map(\.instance))
            return instances.contains(partner.link.name) && instances.count > 1
        }.map(\.name).sorted()
        say(
            "== linked to the partner cloud (cloud link \(partner.link.name)): \(answered) devices, remote"
                + (merged.isEmpty ? "" : "; merged with the home's: " + merged.joined(separator: ", ")))
    }

    /// zigbee2mqtt, Tasmota and Shelly know no rooms, and a Shelly announces only its id: the
    /// scenario's names and rooms are given the way a user gives them (`rename`, `move`).
    func place(_ home: Scenario, in bridge: Bridge, connection: ConnectionOptions) throws {
        let graph = bridge.snapshot.graph
        let ids = graph.devices.keys.sorted()
        var renamed = 0
        var moved = 0
        for device in home.devices where device.deviceProtocol != .cam2mqtt {
            let matches = ids.filter { id in
                guard let known = graph.devices[id] else { return false }
                return known.name == device.name || known.sources.contains { $0.nativeID == device.id }
            }
            guard let id = matches.first, let known = graph.devices[id] else { continue }
            var requests: [(String, JSONObject)] = []
            if known.name != device.name {
                requests.append(("rename", ["device": .string(id.rawValue), "name": .string(device.name)]))
            }
            if let room = device.room, device.deviceProtocol != .homeAssistant, graph.room(of: id)?.name != room {
                requests.append(("move", ["device": .string(id.rawValue), "room": .string(room)]))
            }
            for (operation, request) in requests {
                _ = try BridgeRequest.json(
                    operation, payload: JSONValue.object(request).serializedBytes(), connection: connection)
                if operation == "rename" { renamed += 1 } else { moved += 1 }
            }
        }
        guard renamed + moved > 0 else { return }
        say(
            "== named \(renamed) and placed \(moved) devices as the scenario says, as you would with "
                + "`traitbridge rename` and `traitbridge move` (zigbee2mqtt, Tasmota and Shelly know no rooms)"
        )
    }
}
