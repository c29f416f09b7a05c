import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// Matter nodes through a Matter Server, behind the plug-in boundary. Its messages come not from
/// the broker but from the server's WebSocket (``channel``): the edge client turns the server's
/// answers and events into messages on topics under `matter/<instance>/` —
/// `server` (`{"connected": …}`: the source bridge), `node` (a whole node: `start_listening`,
/// `node_added`, `node_updated`), `nodes` (the ids the server holds, after `start_listening`),
/// `attribute` (`[node, "e/c/a", value]`), `removed` (a node id) and `result` (a command the
/// server refused) — and sends what this plug-in publishes on `matter/<instance>/command` as
/// WebSocket commands. The chain: server connection → node available → bridged endpoint
/// `Reachable` → trait.
public struct MatterPlugin: SourcePlugin {
    public let source: MatterSource
    public let locality: TraitLocality
    public let staleness: Duration
    /// What each node became: its devices, the paths its traits read, each bridged device's endpoint.
    private var nodes: [UInt64: NodeState] = [:]
    private var deviceNodes: [DeviceID: UInt64] = [:]

    struct NodeState {
        var isAvailable: Bool
        var devices: [DeviceID: Device]
        var targets: [MatterPath: MatterSource.Target]
        var endpoints: [DeviceID: [String: UInt16]]
        /// Bridged devices by their Bridged Node endpoint, with its last `Reachable`.
        var bridged: [UInt16: (id: DeviceID, isReachable: Bool)]
    }

    public init(source: MatterSource, locality: TraitLocality = .localPeer, staleness: Duration = .seconds(86_400)) {
        self.source = source
        self.locality = locality
        self.staleness = staleness
    }

    public var family: String { MatterSource.family }
    public var instance: String { source.instance }
    public var channel: String? { "matter/" + source.instance }
    public var subscriptions: [String] { [] }
    public var deviceIDs: [DeviceID] { deviceNodes.keys.sorted() }
    public var deviceCount: Int { deviceNodes.count }
    var prefix: String { "matter/" + source.instance + "/" }
    /// Where commands go (the edge client sends them to the server).
    public var commandTopic: String { prefix + "command" }

    public func claims(_ topic: String) -> Bool { topic.hasPrefix(prefix) }

