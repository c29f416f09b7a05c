import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction

/// The events the node has recorded (Core §7.14): each with its number (rising, never reused while
/// the node runs), priority, time since the node started and data. It exists so reads and
/// subscriptions report events by number — a subscription carries on from the last it reported — in
/// bounded memory: past ``capacity`` the oldest are dropped, as a device's event buffers are.
struct EventLog: Sendable {
    struct Record: Sendable {
        let endpoint: UInt16
        let cluster: UInt32
        let event: UInt32
        let number: UInt64
        let priority: EventData.Priority
        let systemMilliseconds: UInt64
        let data: TLVValue
        /// A fabric-sensitive event's fabric: only that fabric's subjects read it.
        let fabricIndex: UInt8?

        var report: EventReport {
            .data(
                EventData(
                    path: EventPath(endpoint: endpoint, cluster: cluster, event: event), eventNumber: number,
                    priority: priority, timestamp: .systemMilliseconds(systemMilliseconds), data: data))
        }
    }

    /// Events kept; the oldest go first. A bridge's devices all flip Reachable when their broker goes:
    /// room for that at a bridge's 150 devices, twice over, before the oldest are dropped.
    static let capacity = 320
    /// Events in one report at most (they are not chunked): the oldest matching ones first.
    static let perReport = 8

    private(set) var records: [Record] = []
    /// The number the next event gets.
    private(set) var nextNumber: UInt64
    let started: ContinuousClock.Instant

    /// `firstNumber`: where numbering starts (the edge passes one above what a previous run used).
    init(firstNumber: UInt64, started: ContinuousClock.Instant) {
        nextNumber = firstNumber
        self.started = started
    }

    mutating func record(
        endpoint: UInt16, cluster: UInt32, event: UInt32, priority: EventData.Priority, data: TLVValue,
        fabricIndex: UInt8? = nil, at now: ContinuousClock.Instant
    ) {
        let (seconds, attoseconds) = (now - started).components
        let milliseconds = UInt64(clamping: seconds) &* 1000 &+ UInt64(clamping: attoseconds / 1_000_000_000_000_000)
        records.append(
            Record(
                endpoint: endpoint, cluster: cluster, event: event, number: nextNumber, priority: priority,
                systemMilliseconds: milliseconds, data: data, fabricIndex: fabricIndex))
        nextNumber &+= 1
        if records.count > Self.capacity { records.removeFirst(records.count - Self.capacity) }
    }

    /// The events `paths` ask for (a missing endpoint, cluster or event is a wildcard) numbered from
    /// `minimum` on, at most ``perReport``.
    func matching(_ paths: [EventPath], from minimum: UInt64) -> [Record] {
        guard !paths.isEmpty else { return [] }
        return Array(
            records.lazy.filter { record in
                record.number >= minimum
                    && paths.contains { path in
                        (path.endpoint ?? record.endpoint) == record.endpoint
                            && (path.cluster ?? record.cluster) == record.cluster
                            && (path.event ?? record.event) == record.event
                    }
            }.prefix(Self.perReport))
    }
}
