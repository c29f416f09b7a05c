public import TraitBridgeMatterCodec

/// EventReportIB (Matter Core §10.6.10): one entry of a ReportData's EventReports, an event or a status.
/// A structure holding one of `{0 EventStatus {0 Path EventPathIB, 1 Status StatusIB}, 1 EventData}`.
/// Encode-only: the node reports events; it reads none.
public enum EventReport: Sendable, Equatable {
    case data(EventData)
    case status(path: EventPath, status: InteractionStatus)

    public var tlv: TLVValue {
        switch self {
        case .status(let path, let status): .contextStructure([0: .contextStructure([0: path.tlv, 1: status.tlv])])
        case .data(let data): .contextStructure([1: data.tlv])
        }
    }
}

/// EventDataIB (Matter Core §10.6.9): one event. A structure `{0 Path EventPathIB, 1 EventNumber u64,
/// 2 Priority u8, then one timestamp of 3 EpochTimestamp, 4 SystemTimestamp, 5 DeltaEpochTimestamp,
/// 6 DeltaSystemTimestamp (u64 milliseconds), 7 Data any}` (connectedhomeip `EventDataIB.h`).
public struct EventData: Sendable, Equatable {
    /// The event's priority (Matter Core §7.14.2.1).
    public enum Priority: UInt8, Sendable {
        case debug = 0
        case info = 1
        case critical = 2
    }

    /// When the event happened: since the Unix epoch or since boot, absolute or as a delta from the
    /// previous event of the same report, in milliseconds.
    public enum Timestamp: Sendable, Hashable {
        case epochMilliseconds(UInt64)
        case systemMilliseconds(UInt64)
        case deltaEpochMilliseconds(UInt64)
        case deltaSystemMilliseconds(UInt64)
    }

    public var path: EventPath
    public var eventNumber: UInt64
    public var priority: Priority
    public var timestamp: Timestamp
    public var data: TLVValue?

    public init(path: EventPath, eventNumber: UInt64, priority: Priority, timestamp: Timestamp, data: TLVValue?) {
        self.path = path
        self.eventNumber = eventNumber
        self.priority = priority
        self.timestamp = timestamp
        self.data = data
    }

    public var tlv: TLVValue {
        let (tag, milliseconds): (UInt8, UInt64) =
            switch timestamp {
            case .epochMilliseconds(let value): (3, value)
            case .systemMilliseconds(let value): (4, value)
            case .deltaEpochMilliseconds(let value): (5, value)
            case .deltaSystemMilliseconds(let value): (6, value)
            }
        var members = [
            TLVElement(tag: .context(0), value: path.tlv),
            TLVElement(tag: .context(1), value: .unsigned(eventNumber)),
            TLVElement(tag: .context(2), value: .unsigned(UInt64(priority.rawValue))),
            TLVElement(tag: .context(tag), value: .unsigned(milliseconds)),
        ]
        if let data { members.append(TLVElement(tag: .context(7), value: data)) }
        return .structure(members)
    }
}