    public func carriesList(_ topic: String) -> Bool { topic == prefix + "nodes" }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard message.topic.hasPrefix(prefix) else { return }
        let kind = message.topic.dropFirst(prefix.count)
        let root: JSON
        do {
            root = try JSONDocument.parse(message.payload).root
        } catch {
            events.append(.log(.warning, "ignored a Matter Server message that is not JSON: \(error)", device: nil))
            return
        }
        switch kind {
        case "server":
            events.append(.sourceAvailability(isOnline: root["connected"]?.bool == true))
        case "node":
            var problems: [String] = []
            guard let node = MatterNode.parse(root, problems: &problems) else {
                events.append(.log(.warning, "ignored a Matter node: \(problems.joined(separator: "; "))", device: nil))
                return
            }
            for problem in problems { events.append(.log(.notice, "Matter node \(node.nodeID): \(problem)", device: nil)) }
            describe(node, message: message, into: &events)
        case "nodes":
            guard root.kind == .array else {
                events.append(.log(.warning, "ignored a node list that is not an array of node ids", device: nil))
                return
            }
            let present = Set(root.elements.compactMap(\.uint64))
            for gone in nodes.keys.sorted() where !present.contains(gone) {
                remove(node: gone, reason: "the Matter Server no longer has node \(gone)", into: &events)
            }
        case "attribute":
            attribute(root, into: &events)
        case "removed":
            guard let id = root.uint64 else { return }
            remove(node: id, reason: "node \(id) was removed from the Matter Server's fabric", into: &events)
        case "result":
            let device = root["device"]?.string.flatMap { try? DeviceID($0) }
            let details = root["details"]?.string ?? "no details"
            let code = root["error_code"]?.int64.map(String.init) ?? "?"
            let text = "the Matter Server refused \(root["command"]?.string ?? "a command"): \(details) (error \(code))"
            if let device {
                events.append(.commandFailed(device, text))
            } else {
                events.append(.log(.warning, text, device: nil))
            }
        default:
            break
        }
    }

    /// A whole node: (re)describes its devices when their shape changed, then its values and availability.
    private mutating func describe(_ node: MatterNode, message: SourceMessage, into events: inout [SourceEvent]) {
        let mapping = source.map(node)
        let previous = nodes[node.nodeID]
        let newDevices = mapping.devices.filter { previous?.devices[$0.device.id] == nil }.count
        if newDevices > 0, deviceNodes.count + newDevices > message.deviceLimit {
            events.append(.refusedDevice("Matter node \(node.nodeID): \(deviceNodes.count) devices are known already"))
            return
        }
        if previous == nil || mapping.problems.count > 0 && previous?.targets.count != mapping.targets.count {
            for problem in mapping.problems { events.append(.log(.info, "Matter \(problem)", device: nil)) }
        }
        var state = NodeState(
            isAvailable: node.isAvailable, devices: [:], targets: mapping.targets, endpoints: mapping.endpoints,
            bridged: [:])
        for (device, endpoint) in mapping.devices {
            state.devices[device.id] = device
            if let endpoint {
                state.bridged[endpoint] = (device.id, source.isReachable(node, endpoint: endpoint))
            }
        }
        for gone in previous?.devices.keys.sorted() ?? [] where state.devices[gone] == nil {
            deviceNodes.removeValue(forKey: gone)
            events.append(.removed(gone, reason: "node \(node.nodeID) no longer has it"))
        }
        nodes[node.nodeID] = state
        let updates = source.updates(node, targets: mapping.targets)
        for (device, endpoint) in mapping.devices {
            deviceNodes[device.id] = node.nodeID
            if previous?.devices[device.id] != device {
                events.append(.described(SourceDevice(device: device, stalenessBudget: staleness)))
            }
            events.append(.values(device.id, updates[device.id] ?? [], isNews: true))
            let reachable = endpoint.map { state.bridged[$0]?.isReachable ?? true } ?? true
            events.append(
                .availability(device.sources[0], isOnline: node.isAvailable && reachable))
        }
    }

    /// `[node, "e/c/a", value]`: a value, or a bridged endpoint's `Reachable`.
    private mutating func attribute(_ root: JSON, into events: inout [SourceEvent]) {
        guard root.kind == .array, root.count == 3, let nodeID = root[0]?.uint64,
            let path = root[1]?.string.flatMap({ MatterPath(Substring($0)) }), let value = root[2]
        else {
            events.append(.log(.notice, "ignored an attribute update not shaped [node, \"e/c/a\", value]", device: nil))
            return
        }
        guard var state = nodes[nodeID] else { return }  // a node not described yet: its whole node comes next
        if path.cluster == MatterCluster.bridgedDeviceBasicInformation, path.attribute == 17,
            let bridged = state.bridged[path.endpoint], let isReachable = value.bool
        {
            state.bridged[path.endpoint]?.isReachable = isReachable
            nodes[nodeID] = state
            if let device = state.devices[bridged.id] {
                events.append(.availability(device.sources[0], isOnline: state.isAvailable && isReachable))
            }
            return
        }
        guard let target = state.targets[path] else { return }
        events.append(
            .values(
                target.device,
                [AttributeUpdate(address: target.address, attribute: target.attribute, value: AttributeValue(json: value))],
                isNews: true))
    }

    private mutating func remove(node id: UInt64, reason: String, into events: inout [SourceEvent]) {
        guard let state = nodes.removeValue(forKey: id) else { return }
        for device in state.devices.keys.sorted() {
            deviceNodes.removeValue(forKey: device)
            events.append(.removed(device, reason: reason))
        }
    }

    public mutating func commands(for writes: [AttributeUpdate], on id: DeviceID) throws(SourceCommandError)
        -> [SourceOutgoing]
    {
        guard let nodeID = deviceNodes[id], let state = nodes[nodeID], let keys = state.endpoints[id] else {
            throw .notSupported("Matter device '\(id)' is not known to the Matter Server connection now")
        }
        var outgoing: [SourceOutgoing] = []
        for command in try MatterCommands.plan(writes, catalog: source.catalog, endpoints: keys) {
            let json = command.json(node: nodeID, device: id.rawValue)
            outgoing.append(SourceOutgoing(topic: commandTopic, payload: json.serializedBytes()))
        }
        return outgoing
    }
}
