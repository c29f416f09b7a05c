import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction

/// The events a bridged endpoint's value change stands for. A bridge hears a lock lock or a contact
/// open as a new value; a controller's activity history reads it as the cluster's event: Door Lock's
/// LockOperation (mandatory) and DoorStateChange, Boolean State's StateChange. One rule per event, as
/// data: the attribute it follows and the event data a change makes (nil: none). None at start, none
/// for a value that comes back the same.
struct ValueEvents {
    struct Rule: Sendable {
        let cluster: UInt32
        let attribute: UInt32
        let event: UInt32
        let priority: EventData.Priority
        /// The event's data for a change from the first value to the second; nil: the change is no event.
        let data: @Sendable (TLVValue, TLVValue) -> TLVValue?
    }

    static let doorLock: UInt32 = 0x0101
    static let booleanState: UInt32 = 0x0045

    static let rules: [Rule] = [
        // LockState (1 Locked, 2 Unlocked, 3 Unlatched) → LockOperationType (0 Lock, 1 Unlock, 4 Unlatch). The
        // source is Unspecified (0): the bridge does not know whether a hand, a keypad or a controller did it;
        // UserIndex, FabricIndex and SourceNode are null (nullable, mandatory). Priority DEBUG, as the spec says.
        Rule(cluster: doorLock, attribute: 0x0000, event: 0x02, priority: .debug) { _, now in
            guard case .unsigned(let state) = now, let operation = [1: 0, 2: 1, 3: 4][state] else { return nil }
            return .contextStructure([
                0: .unsigned(UInt64(operation)), 1: .unsigned(0), 2: .some(.null), 3: .some(.null), 4: .some(.null),
            ])
        },
        // DoorState (with the DPS feature): the door's own state, as it is.
        Rule(cluster: doorLock, attribute: 0x0003, event: 0x01, priority: .debug) { _, now in
            guard case .unsigned = now else { return nil }
            return .contextStructure([0: now])
        },
        Rule(cluster: booleanState, attribute: 0x0000, event: 0x00, priority: .info) { _, now in
            guard case .bool = now else { return nil }
            return .contextStructure([0: now])
        },
    ]

    /// The events `endpoint`'s new values make against `old` (the values the node serves now: nil for a
    /// cluster or attribute it did not have).
    static func events(
        of endpoint: any ApplicationEndpoint, old: (UInt32, UInt32) -> TLVValue?
    ) -> [(rule: Rule, data: TLVValue)] {
        rules.compactMap { rule in
            guard let now = endpoint.attributes(of: rule.cluster)[rule.attribute],
                let was = old(rule.cluster, rule.attribute), was != now, let data = rule.data(was, now)
            else { return nil }
            return (rule, data)
        }
    }
}
