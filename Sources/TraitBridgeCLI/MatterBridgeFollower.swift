import Foundation
import Logging
import Synchronization
import TraitBridgeCloud
import TraitBridgeEngine
import TraitBridgeJSON
import TraitBridgeMapping
import TraitBridgeMatterBridge
import TraitBridgeMatterCodec
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeModel
import TraitBridgeStore

/// What serve's Matter bridges share: which bridge serves each device (``MatterBridgeSplit``), each
/// bridge's layout and device server, and the devices changed since the last sync. A sync hands each
/// server its changed endpoints; a controller's command or write goes into the unified command path and
/// its answer back to the server that asked. Owns the split and the layouts; the servers run elsewhere.
final class MatterBridgeFollower: Sendable {
    let bridge: Bridge
    let store: DeviceStore
    let selection: MatterBridgeSelection
    let logger: Logger
    /// Asks the coordinator to start the bridge of that number (a split needs it and it is not running).
    let needs: @Sendable (Int) -> Void

    struct Nodes: Sendable {
        var split: MatterBridgeSplit
        var layouts: [Int: MatterBridgeLayout] = [:]
        var servers: [Int: MatterDeviceServer] = [:]
        /// The endpoint assignments the registry kept, for bridges not laid out yet.
        var kept: [MatterEndpointAssignment]
        let planner: BridgedDevicePlanner
        /// Bridges asked for and not running yet.
        var asked: Set<Int> = []
        var saidLeftOut = 0
    }

    let nodes: Mutex<Nodes>
    /// Devices changed since the last sync; nil: every device (the first sync).
    let changed = Mutex<Set<DeviceID>?>(nil)

    init(
        bridge: Bridge, store: DeviceStore, planner: BridgedDevicePlanner, split: MatterBridgeSplit,
        kept: [MatterEndpointAssignment], rules: ExportRules, logger: Logger, needs: @escaping @Sendable (Int) -> Void
    ) {
        self.bridge = bridge
        self.store = store
        self.selection = MatterBridgeSelection(rules: rules)
        self.logger = logger
        self.needs = needs
        nodes = Mutex(Nodes(split: split, kept: kept, planner: planner))
    }

    /// Gives each server the endpoints of the devices changed since the last call, and puts each new
    /// device on a bridge.
    func sync() {
        let ids = changed.withLock { changed in
            defer { changed = [] }
            return changed
        }
        guard ids?.isEmpty != true else { return }
        // One sync at a time, from reading the state to handing the endpoints over: two at once (the
        // follow loop, a refused request) must not hand a server an older state after a newer one.
        let wanted = nodes.withLock { nodes -> [Int] in
            let graph = bridge.snapshot.graph
            let every = ids == nil
            var all = ids ?? Set(graph.devices.keys)
            if every { for layout in nodes.layouts.values { all.formUnion(layout.deviceIDs) } }
            var offered: [DeviceID: Device] = [:]
            var changes: [DeviceID: Bool] = [:]
            for id in all {
                let device = graph.devices[id].flatMap {
                    selection.offers($0, room: graph.room(of: $0.id)?.name) ? $0 : nil
                }
                offered[id] = device
                changes[id] = device != nil
            }
            let moves = nodes.split.offer(changes)
            keep(moves)
            var perBridge: [Int: [DeviceID: Device?]] = [:]
            for id in all.union(moves.keys) {
                let to = nodes.split.bridgeOf[id]
                if let to, let device = offered[id] ?? graph.devices[id] { perBridge[to, default: [:]][id] = device }
                for (number, layout) in nodes.layouts where number != to && layout.serves(id) {
                    perBridge[number, default: [:]][id] = .some(nil)
                }
            }
            var wanted: [Int] = []
            var generator = SystemRandomNumberGenerator()
            for (number, devices) in perBridge.sorted(by: { $0.key < $1.key }) {
                if nodes.layouts[number] == nil {
                    nodes.layouts[number] = MatterBridgeLayout(
                        planner: nodes.planner, assignments: nodes.kept, bridge: number)
                }
                guard let change = nodes.layouts[number]?.update(devices, using: &generator) else { continue }
                keep(change, bridge: number)
                if let server = nodes.servers[number] {
                    server.replace(change.changed, removing: change.removed)
                } else if nodes.asked.insert(number).inserted {
                    wanted.append(number)
                }
            }
            if nodes.split.leftOut != nodes.saidLeftOut {
                nodes.saidLeftOut = nodes.split.leftOut
                if nodes.split.leftOut > 0 {
                    logger.warning(
                        """
                        Matter: \(nodes.split.leftOut) device(s) are not offered: \(MatterBridgeSplit.bridgeLimit) \
                        bridges are full; raise matterBridge.devicesPerBridge or narrow its include/exclude
                        """)
                }
            }
            return wanted
        }
        for number in wanted { needs(number) }
    }

    /// Hands bridge `number`'s server over (made from ``endpoints(of:)`` under the same lock, so no sync
    /// falls between them).
    func attach(_ number: Int, make: ([BridgedEndpoint]) throws -> MatterDeviceServer) rethrows -> MatterDeviceServer {
        try nodes.withLock { nodes in
            if nodes.layouts[number] == nil {
                nodes.layouts[number] = MatterBridgeLayout(
                    planner: nodes.planner, assignments: nodes.kept, bridge: number)
            }
            let server = try make(nodes.layouts[number]?.endpoints ?? [])
            nodes.servers[number] = server
            nodes.asked.remove(number)
            return server
        }
    }

    /// What bridge `number`'s server hands a controller's request to.
    func forwarder(_ number: Int) -> @Sendable (EndpointRequest) -> Void {
        { [self] request in forward(request, bridge: number) }
    }

