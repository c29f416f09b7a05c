import FoundationEssentials
import TraitBridgeJSON
import TraitBridgeMapping
public import TraitBridgeModel

/// Matter nodes through a Matter Server, behind the plug-in boundary. Its messages come not from
/// the broker but from the server's WebSocket (``channel``), and the whole of the server's
/// protocol is here, pure: the edge client only carries text. It hands over every server message
/// on `matter/<instance>/message` and its connection's state on `matter/<instance>/server`
/// (`{"connected": true|false, "error": …}`), and sends what this plug-in publishes on
/// `matter/<instance>/command` as it is. On connect: the server's info (schema version checked),
/// `start_listening` (every node), then `node_added` / `node_updated` / `node_removed` /
/// `attribute_updated` events; commands carry a `message_id` so a refusal reaches the command.
/// The chain: server connection → node available → bridged endpoint `Reachable` → trait.
public struct MatterPlugin: SourcePlugin {
    public let source: MatterSource
    public let locality: TraitLocality
    public let staleness: Duration
    /// What each node became: its devices, the paths its traits read, each bridged device's endpoint.
    private var nodes: [UInt64: NodeState] = [:]
    private var deviceNodes: [DeviceID: UInt64] = [:]
    /// Commands sent and not answered, by message id (bounded: the oldest are forgotten).
    private var sent: [String: DeviceID] = [:]
    private var nextMessage = 0
    /// The `start_listening` of the current connection.
    private var listening: String?
    /// The server's URL, as the edge client said (named in reasons).
    private var serverURL = ""
    var serverOrigin: String { "Matter Server " + serverURL }
    /// The server schema versions this plug-in speaks (python-matter-server 7.0.x speaks 11).
    public static let schemaVersions: ClosedRange<Int64> = 9...11
    static let sentLimit = 1_000

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

    /// A server message may be the whole node list (`start_listening`): up to the list bound.
    public func carriesList(_ topic: String) -> Bool { topic == prefix + "message" }

    public mutating func receive(_ message: SourceMessage, into events: inout [SourceEvent]) {
        guard message.topic.hasPrefix(prefix) else { return }
        let kind = message.topic.dropFirst(prefix.count)
        // The node list of start_listening (20 MB for 1 000 nodes) is read one node at a time.
        if kind == "message", message.payload.count > Self.wholeParseBytes, listening != nil,
            answeredList(message, into: &events)
        {
            return
        }
        let root: JSON
        do {
            root = try JSONDocument.parse(message.payload, maxDepth: 64).root
        } catch {
            events.append(.log(.warning, "ignored a Matter Server message that is not JSON: \(error)", device: nil))
            return
        }
        guard root.kind == .object else {
            events.append(.log(.warning, "ignored a Matter Server message that is not an object", device: nil))
            return
        }
        switch kind {
        case "server":
            if let url = root["url"]?.string { serverURL = String(url.prefix(200)) }
            if root["connected"]?.bool == true {
                // The chain's first link is up; each node's own word comes with start_listening.
                events.append(.sourceAvailability(isOnline: true, origin: serverOrigin))
                events.append(.log(.info, "\(serverOrigin) connected", device: nil))
            } else {
                listening = nil
                events.append(.sourceAvailability(isOnline: false, origin: serverOrigin))
                let error = root["error"]?.string.map { ": \($0)" } ?? ""
                events.append(.log(.warning, "Matter Server disconnected\(error)", device: nil))
            }
        case "message":
            if root["schema_version"] != nil {
                serverInfo(root, into: &events)
            } else if let event = root["event"]?.string {
                self.event(event, root["data"], message: message, into: &events)
            } else if let id = root["message_id"]?.string {
                answer(id, root, message: message, into: &events)
            }
        default:
            break
        }
    }

    /// Messages larger than this are looked at for a node list before being parsed whole (two
    /// large nodes; low enough that the fuzzer's inputs reach the streamed path too).
    static let wholeParseBytes = 64 << 10

