public import TraitBridgeModel
public import TraitBridgeStore

/// Which of serve's Matter bridges serves each offered device, when there are more devices than one
/// bridge is given (`devicesPerBridge`: controllers limit the devices of a bridge — Apple Home about
/// 150, Alexa fewer). A device stays on the bridge it was first put on while that bridge has room
/// (moving it would make every controller forget its room and automations), a new one goes to the
/// first bridge with room (``BridgeAssignment``). Devices in, moves out: the split is made again only
/// when the set of offered devices changes, so a device's value changing costs a dictionary look-up.
public struct MatterBridgeSplit: Sendable {
    /// Bridges at most (16 × `devicesPerBridge`); devices beyond are left out and counted.
    public static let bridgeLimit = bridgeRange.upperBound
    /// The bridge numbers: those the registry keeps.
    public static let bridgeRange = DeviceStore.matterBridgeRange

    private var assignment: BridgeAssignment
    private var offered: Set<DeviceID> = []
    /// The bridge (1…``bridgeLimit``) of each offered device that has room on one.
    public private(set) var bridgeOf: [DeviceID: Int] = [:]
    /// Offered devices no bridge has room for.
    public private(set) var leftOut = 0

    /// A split of bridges of `capacity` devices; `serving` (device id → bridge: the registry's last split)
    /// puts each device back where it was served, and `kept` (every bridge's endpoint assignments) sends
    /// one that comes back to the first bridge that numbered it.
    public init(capacity: Int, serving: [String: Int], kept: [MatterEndpointAssignment]) {
        var offeredBy: [[String]] = []
        var keptBy: [[String]] = []
        func add(_ key: String, to bridge: Int, _ lists: inout [[String]]) {
            guard Self.bridgeRange.contains(bridge) else { return }
            while lists.count < bridge { lists.append([]) }
            lists[bridge - 1].append(key)
        }
        for (device, bridge) in serving.sorted(by: { $0.key < $1.key }) { add(device, to: bridge, &offeredBy) }
        for assignment in kept.sorted(by: { ($0.bridge, $0.endpoint) < ($1.bridge, $1.endpoint) }) {
            add(String(assignment.key.prefix { $0 != "/" }), to: assignment.bridge, &keptBy)
        }
        assignment = BridgeAssignment(
            capacity: capacity, bridgeLimit: Self.bridgeLimit, offered: offeredBy, kept: keptBy)
    }

    /// The bridges that serve a device now, ascending.
    public var bridges: [Int] { Set(bridgeOf.values).sorted() }

    /// Takes which devices are offered now (true) and which are not (false; gone, or no longer allowed).
    /// Returns the devices whose bridge changed (nil: none serves it now), with the bridge they left.
    public mutating func offer(
        _ changes: [DeviceID: Bool]
    ) -> [DeviceID: (from: Int?, to: Int?)] {
        var membershipChanged = false
        for (id, isOffered) in changes {
            let changedNow = isOffered ? offered.insert(id).inserted : offered.remove(id) != nil
            membershipChanged = membershipChanged || changedNow
        }
        guard membershipChanged else { return [:] }
        let ids = Dictionary(offered.map { ($0.rawValue, $0) }) { first, _ in first }
        let split = assignment.assign(ids.keys.sorted())
        var now: [DeviceID: Int] = [:]
        now.reserveCapacity(offered.count)
        for (index, keys) in split.bridges.enumerated() {
            for key in keys { if let id = ids[key] { now[id] = index + 1 } }
        }
        var moves: [DeviceID: (from: Int?, to: Int?)] = [:]
        for (id, bridge) in now where bridgeOf[id] != bridge { moves[id] = (bridgeOf[id], bridge) }
        for (id, bridge) in bridgeOf where now[id] == nil { moves[id] = (bridge, nil) }
        bridgeOf = now
        leftOut = split.leftOut
        return moves
    }
}