    /// The servers running now, by bridge number.
    var servers: [Int: MatterDeviceServer] { nodes.withLock { $0.servers } }

    /// Keeps which bridge serves each device that moved.
    private func keep(_ moves: [DeviceID: (from: Int?, to: Int?)]) {
        guard !moves.isEmpty else { return }
        var changes: [String: Int?] = [:]
        for (id, move) in moves {
            changes[id.rawValue] = move.to
            if let from = move.from, let to = move.to {
                logger.notice("Matter: \(id) moves from bridge \(from) to bridge \(to) (its bridge is full)")
            }
        }
        do { try store.updateMatterBridgeDevices(changes) } catch {
            logger.error("Matter: which bridge serves each device was not kept (\(error)): a restart may move some")
        }
    }

    /// Writes the numbers given for the first time to the registry, and says what was left out.
    private func keep(_ change: MatterBridgeLayout.Change, bridge number: Int) {
        if !change.assigned.isEmpty {
            do {
                try store.saveMatterEndpoints(change.assigned, now: Date())
            } catch {
                logger.error("Matter: the endpoint numbers given were not kept (\(error)): a restart may renumber")
            }
            let on = number == 1 ? "" : " on bridge \(number)"
            for assignment in change.assigned {
                logger.info("Matter: \(assignment.key) is endpoint \(assignment.endpoint)\(on)")
            }
        }
        if !change.exhausted.isEmpty {
            let count = change.exhausted.count
            logger.warning("Matter: bridge \(number) has no endpoint number left: \(count) left out (`matter reset`)")
        }
    }

    /// A controller's command or write on bridge `number`: into the unified command path; a refusal gives
    /// the device's endpoints again.
    func forward(_ request: EndpointRequest, bridge number: Int) {
        if request.cluster == BridgedInformation.clusterID,
            case .write(BridgedInformation.Attribute.nodeLabel, let value) = request.action,
            case TLVValue.string(let name) = value
        {
            return rename(endpoint: request.endpoint, on: number, to: name)
        }
        let (planner, target) = nodes.withLock { ($0.planner, $0.layouts[number]?.targets[request.endpoint]) }
        guard let target else {
            let endpoint = "endpoint \(request.endpoint) of bridge \(number)"
            logger.warning("Matter: a request for \(endpoint), which no device serves, is dropped")
            answer(request, on: number, .failure)
            return
        }
        let unified: UnifiedRequest
        switch planner.unified(request, deviceTypeKey: target.deviceTypeKey) {
        case .success(let found): unified = found
        case .failure(let error):
            logger.warning("Matter: a request for \(target.device) was not carried out: \(error)")
            answer(request, on: number, .failure)
            return
        }
        Task {
            let reply = await bridge.command(target.device, payload: Self.payload(unified).serializedBytes())
            let root = try? JSONDocument.parse(reply).root
            let status = root?["status"]?.string ?? "no answer"
            let matterStatus = MatterCommandStatus.of(status: status, code: root?["code"]?.string)
            answer(request, on: number, matterStatus)
            logger.info("Matter: a controller's \(Self.describe(unified)) for \(target.device): \(status)")
            if matterStatus != .success {
                let reason = root?["message"]?.string ?? status
                logger.warning(
                    "Matter: \(target.device) refused \(Self.describe(unified)) (\(matterStatus)): \(reason)")
                resend(target.device, on: number)
            }
        }
    }

    /// A controller wrote a device's NodeLabel: the device is renamed (kept in the registry, as
    /// `traitbridge rename` does); a refused name gives the endpoint its name back.
    private func rename(endpoint: UInt16, on number: Int, to name: String) {
        guard let device = nodes.withLock({ $0.layouts[number]?.owners[endpoint] }) else { return }
        let payload: JSONValue = ["device": .string(device.rawValue), "name": .string(name)]
        Task {
            let reply = await bridge.request("rename", payload: payload.serializedBytes())
            let root = try? JSONDocument.parse(reply).root
            if root?["status"]?.string == "error" {
                let reason = root?["message"]?.string ?? "refused"
                logger.warning("Matter: a controller's name for \(device) was not taken: \(reason)")
                resend(device, on: number)
            } else {
                logger.info("Matter: a controller renamed \(device) \"\(name)\"")
                changed.withLock { _ = $0?.insert(device) }
                sync()
            }
        }
    }

    /// The device's endpoints on bridge `number` are given again (the node's copy took what was refused).
    private func resend(_ device: DeviceID, on number: Int) {
        nodes.withLock { _ = $0.layouts[number]?.resend(device) }
        changed.withLock { _ = $0?.insert(device) }
        sync()
    }

    /// The controller's answer to a request that waits for it (a command with a token).
    private func answer(_ request: EndpointRequest, on number: Int, _ status: StatusCode) {
        guard let token = request.token else { return }
        nodes.withLock { $0.servers[number] }?.complete(token, status: status)
    }

    static func payload(_ request: UnifiedRequest) -> JSONValue {
        var object: JSONObject = [
            "deviceType": .string(request.deviceTypeKey), "trait": .string(request.trait.description),
        ]
        switch request.action {
        case .invoke(let command, let arguments):
            object["command"] = .string(command)
            var fields = JSONObject()
            for (name, value) in arguments.sorted(by: { $0.key < $1.key }) { fields[name] = value.jsonValue }
            if !arguments.isEmpty { object["arguments"] = .object(fields) }
        case .write(let attribute, let value):
            object["attribute"] = .string(attribute)
            object["value"] = value.jsonValue
        }
        return .object(object)
    }

    static func describe(_ request: UnifiedRequest) -> String {
        switch request.action {
        case .invoke(let command, _): "\(request.trait).\(command)"
        case .write(let attribute, _): "\(request.trait).\(attribute) write"
        }
    }
}
