/// Which bridge offers which device when there are more than one bridge holds (HAP: 149 bridged
/// accessories; a Matter bridge: its `devicesPerBridge`); shared by the HomeKit and Matter bridges.
/// An accessory stays on the bridge it was first put on while that bridge has room —
/// moving it would make the Home app forget its room, name and automations — and a new one goes to
/// the first bridge with room. Pure: the coordinator seeds it from the bridges' kept ids and asks it
/// again whenever the offered accessories change. Linear in the accessories offered.
public struct BridgeAssignment: Sendable, Equatable {
    /// Accessories per bridge (1…149).
    public let capacity: Int
    /// Bridges at most; accessories beyond `capacity × bridgeLimit` are left out (and counted).
    public let bridgeLimit: Int
    /// Accessory key → its bridge (1-based), kept for accessories not offered now too: one that comes
    /// back goes back to its bridge.
    private var bridgeOfKey: [String: Int] = [:]
    /// The keys the last assignment placed: they keep their place before any that comes back.
    private var placed: Set<String> = []

    /// The result of one assignment: the keys of each bridge (index 0 is bridge 1), and how many
    /// offered keys found no room.
    public struct Split: Sendable, Equatable {
        public var bridges: [Set<String>]
        public var leftOut: Int

        public init(bridges: [Set<String>], leftOut: Int) {
            self.bridges = bridges
            self.leftOut = leftOut
        }
    }

    /// `offered[i]`: the keys bridge i+1 offered when it last ran (they stay first); `kept[i]`: the
    /// keys it ever gave an accessory id (one of those not offered anywhere goes back to the first
    /// bridge that gave it one). Both from the bridges' identities.
    public init(capacity: Int, bridgeLimit: Int, offered: [[String]] = [], kept: [[String]]) {
        self.capacity = max(1, capacity)
        self.bridgeLimit = max(1, bridgeLimit)
        for (index, keys) in offered.enumerated() {
            for key in keys where bridgeOfKey[key] == nil { bridgeOfKey[key] = index + 1 }
        }
        placed = Set(bridgeOfKey.keys)
        for (index, keys) in kept.enumerated() {
            for key in keys where bridgeOfKey[key] == nil { bridgeOfKey[key] = index + 1 }
        }
    }

    /// Splits `offered` (in the order new keys should be placed) over the bridges.
    public mutating func assign(_ offered: [String]) -> Split {
        var bridges: [Set<String>] = []
        func room(_ bridge: Int) -> Bool {
            bridge <= bridgeLimit && (bridge > bridges.count || bridges[bridge - 1].count < capacity)
        }
        func place(_ key: String, on bridge: Int) {
            while bridges.count < bridge { bridges.append([]) }
            bridges[bridge - 1].insert(key)
            bridgeOfKey[key] = bridge
        }
        var unplaced: [String] = []
        var seen = Set<String>()
        let unique = offered.filter { seen.insert($0).inserted }
        // Those offered last time first, then those coming back, each to its bridge while it has room.
        for key in unique.filter(placed.contains) + unique.filter({ !placed.contains($0) }) {
            if let bridge = bridgeOfKey[key], room(bridge) { place(key, on: bridge) } else { unplaced.append(key) }
        }
        var leftOut = 0
        var candidate = 1
        for key in unplaced {
            while candidate <= bridgeLimit && !room(candidate) { candidate += 1 }
            if candidate > bridgeLimit {
                leftOut += 1
            } else {
                place(key, on: candidate)
            }
        }
        placed = Set(bridges.flatMap { $0 })
        if bridges.isEmpty { bridges = [[]] }
        return Split(bridges: bridges, leftOut: leftOut)
    }
}
