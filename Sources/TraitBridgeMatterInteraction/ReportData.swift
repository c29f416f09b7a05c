import TraitBridgeMatterCodec

/// ReportDataMessage (Matter Core §10.7.3, opcode 0x05): attribute values and events, answering a read or
/// feeding a subscription. A structure `{0 SubscriptionId u32 (subscriptions only), 1 AttributeReports
/// [AttributeReportIB], 2 EventReports [EventReportIB], 3 MoreChunkedMessages bool, 4 SuppressResponse bool,
/// 0xFF revision}`; the flags are written only when true, as connectedhomeip's `Engine` writes them.
/// ``ReportChunker`` splits a report too big for one message.
public struct ReportData: Sendable, Equatable {
    static let name = "ReportData"

    public var subscriptionID: UInt32?
    public var attributeReports: [AttributeReport]
    public var eventReports: [EventReport]
    /// More ReportData of the same report follow, each after the client's StatusResponse.
    public var moreChunkedMessages: Bool
    /// The client must not answer: set on the last (or only) message of a read, never in a subscription.
    public var suppressResponse: Bool
    public var interactionModelRevision: UInt8?

    public init(
        subscriptionID: UInt32? = nil, attributeReports: [AttributeReport] = [], eventReports: [EventReport] = [],
        moreChunkedMessages: Bool = false, suppressResponse: Bool = false,
        interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.subscriptionID = subscriptionID
        self.attributeReports = attributeReports
        self.eventReports = eventReports
        self.moreChunkedMessages = moreChunkedMessages
        self.suppressResponse = suppressResponse
        self.interactionModelRevision = interactionModelRevision
    }

    /// Reads a payload (a client's view, and tests'): attribute reports are decoded; event reports are
    /// refused, as this version does not decode events.
    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        if let events = reader.optional(2, "EventReports"), events.value != .array([]) {
            throw events.fail(.notAllowed("holds event reports, which this version does not decode"))
        }
        self.init(
            subscriptionID: try reader.optional(0, "SubscriptionId").uint(),
            attributeReports: try reader.array(1, "AttributeReports", AttributeReport.init(reading:)),
            moreChunkedMessages: try reader.optional(3, "MoreChunkedMessages").bool() ?? false,
            suppressResponse: try reader.optional(4, "SuppressResponse").bool() ?? false,
            interactionModelRevision: try reader.revision())
    }

    public var encoded: [UInt8] { Self.encode(self, attributeReports: attributeReports.map(\.tlv)) }

    /// The payload with `attributeReports` as given (a chunk's pre-built reports), the rest from `report`.
    static func encode(_ report: ReportData, attributeReports: [TLVValue]) -> [UInt8] {
        encodeMessage(
            [
                (0, report.subscriptionID.map { .unsigned(UInt64($0)) }),
                (1, attributeReports.isEmpty ? nil : .array(attributeReports)),
                (2, .optionalArray(report.eventReports, \.tlv)), (3, .flag(report.moreChunkedMessages)),
                (4, .flag(report.suppressResponse)),
            ], revision: report.interactionModelRevision)
    }
}