    /// `{"message_id": <start_listening's>, "result": [nodes]}` read without holding every node's
    /// tree at once; `false` when the message is something else (it is then parsed whole).
    private mutating func answeredList(_ message: SourceMessage, into events: inout [SourceEvent]) -> Bool {
        guard let range = JSONDocument.memberRange("result", inObject: message.payload),
            message.payload[range.lowerBound] == UInt8(ascii: "[")
        else { return false }
        var rest = Array(message.payload[..<range.lowerBound])
        rest += Array("null".utf8)
        rest += message.payload[range.upperBound...]
        guard let envelope = try? JSONDocument.parse(rest, maxDepth: 8).root,
            let id = envelope["message_id"]?.string, id == listening
        else { return false }
        var present: Set<UInt64> = []
        do {
            _ = try JSONDocument.forEachElement(ofArray: Array(message.payload[range]), maxDepth: 63) { _, element in
                if let node = node(element, message: message, into: &events) { present.insert(node) }
            }
        } catch {
            events.append(.log(.error, "the Matter Server's node list is not JSON: \(error)", device: nil))
            return true
        }
        finishListing(present, into: &events)
        return true
    }

    /// After the node list: the nodes it lacks are gone; the server is the source bridge again.
    private mutating func finishListing(_ present: Set<UInt64>, into events: inout [SourceEvent]) {
        for gone in nodes.keys.sorted() where !present.contains(gone) {
            remove(node: gone, reason: "the Matter Server no longer has node \(gone)", into: &events)
        }
        events.append(.sourceAvailability(isOnline: true, origin: serverOrigin))
        events.append(.log(.info, "Matter Server: \(present.count) nodes, \(deviceNodes.count) devices", device: nil))
    }

