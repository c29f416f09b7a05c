import TraitBridgeMatterCodec

/// ReadRequestMessage (Matter Core §10.7.2, opcode 0x02): what a client reads. A structure
/// `{0 AttributeRequests [AttributePathIB], 1 EventRequests [EventPathIB], 2 EventFilters [EventFilterIB],
/// 3 FabricFiltered bool, 4 DataVersionFilters [DataVersionFilterIB], 0xFF InteractionModelRevision}`
/// (connectedhomeip `ReadRequestMessage.h`; FabricFiltered is required, as `ReadHandler` requires it).
public struct ReadRequest: Sendable, Hashable {
    static let name = "ReadRequest"

    public var attributeRequests: [AttributePath]
    public var eventRequests: [EventPath]
    public var eventFilters: [EventFilter]
    /// Whether fabric-scoped lists are limited to the reader's fabric (python-matter-server's interview
    /// reads with false, its subscription with true).
    public var isFabricFiltered: Bool
    public var dataVersionFilters: [DataVersionFilter]
    public var interactionModelRevision: UInt8?

    public init(
        attributeRequests: [AttributePath] = [], eventRequests: [EventPath] = [], eventFilters: [EventFilter] = [],
        isFabricFiltered: Bool, dataVersionFilters: [DataVersionFilter] = [],
        interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.attributeRequests = attributeRequests
        self.eventRequests = eventRequests
        self.eventFilters = eventFilters
        self.isFabricFiltered = isFabricFiltered
        self.dataVersionFilters = dataVersionFilters
        self.interactionModelRevision = interactionModelRevision
    }

    /// Reads a payload as received.
    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        self.init(
            attributeRequests: try reader.array(0, "AttributeRequests", AttributePath.init(reading:)),
            eventRequests: try reader.array(1, "EventRequests", EventPath.init(reading:)),
            eventFilters: try reader.array(2, "EventFilters", EventFilter.init(reading:)),
            isFabricFiltered: try reader.required(3, "FabricFiltered").bool(),
            dataVersionFilters: try reader.array(4, "DataVersionFilters", DataVersionFilter.init(reading:)),
            interactionModelRevision: try reader.revision())
    }

    /// The payload; empty lists are left out.
    public var encoded: [UInt8] {
        encodeMessage(
            [
                (0, .optionalArray(attributeRequests, \.tlv)), (1, .optionalArray(eventRequests, \.tlv)),
                (2, .optionalArray(eventFilters, \.tlv)), (3, .bool(isFabricFiltered)),
                (4, .optionalArray(dataVersionFilters, \.tlv)),
            ], revision: interactionModelRevision)
    }
}

/// SubscribeRequestMessage (Matter Core §10.7.4, opcode 0x03): a read that stays. A structure
/// `{0 KeepSubscriptions bool, 1 MinIntervalFloor u16 s, 2 MaxIntervalCeiling u16 s, 3 AttributeRequests,
/// 4 EventRequests, 5 EventFilters, 7 FabricFiltered bool, 8 DataVersionFilters, 0xFF revision}` (tag 6 was
/// removed); connectedhomeip `SubscribeRequestMessage.h` and `ReadHandler::ProcessSubscribeRequest`.
public struct SubscribeRequest: Sendable, Hashable {
    static let name = "SubscribeRequest"

    /// False: the client's other subscriptions on this node end.
    public var keepSubscriptions: Bool
    public var minIntervalFloorSeconds: UInt16
    /// No more than `maxIntervalCeilingSeconds` may pass without a report (python-matter-server: 60 s).
    public var maxIntervalCeilingSeconds: UInt16
    public var attributeRequests: [AttributePath]
    public var eventRequests: [EventPath]
    public var eventFilters: [EventFilter]
    public var isFabricFiltered: Bool
    public var dataVersionFilters: [DataVersionFilter]
    public var interactionModelRevision: UInt8?

    public init(
        keepSubscriptions: Bool, minIntervalFloorSeconds: UInt16, maxIntervalCeilingSeconds: UInt16,
        attributeRequests: [AttributePath] = [], eventRequests: [EventPath] = [], eventFilters: [EventFilter] = [],
        isFabricFiltered: Bool, dataVersionFilters: [DataVersionFilter] = [],
        interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.keepSubscriptions = keepSubscriptions
        self.minIntervalFloorSeconds = minIntervalFloorSeconds
        self.maxIntervalCeilingSeconds = maxIntervalCeilingSeconds
        self.attributeRequests = attributeRequests
        self.eventRequests = eventRequests
        self.eventFilters = eventFilters
        self.isFabricFiltered = isFabricFiltered
        self.dataVersionFilters = dataVersionFilters
        self.interactionModelRevision = interactionModelRevision
    }

    /// Reads a payload as received; the floor may not exceed the ceiling (connectedhomeip refuses it).
    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        let ceiling = try reader.required(2, "MaxIntervalCeiling")
        self.init(
            keepSubscriptions: try reader.required(0, "KeepSubscriptions").bool(),
            minIntervalFloorSeconds: try reader.required(1, "MinIntervalFloor").uint(),
            maxIntervalCeilingSeconds: try ceiling.uint(),
            attributeRequests: try reader.array(3, "AttributeRequests", AttributePath.init(reading:)),
            eventRequests: try reader.array(4, "EventRequests", EventPath.init(reading:)),
            eventFilters: try reader.array(5, "EventFilters", EventFilter.init(reading:)),
            isFabricFiltered: try reader.required(7, "FabricFiltered").bool(),
            dataVersionFilters: try reader.array(8, "DataVersionFilters", DataVersionFilter.init(reading:)),
            interactionModelRevision: try reader.revision())
        guard minIntervalFloorSeconds <= maxIntervalCeilingSeconds else {
            throw ceiling.fail(.notAllowed("is below MinIntervalFloor (\(minIntervalFloorSeconds) s)"))
        }
    }

    /// The payload; empty lists are left out.
    public var encoded: [UInt8] {
        encodeMessage(
            [
                (0, .bool(keepSubscriptions)), (1, .unsigned(UInt64(minIntervalFloorSeconds))),
                (2, .unsigned(UInt64(maxIntervalCeilingSeconds))), (3, .optionalArray(attributeRequests, \.tlv)),
                (4, .optionalArray(eventRequests, \.tlv)), (5, .optionalArray(eventFilters, \.tlv)),
                (7, .bool(isFabricFiltered)), (8, .optionalArray(dataVersionFilters, \.tlv)),
            ], revision: interactionModelRevision)
    }
}
