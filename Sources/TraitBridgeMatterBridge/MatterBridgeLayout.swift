public import TraitBridgeMatterDevice
public import TraitBridgeModel
public import TraitBridgeStore

/// The bridge node's endpoints above the root: the aggregator (endpoint 1) and every offered device's
/// endpoints, numbered as the registry keeps them. Devices in, endpoints out: given the devices that
/// changed (nil: gone or no longer offered), it says which endpoints changed, which went, and which
/// numbers it gave for the first time (for the registry). Numbers and UniqueIDs never change for a
/// device and are never given to another; a device that leaves and returns gets its own back.
public struct MatterBridgeLayout: Sendable {
    public static let aggregatorID: UInt16 = 1

    /// What an update did.
    public struct Change: Sendable {
        /// Endpoints added or changed (the aggregator when its parts changed).
        public var changed: [BridgedEndpoint] = []
        /// Endpoints that went.
        public var removed: Set<UInt16> = []
        /// Numbers given for the first time: the registry must keep them.
        public var assigned: [MatterEndpointAssignment] = []
        /// Keys left without an endpoint: every number is taken.
        public var exhausted: [String] = []

        public var isEmpty: Bool { changed.isEmpty && removed.isEmpty }
    }

    /// Where a controller's request on an endpoint goes.
    public struct Target: Sendable, Hashable {
        public var device: DeviceID
        public var deviceTypeKey: String
    }

    public let planner: BridgedDevicePlanner
    /// The bridge (1…16) whose node this is: its numbers are its own.
    public let bridge: Int
    private var assignments: [String: MatterEndpointAssignment]
    private var served: [String: BridgedEndpoint] = [:]
    private var keysByDevice: [DeviceID: [String]] = [:]
    /// Endpoints to give again at the next update even when unchanged (a refused write changed the node's copy).
    private var resending: Set<String> = []
    public private(set) var targets: [UInt16: Target] = [:]
    /// The device each endpoint belongs to (a composed device's top included).
    public private(set) var owners: [UInt16: DeviceID] = [:]
    public private(set) var aggregator = BridgedEndpoint(
        id: MatterBridgeLayout.aggregatorID, deviceTypes: [BridgedDevicePlanner.aggregator])

    /// Bridge `bridge`'s layout with no device yet, numbering as `assignments` (the registry's) say;
    /// those of other bridges are left out.
    public init(planner: BridgedDevicePlanner, assignments: [MatterEndpointAssignment], bridge: Int = 1) {
        self.planner = planner
        self.bridge = bridge
        self.assignments = Dictionary(assignments.filter { $0.bridge == bridge }.map { ($0.key, $0) }) { first, _ in
            first
        }
    }

    /// Every endpoint served now, the aggregator first.
    public var endpoints: [BridgedEndpoint] { [aggregator] + served.values.sorted { $0.id < $1.id } }

    /// The devices that have endpoints now.
    public var deviceIDs: Set<DeviceID> { Set(keysByDevice.keys) }

    /// Whether the device `id` has endpoints now.
    public func serves(_ id: DeviceID) -> Bool { keysByDevice[id] != nil }

    /// The endpoints of the device `id` (top first), for `matter show` and the log.
    public func endpoints(of id: DeviceID) -> [UInt16] {
        (keysByDevice[id] ?? []).compactMap { served[$0]?.id }
    }

    /// Takes the devices that changed: a device is planned again; nil takes its endpoints away.
    public mutating func update(
        _ devices: [DeviceID: Device?], using generator: inout some RandomNumberGenerator
    ) -> Change {
        var change = Change()
        var plans: [DeviceID: [PlannedEndpoint]] = [:]
        for (id, device) in devices { plans[id] = device.map(planner.plan) ?? [] }
        let keys = plans.keys.sorted { $0.rawValue < $1.rawValue }.flatMap { plans[$0]?.map(\.key) ?? [] }
        let missing = keys.filter { assignments[$0] == nil }
        if !missing.isEmpty {
            let result = DeviceStore.assignMatterEndpoints(
                for: missing, existing: Array(assignments.values), bridge: bridge, using: &generator)
            for assignment in result.new { assignments[assignment.key] = assignment }
            change.assigned = result.new
            change.exhausted = result.exhausted
        }
        for (id, plan) in plans {
            let kept = Set(plan.map(\.key).filter { assignments[$0] != nil })
            for key in keysByDevice[id] ?? [] where !kept.contains(key) {
                if let gone = served.removeValue(forKey: key) {
                    change.removed.insert(gone.id)
                    (targets[gone.id], owners[gone.id]) = (nil, nil)
                }
            }
            keysByDevice[id] = plan.map(\.key).filter(kept.contains)
            for planned in plan {
                guard let endpoint = endpoint(planned, in: plan) else { continue }
                owners[endpoint.id] = id
                if let key = planned.deviceTypeKey {
                    targets[endpoint.id] = Target(device: id, deviceTypeKey: key)
                }
                if served[planned.key] != endpoint || resending.remove(planned.key) != nil {
                    served[planned.key] = endpoint
                    change.changed.append(endpoint)
                }
            }
            if keysByDevice[id]?.isEmpty == true { keysByDevice[id] = nil }
        }
        let parts = served.values.map(\.id).sorted()
        if aggregator.parts != parts {
            aggregator.parts = parts
            change.changed.insert(aggregator, at: 0)
        }
        return change
    }

    /// The device's endpoints are given again at its next update, changed or not: a controller's
    /// refused request changed the node's copy, which the device's state must replace.
    public mutating func resend(_ id: DeviceID) {
        resending.formUnion(keysByDevice[id] ?? [])
    }

    /// The planned endpoint with its number, its children's numbers and its UniqueID; nil without a number.
    private func endpoint(_ planned: PlannedEndpoint, in plan: [PlannedEndpoint]) -> BridgedEndpoint? {
        guard let assignment = assignments[planned.key] else { return nil }
        let parts = plan.filter { $0.parent == planned.key }.compactMap { assignments[$0.key]?.endpoint }
        var clusters = planned.clusters
        if let information = planned.information { clusters.append(information.cluster(uniqueID: assignment.uniqueID)) }
        return BridgedEndpoint(
            id: assignment.endpoint, deviceTypes: planned.deviceTypes, parts: parts.sorted(), clusters: clusters)
    }
}
