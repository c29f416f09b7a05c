import TraitBridgeMatterCodec

/// StatusResponseMessage (Matter Core §10.7.1, opcode 0x01): a bare status, both ways — the client's
/// "send the next chunk" after each ReportData, the server's refusal of a whole request. A structure
/// `{0 Status u8, 0xFF revision}`.
public struct StatusResponse: Sendable, Hashable {
    static let name = "StatusResponse"

    public var status: StatusCode
    public var interactionModelRevision: UInt8?

    public init(_ status: StatusCode, interactionModelRevision: UInt8? = InteractionModel.revision) {
        self.status = status
        self.interactionModelRevision = interactionModelRevision
    }

    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        self.init(
            StatusCode(rawValue: try reader.required(0, "Status").uint()),
            interactionModelRevision: try reader.revision())
    }

    public var encoded: [UInt8] {
        encodeMessage([(0, .unsigned(UInt64(status.rawValue)))], revision: interactionModelRevision)
    }
}

/// SubscribeResponseMessage (Matter Core §10.7.5, opcode 0x04): the subscription is up, after its priming
/// reports. A structure `{0 SubscriptionId u32, 2 MaxInterval u16 s, 0xFF revision}` (tag 1 was removed).
public struct SubscribeResponse: Sendable, Hashable {
    static let name = "SubscribeResponse"

    public var subscriptionID: UInt32
    /// The longest the server lets pass without a report: from the request's floor up to the larger of its
    /// ceiling and 60 minutes (Matter Core §8.5.1).
    public var maxIntervalSeconds: UInt16
    public var interactionModelRevision: UInt8?

    public init(
        subscriptionID: UInt32, maxIntervalSeconds: UInt16, interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.subscriptionID = subscriptionID
        self.maxIntervalSeconds = maxIntervalSeconds
        self.interactionModelRevision = interactionModelRevision
    }

    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        self.init(
            subscriptionID: try reader.required(0, "SubscriptionId").uint(),
            maxIntervalSeconds: try reader.required(2, "MaxInterval").uint(),
            interactionModelRevision: try reader.revision())
    }

    public var encoded: [UInt8] {
        encodeMessage(
            [(0, .unsigned(UInt64(subscriptionID))), (2, .unsigned(UInt64(maxIntervalSeconds)))],
            revision: interactionModelRevision)
    }
}

/// WriteResponseMessage (Matter Core §10.7.7, opcode 0x07): one status per attribute written. A structure
/// `{0 WriteResponses [AttributeStatusIB], 0xFF revision}`.
public struct WriteResponse: Sendable, Hashable {
    public var writeResponses: [AttributeStatus]
    public var interactionModelRevision: UInt8?

    public init(writeResponses: [AttributeStatus], interactionModelRevision: UInt8? = InteractionModel.revision) {
        self.writeResponses = writeResponses
        self.interactionModelRevision = interactionModelRevision
    }

    public var encoded: [UInt8] {
        encodeMessage([(0, .array(writeResponses.map(\.tlv)))], revision: interactionModelRevision)
    }
}
