import TraitBridgeMatterCodec

/// InvokeRequestMessage (Matter Core §10.7.9, opcode 0x08): commands to run. A structure
/// `{0 SuppressResponse bool, 1 TimedRequest bool, 2 InvokeRequests [CommandDataIB], 0xFF revision}`, all
/// required (connectedhomeip `InvokeRequestMessage.h`, matter.js `TlvInvokeRequest`).
public struct InvokeRequest: Sendable, Equatable {
    static let name = "InvokeRequest"

    public var suppressResponse: Bool
    public var isTimedRequest: Bool
    public var invokeRequests: [CommandData]
    public var interactionModelRevision: UInt8?

    public init(
        invokeRequests: [CommandData], isTimedRequest: Bool = false, suppressResponse: Bool = false,
        interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.suppressResponse = suppressResponse
        self.isTimedRequest = isTimedRequest
        self.invokeRequests = invokeRequests
        self.interactionModelRevision = interactionModelRevision
    }

    /// Reads a payload as received; at least one command, and several only with distinct CommandRefs
    /// (Matter Core §8.8.2: a batch pairs responses to requests by reference).
    /// - Throws: ``InteractionMessageError`` naming the field and its byte.
    public init(decoding payload: [UInt8]) throws(InteractionMessageError) {
        let reader = try FieldReader(payload: payload, message: Self.name)
        let requests = try reader.required(2, "InvokeRequests")
        let commands = try reader.array(2, "InvokeRequests", CommandData.init(reading:))
        guard !commands.isEmpty else { throw requests.fail(.notAllowed("is empty — an invoke names a command")) }
        if commands.count > 1 {
            let references = commands.compactMap(\.commandRef)
            guard references.count == commands.count, Set(references).count == references.count else {
                throw requests.fail(.notAllowed("batches \(commands.count) commands without distinct CommandRefs"))
            }
        }
        self.init(
            invokeRequests: commands, isTimedRequest: try reader.required(1, "TimedRequest").bool(),
            suppressResponse: try reader.required(0, "SuppressResponse").bool(),
            interactionModelRevision: try reader.revision())
    }

    public var encoded: [UInt8] {
        encodeMessage(
            [(0, .bool(suppressResponse)), (1, .bool(isTimedRequest)), (2, .array(invokeRequests.map(\.tlv)))],
            revision: interactionModelRevision)
    }
}

/// InvokeResponseMessage (Matter Core §10.7.10, opcode 0x09): the answers to an invoke. A structure
/// `{0 SuppressResponse bool (always false), 1 InvokeResponses [InvokeResponseIB], 2 MoreChunkedMessages
/// bool (optional), 0xFF revision}`.
public struct InvokeResponse: Sendable, Equatable {
    public var invokeResponses: [CommandResponse]
    public var moreChunkedMessages: Bool
    public var interactionModelRevision: UInt8?

    public init(
        invokeResponses: [CommandResponse], moreChunkedMessages: Bool = false,
        interactionModelRevision: UInt8? = InteractionModel.revision
    ) {
        self.invokeResponses = invokeResponses
        self.moreChunkedMessages = moreChunkedMessages
        self.interactionModelRevision = interactionModelRevision
    }

    public var encoded: [UInt8] {
        encodeMessage(
            [(0, .bool(false)), (1, .array(invokeResponses.map(\.tlv))), (2, .flag(moreChunkedMessages))],
            revision: interactionModelRevision)
    }
}
