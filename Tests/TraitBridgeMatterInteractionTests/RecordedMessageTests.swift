import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterInteraction

/// Apple Home's recorded requests decode to what they say and re-encode byte for byte; this module's
/// responses, built from the same content, are CircuitMatter's recorded bytes.
@Suite("Recorded Interaction Model messages (Apple Home ↔ CircuitMatter)")
struct RecordedMessageTests {
    @Test("Apple's first ReadRequest reads 0/0x1D/3, fabric-filtered, revision 11, and re-encodes exactly")
    func readPartsList() throws {
        let request = try ReadRequest(decoding: RecordedInteraction.readPartsList)
        #expect(request.attributeRequests == [AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3)])
        #expect(request.isFabricFiltered)
        #expect(request.interactionModelRevision == 11)
        #expect(request.eventRequests.isEmpty && request.dataVersionFilters.isEmpty)
        #expect(request.encoded == RecordedInteraction.readPartsList)
    }

    @Test("the ReportData CircuitMatter answered is ours for PartsList [1] at data version 0")
    func reportPartsList() throws {
        let data = AttributeData(
            path: AttributePath(endpoint: 0, cluster: 0x1D, attribute: 3), data: .array([.unsigned(1)]),
            dataVersion: 0)
        let report = ReportData(attributeReports: [.data(data)])
        #expect(report.encoded == RecordedInteraction.reportPartsList)
        #expect(try ReportData(decoding: RecordedInteraction.reportPartsList) == report)
    }

    @Test("Apple's StatusResponse after the report is SUCCESS and re-encodes exactly")
    func statusResponse() throws {
        let status = try StatusResponse(decoding: RecordedInteraction.statusSuccess)
        #expect(status == StatusResponse(.success))
        #expect(status.encoded == RecordedInteraction.statusSuccess)
    }

    @Test("Apple's nine-path read decodes wildcards and concrete paths in order and re-encodes exactly")
    func readCommissioningInfo() throws {
        let request = try ReadRequest(decoding: RecordedInteraction.readCommissioningInfo)
        #expect(request.attributeRequests.map(\.description) == [
            "*/0x31/0xfffc", "0/0x30/0x0", "0/0x30/0x1", "0/0x30/0x2", "0/0x30/0x3", "0/0x28/0x2", "0/0x28/0x4",
            "*/0x31/0x3", "0/0x38/*",
        ])
        #expect(!request.isFabricFiltered)
        #expect(request.encoded == RecordedInteraction.readCommissioningInfo)
    }

    @Test("CircuitMatter's eight reports, rebuilt from values, are its recorded ReportData byte for byte")
    func reportCommissioningInfo() throws {
        func data(_ endpoint: UInt16, _ cluster: UInt32, _ attribute: UInt32, _ value: TLVValue) -> AttributeReport {
            .data(AttributeData(
                path: AttributePath(endpoint: endpoint, cluster: cluster, attribute: attribute), data: value,
                dataVersion: 0))
        }
        let reports: [AttributeReport] = [
            data(0, 0x31, 0xFFFC, .unsigned(1)), data(0, 0x30, 0, .unsigned(0)),
            data(0, 0x30, 1, .contextStructure([0: .unsigned(10), 1: .unsigned(900)])),
            data(0, 0x30, 2, .unsigned(2)), data(0, 0x30, 3, .unsigned(2)), data(0, 0x28, 2, .unsigned(0xFFF4)),
            data(0, 0x28, 4, .unsigned(0x1234)), data(0, 0x31, 3, .unsigned(10)),
        ]
        let report = ReportData(attributeReports: reports)
        #expect(report.encoded == RecordedInteraction.reportCommissioningInfo)
        #expect(try ReportData(decoding: RecordedInteraction.reportCommissioningInfo) == report)
        // And the chunker, for a read, adds only SuppressResponse (4 = true) before the revision.
        let payloads = try ReportChunker().payloads(for: reports, isRead: true)
        #expect(payloads.count == 1)
        #expect(payloads[0].dropLast(6) == RecordedInteraction.reportCommissioningInfo.dropLast(4))
        #expect(payloads[0].suffix(6) == [0x29, 0x04, 0x24, 0xFF, 0x0B, 0x18])
    }

    @Test("Apple's ArmFailSafe invoke decodes, and the response we build is CircuitMatter's bytes")
    func armFailSafe() throws {
        let request = try InvokeRequest(decoding: RecordedInteraction.invokeArmFailSafe)
        #expect(!request.suppressResponse && !request.isTimedRequest)
        #expect(request.invokeRequests.count == 1)
        #expect(request.invokeRequests[0].path == CommandPath(endpoint: 0, cluster: 0x30, command: 0))
        #expect(request.invokeRequests[0].fields == .contextStructure([0: .unsigned(10), 1: .unsigned(4)]))
        #expect(request.encoded == RecordedInteraction.invokeArmFailSafe)

        let response = InvokeResponse(invokeResponses: [
            .command(CommandData(
                path: CommandPath(endpoint: 0, cluster: 0x30, command: 1),
                fields: .contextStructure([0: .unsigned(0), 1: .string("")])))
        ])
        #expect(response.encoded == RecordedInteraction.invokeArmFailSafeResponse)
    }

    @Test("Apple's SetRegulatoryConfig carries its country code as a string and re-encodes exactly")
    func setRegulatoryConfig() throws {
        let request = try InvokeRequest(decoding: RecordedInteraction.invokeSetRegulatoryConfig)
        #expect(request.invokeRequests[0].path == CommandPath(endpoint: 0, cluster: 0x30, command: 2))
        #expect(request.invokeRequests[0].fields?[1] == .string("US"))
        #expect(request.encoded == RecordedInteraction.invokeSetRegulatoryConfig)
    }
}
