import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction
import TraitBridgeTesting

/// A report too big for one message becomes several, each within the budget, flagged as connectedhomeip
/// flags them, and the client's reassembly (replace-all, then appends) gives back every attribute.
@Suite("ReportData chunking")
struct ReportChunkerTests {
    /// A bridge's root: Descriptor PartsList of 300 endpoints, then 60 string attributes of ~40 bytes.
    static let reports: [AttributeReport] = {
        var reports: [AttributeReport] = [
            .data(AttributeData(
                path: AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3),
                data: .array((1...300).map { .unsigned(UInt64($0)) }), dataVersion: 0x1234_5678))
        ]
        for index in 0..<60 {
            reports.append(.data(AttributeData(
                path: AttributePath(endpoint: UInt16(index + 1), cluster: 0x39, attribute: 5),
                data: .string("Bridged device number \(index) in the hall"), dataVersion: UInt32(index))))
        }
        reports.append(.status(AttributeStatus(
            path: AttributePath(endpoint: 0, cluster: 0x46, attribute: 0),
            status: InteractionStatus(.unsupportedCluster))))
        return reports
    }()

    /// What a client holds after applying the chunks in order: lists replaced, then appended to.
    static func reassemble(_ payloads: [[UInt8]]) throws -> [AttributeReport] {
        var result: [AttributeReport] = []
        for payload in payloads {
            for report in try ReportData(decoding: payload).attributeReports {
                if case .data(let data) = report, data.path.listIndex == .append {
                    let target = AttributePath(data.path.concrete!)
                    let index = try #require(result.lastIndex { $0.path == target })
                    guard case .data(var list) = result[index], case .array(let items) = list.data else {
                        Issue.record("append to a non-list")
                        continue
                    }
                    list.data = .array(items + [data.data])
                    result[index] = .data(list)
                } else {
                    result.append(report)
                }
            }
        }
        return result
    }

    @Test("a read of a large report takes ≥ 3 messages under 1200 bytes and reassembles to the same reports")
    func readChunks() throws {
        let payloads = try ReportChunker().payloads(for: Self.reports, isRead: true)
        #expect(payloads.count >= 3)
        for (index, payload) in payloads.enumerated() {
            #expect(payload.count <= ReportChunker.defaultPayloadBudget)
            let report = try ReportData(decoding: payload)
            #expect(report.moreChunkedMessages == (index < payloads.count - 1))
            #expect(report.suppressResponse == (index == payloads.count - 1))
            #expect(report.subscriptionID == nil)
        }
        #expect(try Self.reassemble(payloads) == Self.reports)
    }

    @Test("the PartsList is split: replace-all with the items that fit, then appends with ListIndex null")
    func listSplit() throws {
        let list = Array(Self.reports.prefix(1))
        let payloads = try ReportChunker(payloadBudget: 400).payloads(for: list, isRead: true)
        try #require(payloads.count >= 2)
        let first = try ReportData(decoding: payloads[0]).attributeReports
        let second = try ReportData(decoding: payloads[1]).attributeReports
        // The head fills the first message: the appends start in the second.
        guard first.count == 1, case .data(let head) = first[0], case .array(let items) = head.data,
            case .data(let append)? = second.first
        else {
            Issue.record("not a replace-all head followed by appends: \(first.count), \(second.count) reports")
            return
        }
        #expect(head.path.listIndex == nil && !items.isEmpty && items.count < 300)
        #expect(append.path == AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3, listIndex: .append))
        #expect(append.data == .unsigned(UInt64(items.count + 1)) && append.dataVersion == 0x1234_5678)
        #expect(payloads.allSatisfy { $0.count <= 400 })
        #expect(try Self.reassemble(payloads) == list)
    }

    @Test("a subscription's chunks carry its ID and no SuppressResponse, the last none of the flags")
    func subscriptionChunks() throws {
        let payloads = try ReportChunker().payloads(for: Self.reports, subscriptionID: 0xCAFE_F00D, isRead: false)
        for payload in payloads {
            let report = try ReportData(decoding: payload)
            #expect(report.subscriptionID == 0xCAFE_F00D && !report.suppressResponse)
        }
        let last = try ReportData(decoding: payloads[payloads.count - 1])
        #expect(!last.moreChunkedMessages)
        // An empty keep-alive: {0 SubscriptionId 7, 0xFF 11}.
        let keepAlive = try ReportChunker().payloads(for: [], subscriptionID: 7, isRead: false)
        #expect(keepAlive == [[UInt8](hex: "1524000724ff0b18")])
    }

    @Test("a report that fits no message and is no list is refused, naming the path")
    func tooLarge() {
        let path = AttributePath(endpoint: 1, cluster: 0x50, attribute: 1)
        let big = AttributeReport.data(
            AttributeData(path: path, data: .octets(Array(repeating: 0, count: 1300)), dataVersion: 1))
        #expect(throws: ReportChunker.ChunkingError.self) { try ReportChunker().payloads(for: [big], isRead: true) }
    }
}
