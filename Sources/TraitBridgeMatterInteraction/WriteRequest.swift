import TraitBridgeMatterCodec

/// WriteRequestMessage (Matter Core §10.7.6, opcode 0x06): attribute values to write. A structure
/// `{0 SuppressResponse bool (optional), 1 TimedRequest bool, 2 WriteRequests [AttributeDataIB],
/// 3 MoreChunkedMessages bool (optional), 0xFF revision}` (connectedhomeip `WriteRequestMessage.h`,
/// `WriteHandler::ProcessWriteRequest`: TimedRequest and WriteRequests are required).
public struct WriteRequest: Sendable, Equatable {
    static let name = "WriteRequest"

    public var suppressResponse: Bool
    /// True when the write follows a TimedRequest on the same exchange; must match how it arrived.
    public var isTimedRequest: Bool
    public var writeRequests: [AttributeData]
    /// True when more WriteRequests of the same write follow (a list written in parts).
    public var moreChunkedMessages: Bool
    public var interactionModelRevision: UInt8?

    public init(
        writeRequests: [AttributeData], isTimedRequest: Bool = false, suppressResponse: Bool = false,
        moreChunkedMessages: Bool = false, interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.suppressResponse = suppressResponse
        self.isTimedRequest = isTimedRequest
        self.writeRequests = writeRequests
        self.moreChunkedMessages = moreChunkedMessages
        self.interactionModelRevision = interactionModelRevision
    }

    /// Reads a payload as received: every AttributeDataIB's path must name an attribute (a write has no
    /// wildcard attribute, Matter Core §8.7.2).
    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        let requests = try reader.required(2, "WriteRequests")
        var writes: [AttributeData] = []
        for element in try requests.elements() {
            let data = try AttributeData(reading: element)
            guard data.path.attribute != nil, data.path.cluster != nil else {
                throw element.fail(.notAllowed("names no cluster or attribute — a write cannot be a wildcard there"))
            }
            writes.append(data)
        }
        self.init(
            writeRequests: writes, isTimedRequest: try reader.required(1, "TimedRequest").bool(),
            suppressResponse: try reader.optional(0, "SuppressResponse").bool() ?? false,
            moreChunkedMessages: try reader.optional(3, "MoreChunkedMessages").bool() ?? false,
            interactionModelRevision: try reader.revision())
    }

    public var encoded: [UInt8] {
        encodeMessage(
            [
                (0, .flag(suppressResponse)), (1, .bool(isTimedRequest)), (2, .array(writeRequests.map(\.tlv))),
                (3, .flag(moreChunkedMessages)),
            ], revision: interactionModelRevision)
    }
}

/// TimedRequestMessage (Matter Core §10.7.8, opcode 0x0A): "the write or invoke that follows on this
/// exchange must arrive within `timeoutMilliseconds`". A structure `{0 Timeout u16 ms, 0xFF revision}`.
public struct TimedRequest: Sendable, Hashable {
    static let name = "TimedRequest"

    public var timeoutMilliseconds: UInt16
    public var interactionModelRevision: UInt8?

    public init(timeoutMilliseconds: UInt16, interactionModelRevision: UInt8? = InteractionModel.revision) {
        self.timeoutMilliseconds = timeoutMilliseconds
        self.interactionModelRevision = interactionModelRevision
    }

    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        self.init(
            timeoutMilliseconds: try reader.required(0, "Timeout").uint(),
            interactionModelRevision: try reader.revision())
    }

    public var encoded: [UInt8] {
        encodeMessage([(0, .unsigned(UInt64(timeoutMilliseconds)))], revision: interactionModelRevision)
    }
}