    /// The server's first message: its schema must be one we speak; then every node is asked for.
    private mutating func serverInfo(_ root: JSON, into events: inout [SourceEvent]) {
        let schema = root["schema_version"]?.int64 ?? 0
        let minimum = root["min_supported_schema_version"]?.int64 ?? schema
        guard Self.schemaVersions.contains(schema) || (minimum...max(minimum, schema)).overlaps(Self.schemaVersions)
        else {
            events.append(
                .log(
                    .error,
                    "the Matter Server speaks schema \(schema) (from \(minimum)); TraitBridge speaks "
                        + "\(Self.schemaVersions.lowerBound)–\(Self.schemaVersions.upperBound): run "
                        + "python-matter-server 7.0.x (schema 11), or a TraitBridge that speaks \(schema)",
                    device: nil))
            events.append(.sourceAvailability(isOnline: false, origin: serverOrigin))
            return
        }
        let id = "start-\(nextID())"
        listening = id
        events.append(
            .publish(
                SourceOutgoing(
                    topic: commandTopic,
                    payload: Array(#"{"message_id":"\#(id)","command":"start_listening"}"#.utf8))))
    }

    private mutating func nextID() -> Int {
        nextMessage += 1
        return nextMessage
    }

    private mutating func event(_ name: String, _ data: JSON?, message: SourceMessage, into events: inout [SourceEvent])
    {
        switch name {
        case "node_added", "node_updated":
            guard let data else { return }
            node(data, message: message, into: &events)
        case "node_removed":
            guard let id = data?.uint64 else { return }
            remove(node: id, reason: "node \(id) was removed from the Matter Server's fabric", into: &events)
        case "attribute_updated":
            guard let data else { return }
            attribute(data, into: &events)
        case "server_shutdown":
            events.append(.sourceAvailability(isOnline: false, origin: serverOrigin + " (shutting down)"))
        default:
            break  // node_event, endpoint_added/removed (a node_updated follows), server_info_updated
        }
    }

    /// An answer: the nodes of `start_listening`, or a command's result.
    private mutating func answer(_ id: String, _ root: JSON, message: SourceMessage, into events: inout [SourceEvent]) {
        if id == listening {
            guard let result = root["result"], result.kind == .array else {
                let details = root["details"]?.string ?? "no node list"
                events.append(.log(.error, "the Matter Server refused start_listening: \(details)", device: nil))
                return
            }
            var present: Set<UInt64> = []
            for element in result.elements {
                if let id = node(element, message: message, into: &events) { present.insert(id) }
            }
            for gone in nodes.keys.sorted() where !present.contains(gone) {
                remove(node: gone, reason: "the Matter Server no longer has node \(gone)", into: &events)
            }
            events.append(.sourceAvailability(isOnline: true, origin: serverOrigin))
            events.append(
                .log(.info, "Matter Server: \(present.count) nodes, \(deviceNodes.count) devices", device: nil))
            return
        }
        guard let device = sent.removeValue(forKey: id) else { return }
        guard let code = root["error_code"]?.int64 else { return }  // success: the attribute report confirms
        let details = root["details"]?.string ?? "no details"
        events.append(.commandFailed(device, "the Matter Server refused the command: \(details) (error \(code))"))
    }

    /// A node object; its id when it was one.
    @discardableResult
    private mutating func node(_ json: JSON, message: SourceMessage, into events: inout [SourceEvent]) -> UInt64? {
        var problems: [String] = []
        guard let node = MatterNode.parse(json, problems: &problems) else {
            events.append(.log(.warning, "ignored a Matter node: \(problems.joined(separator: "; "))", device: nil))
            return nil
        }
        for problem in problems { events.append(.log(.notice, "Matter node \(node.nodeID): \(problem)", device: nil)) }
        describe(node, message: message, into: &events)
        return node.nodeID
    }

    /// A whole node: (re)describes its devices when their shape changed, then its values and availability.
    private mutating func describe(_ node: MatterNode, message: SourceMessage, into events: inout [SourceEvent]) {
        let mapping = source.map(node)
        let previous = nodes[node.nodeID]
        let newDevices = mapping.devices.filter { previous?.devices[$0.device.id] == nil }.count
        // Nodes are bounded like devices (a bridge node with nothing of its own makes none).
        if newDevices > 0 && deviceNodes.count + newDevices > message.deviceLimit
            || previous == nil && nodes.count >= message.deviceLimit
        {
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
                var described = SourceDevice(device: device, stalenessBudget: staleness)
                described.traitDefinitions = mapping.traitDefinitions
                described.deviceTypeDefinitions = mapping.deviceTypeDefinitions
                events.append(.described(described))
            }
            events.append(.values(device.id, updates[device.id] ?? [], isNews: true))
            let reachable = endpoint.map { state.bridged[$0]?.isReachable ?? true } ?? true
            events.append(
                .availability(
                    device.sources[0], isOnline: node.isAvailable && reachable,
                    origin: Self.origin(node: node.nodeID, isAvailable: node.isAvailable, endpoint: endpoint)))
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
                events.append(
                    .availability(
                        device.sources[0], isOnline: state.isAvailable && isReachable,
                        origin: Self.origin(node: nodeID, isAvailable: state.isAvailable, endpoint: path.endpoint)))
            }
            return
        }
        guard let target = state.targets[path] else { return }
        events.append(
            .values(
                target.device,
                [
                    AttributeUpdate(
                        address: target.address, attribute: target.attribute, value: AttributeValue(json: value))
                ],
                isNews: true))
    }

    /// What decided a device's availability, for its reason: the node's `available`, or (the
    /// node being available) its bridged endpoint's `Reachable`.
    static func origin(node: UInt64, isAvailable: Bool, endpoint: UInt16?) -> String {
        guard isAvailable, let endpoint else { return "Matter node \(node) (available)" }
        return "Matter node \(node) endpoint \(endpoint) (Reachable)"
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
            let messageID = "cmd-\(nextID())"
            if sent.count >= Self.sentLimit,
                let oldest = sent.keys.min(by: { $0.count < $1.count || $0.count == $1.count && $0 < $1 })
            {
                sent.removeValue(forKey: oldest)
            }
            sent[messageID] = id
            let json = command.json(node: nodeID, messageID: messageID)
            outgoing.append(SourceOutgoing(topic: commandTopic, payload: json.serializedBytes()))
        }
        return outgoing
    }
}
