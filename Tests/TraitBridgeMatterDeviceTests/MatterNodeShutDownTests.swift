import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// Basic Information's ShutDown event (Core §11.1.6.2) on an orderly stop: recorded after StartUp,
/// reported at once to subscribers of it, and, the event log being in memory as the SDK's event buffers
/// are, not found again by a node started afterwards.
@Suite("Matter node: ShutDown")
struct MatterNodeShutDownTests {
    static let basicInformationEvents = [EventPath(endpoint: 0, cluster: ClusterID.basicInformation)]

    /// The EventData structures of a ReportData payload (2 EventReports[].1 EventData).
    static func events(in payload: [UInt8]) throws -> [TLVValue] {
        let message = try TLVElement(decoding: payload).value
        guard case .array(let reports)? = message[2] else { return [] }
        return reports.compactMap { $0[1] }
    }

    @Test("ShutDown is recorded after StartUp: CRITICAL, no fields, the next number; a read sees both")
    func recorded() throws {
        var (harness, commissioner) = try MatterNodeInteractionTests.paired()
        let effects = harness.node.shutDown(now: harness.now, using: &harness.generator)
        #expect(effects.logs.contains { $0.message.contains("ShutDown (event 1) reported to 0 subscription(s)") })
        let read = ReadRequest(
            attributeRequests: [], eventRequests: Self.basicInformationEvents, isFabricFiltered: false)
        let reply = try #require(try commissioner.interact(.readRequest, read.encoded, exchange: 8, &harness).only)
        let events = try Self.events(in: reply.payload)
        try #require(events.count == 2, "\(events)")
        // EventData: 0 path {1 endpoint, 2 cluster, 3 event}, 1 number, 2 priority, 7 data.
        #expect(events[0][0]?[3] == .unsigned(0) && events[0][1] == .unsigned(0))
        #expect(events[1][0]?[2] == .unsigned(UInt64(ClusterID.basicInformation)) && events[1][0]?[3] == .unsigned(1))
        #expect(events[1][1] == .unsigned(1) && events[1][2] == .unsigned(2), "\(events[1])")
        #expect(events[1][7] == .contextStructure([:]), "\(events[1])")
    }

    @Test("a subscriber to the events gets ShutDown at once, its minimum interval notwithstanding; others nothing")
    func reportedToSubscribers() throws {
        var (harness, commissioner) = try MatterNodeInteractionTests.paired()
        for (exchange, events) in [(UInt16(7), Self.basicInformationEvents), (UInt16(9), [])] {
            let request = SubscribeRequest(
                keepSubscriptions: true, minIntervalFloorSeconds: 60, maxIntervalCeilingSeconds: 600,
                attributeRequests: [AttributePath(endpoint: 1, cluster: 0x0006, attribute: 0)], eventRequests: events,
                isFabricFiltered: true)
            let priming = try #require(
                try commissioner.interact(.subscribeRequest, request.encoded, exchange: exchange, &harness).only)
            // The priming report carries StartUp to the event subscriber.
            #expect(try Self.events(in: priming.payload).count == events.count)
            let response = try #require(
                try commissioner.interact(
                    .statusResponse, StatusResponse(.success).encoded, exchange: exchange,
                    ack: priming.header.messageCounter, &harness
                ).only)
            #expect(response.protocolHeader.opcode == InteractionModelOpcode.subscribeResponse.rawValue)
        }

        let effects = harness.node.shutDown(now: harness.now, using: &harness.generator)
        let report = try #require(try commissioner.open(effects).reports.only, "\(effects.logs)")
        #expect(report.protocolHeader.isInitiator && report.protocolHeader.needsAck)
        let events = try Self.events(in: report.payload)
        #expect(events.count == 1 && events.first?[0]?[3] == .unsigned(1) && events.first?[1] == .unsigned(1))
        // ReportData {0 SubscriptionId, 1 AttributeReports (none), 2 EventReports}.
        #expect(try TLVElement(decoding: report.payload).value[1] == nil)
        #expect(effects.logs.contains { $0.message.contains("reported to 1 subscription(s)") })
    }

    @Test("the event log is in memory: a node started afterwards has its own StartUp and no ShutDown")
    func notKept() throws {
        var (harness, _) = try MatterNodeInteractionTests.paired()
        _ = harness.node.shutDown(now: harness.now, using: &harness.generator)
        let next = harness.node.nextEventNumber
        #expect(next == 2)
        var restarted = try NodeHarness()
        var generator = SeededGenerator(seed: 42)
        let setup = try MatterSetup(
            passcode: try SetupPasscode(NodeHarness.passcode), discriminator: 3840, vendorID: 0xFFF1,
            productID: 0x8001, using: &generator)
        restarted.node = MatterNode(commissioning: try setup.commissioning(), firstEventNumber: next, using: &generator)
        var commissioner = Commissioner()
        _ = try MatterNodeTests.pase(&restarted, &commissioner)
        let read = ReadRequest(
            attributeRequests: [], eventRequests: Self.basicInformationEvents, isFabricFiltered: false)
        let reply = try #require(try commissioner.interact(.readRequest, read.encoded, exchange: 8, &restarted).only)
        let events = try Self.events(in: reply.payload)
        #expect(events.count == 1 && events.first?[0]?[3] == .unsigned(0) && events.first?[1] == .unsigned(next))
    }
}
