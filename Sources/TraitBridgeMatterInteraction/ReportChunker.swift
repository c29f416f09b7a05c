import TraitBridgeMatterCodec

/// Splits attribute reports into ReportData payloads that each fit one UDP message, the way
/// connectedhomeip's reporting engine does (`reporting/Engine.cpp`, `AttributeValueEncoder.cpp`):
/// - every payload but the last has MoreChunkedMessages; the last of a read has SuppressResponse, the last of a
///   subscription neither (the client answers each chunk but a read's last with a StatusResponse);
/// - an AttributeReportIB is never split, except a list: its first part is a replace-all AttributeDataIB
///   holding as many items as fit where the list starts, the rest follow one item per AttributeDataIB with
///   ListIndex null (append), so the root's AttributeList or an aggregator's PartsList can outgrow a message.
/// Event reports go whole in the first message (the node bounds how many one report carries).
public struct ReportChunker: Sendable {
    /// The TLV payload connectedhomeip fits a ReportData into over UDP: `kMaxSecureSduLengthBytes`
    /// (`kMaxAppMessageLen` 1200 + `kMaxTagLen` 16) less the 16-byte MIC the engine reserves, so 1200 bytes;
    /// message and exchange headers come on top (`transport/raw/MessageHeader.h`, `app/StatusResponse.h`).
    public static let defaultPayloadBudget = 1200

    /// Why reports cannot be chunked: one that does not fit an otherwise empty message and is no list
    /// (connectedhomeip then answers RESOURCE_EXHAUSTED), or one list item that alone does not fit.
    public enum ChunkingError: Error, Sendable, Equatable, CustomStringConvertible {
        case reportTooLarge(path: AttributePath, bytes: Int, budget: Int)

        public var description: String {
            switch self {
            case .reportTooLarge(let path, let bytes, let budget):
                "the report of \(path) takes \(bytes) bytes, more than a ReportData of \(budget) bytes holds "
                    + "— answer RESOURCE_EXHAUSTED, or serve the attribute as a list"
            }
        }
    }

    /// The most bytes a payload may have.
    public var payloadBudget: Int

    public init(payloadBudget: Int = Self.defaultPayloadBudget) { self.payloadBudget = payloadBudget }

    /// The payloads, in order, to send one per exchange round; one (without AttributeReports) when there are
    /// no reports, as a subscription's keep-alive.
    /// - Throws: ``ChunkingError`` when a report cannot fit.
    /// `events` go in the first payload (the caller bounds them: they are not split).
    public func payloads(
        for reports: [AttributeReport], events: [EventReport] = [], subscriptionID: UInt32? = nil, isRead: Bool,
        interactionModelRevision: UInt8? = InteractionModel.revision
    ) throws(ChunkingError) -> [[UInt8]] {
        var template = ReportData(
            subscriptionID: subscriptionID, eventReports: events, moreChunkedMessages: true,
            interactionModelRevision: interactionModelRevision)
        // The envelope with one flag set (and the events), plus the AttributeReports array's header (2
        // bytes) and end (1).
        let overhead = ReportData.encode(template, attributeReports: []).count + 3
        template.eventReports = []
        var packer = Packer(overhead: overhead, budget: payloadBudget)
        for report in reports { try packer.add(report) }
        let chunks = packer.chunks
        return chunks.enumerated().map { index, chunk in
            var message = template
            message.moreChunkedMessages = index < chunks.count - 1
            message.suppressResponse = isRead && index == chunks.count - 1
            if index == 0 { message.eventReports = events }
            return ReportData.encode(message, attributeReports: chunk)
        }
    }
}

/// The packing state: finished chunks, the one being filled and its size.
private struct Packer {
    let overhead: Int
    let budget: Int
    var chunks: [[TLVValue]] = [[]]
    var used: Int

    init(overhead: Int, budget: Int) {
        self.overhead = overhead
        self.budget = budget
        used = overhead
    }

    mutating func add(_ report: AttributeReport) throws(ReportChunker.ChunkingError) {
        let tlv = report.tlv
        let size = Self.size(tlv)
        if used + size <= budget { return append(tlv, size) }
        guard case .data(let data) = report, case .array(let items) = data.data, data.path.listIndex == nil else {
            return try appendInNewChunk(tlv, size, path: report.path)
        }
        // A list: the replace-all part where it starts, then appends.
        var head = data
        head.data = .array([])
        var headSize = Self.size(AttributeReport.data(head).tlv)
        if used + headSize > budget { try startChunk(fitting: headSize, path: data.path) }
        var taken = 0
        while taken < items.count, used + headSize + Self.size(items[taken]) <= budget {
            headSize += Self.size(items[taken])
            taken += 1
        }
        head.data = .array(Array(items[..<taken]))
        append(AttributeReport.data(head).tlv, headSize)
        var appendPath = data.path
        appendPath.listIndex = .append
        for item in items[taken...] {
            let entry = AttributeReport.data(AttributeData(path: appendPath, data: item, dataVersion: data.dataVersion))
            let entryTLV = entry.tlv
            let entrySize = Self.size(entryTLV)
            if used + entrySize <= budget {
                append(entryTLV, entrySize)
            } else {
                try appendInNewChunk(entryTLV, entrySize, path: appendPath)
            }
        }
    }

    private mutating func append(_ tlv: TLVValue, _ size: Int) {
        chunks[chunks.count - 1].append(tlv)
        used += size
    }

    private mutating func appendInNewChunk(
        _ tlv: TLVValue, _ size: Int, path: AttributePath
    ) throws(ReportChunker.ChunkingError) {
        try startChunk(fitting: size, path: path)
        append(tlv, size)
    }

    /// Closes the current chunk unless it is empty; throws when `size` would not fit even an empty one.
    private mutating func startChunk(fitting size: Int, path: AttributePath) throws(ReportChunker.ChunkingError) {
        guard overhead + size <= budget else {
            throw .reportTooLarge(path: path, bytes: size, budget: budget - overhead)
        }
        if !chunks[chunks.count - 1].isEmpty {
            chunks.append([])
            used = overhead
        }
    }

    /// The bytes `value` takes as an anonymous array element.
    private static func size(_ value: TLVValue) -> Int { TLVElement(value: value).encoded.count }
}
