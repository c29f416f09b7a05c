import Testing
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The node driven by a commissioner in datagrams, no socket: PASE, MRP, the secure session, and
/// hostile bytes.
@Suite("Matter node")
struct MatterNodeTests {
    /// PBKDFParamRequest → Pake1 → Pake3 with `passcode`; the node's last effects.
    static func pase(
        _ harness: inout NodeHarness, _ commissioner: inout Commissioner, passcode: UInt32 = NodeHarness.passcode
    ) throws -> [MatterNode<String>.Effect] {
        let response = try harness.send(commissioner.pbkdfParamRequest()).onlyUnsecured()
        #expect(response.protocolHeader.opcode == SecureChannelOpcode.pbkdfParamResponse.rawValue)
        #expect(response.protocolHeader.acknowledgedMessageCounter == commissioner.counter)
        #expect(response.protocolHeader.needsAck && !response.protocolHeader.isInitiator)
        #expect(response.header.destination == .node(commissioner.ephemeralNodeID))
        let pake2 = try harness.send(try commissioner.pake1(answering: response, passcode: passcode)).onlyUnsecured()
        #expect(pake2.protocolHeader.opcode == SecureChannelOpcode.pasePake2.rawValue)
        return harness.send(try commissioner.pake3(answering: pake2))
    }

    @Test("full PASE over datagrams establishes a secure session")
    func establishes() throws {
        var harness = try NodeHarness()
        var commissioner = Commissioner()
        let effects = try Self.pase(&harness, &commissioner)
        let status = try effects.onlyUnsecured()
        #expect(status.protocolHeader.opcode == SecureChannelOpcode.statusReport.rawValue)
        #expect(try StatusReport(decoding: status.payload) == .secureChannel(.sessionEstablishmentSuccess))
        let session = try #require(effects.established)
        #expect(session.localSessionID == commissioner.responderSessionID && session.peerSessionID == 0x7777)
        #expect(harness.node.secureSessionCount == 1)
        #expect(effects.logs.contains { $0.level == .notice && $0.message.contains("PASE succeeded") })
    }

    @Test("the commissioner's first secure message opens and is answered with R2I, the ack piggy-backed")
    func firstSecureMessage() throws {
        var harness = try NodeHarness()
        var commissioner = Commissioner()
        _ = try Self.pase(&harness, &commissioner)
        // An empty ReadRequest does not decode: refused with a StatusResponse, which carries the ack.
        let read = try commissioner.secure(.interactionModel, opcode: InteractionModelOpcode.readRequest.rawValue)
        let effects = harness.send(read)
        #expect(effects.logs.contains { $0.message.contains("does not decode") }, "\(effects.logs)")
        try #require(effects.sent.count == 1)
        let keys = try #require(commissioner.keys)
        let answer = try Message.open(effects.sent[0], key: keys.responderToInitiator, senderNodeID: 0)
        #expect(answer.header.sessionID == 0x7777)
        #expect(answer.protocolHeader.opcode == InteractionModelOpcode.statusResponse.rawValue)
        #expect(try StatusResponse(decoding: answer.payload).status == .invalidAction)
        #expect(answer.protocolHeader.acknowledgedMessageCounter == commissioner.counter)
        // The same datagram again is a duplicate: acknowledged, not delivered twice.
        let again = harness.send(read)
        #expect(again.sent.count == 1 && !again.logs.contains { $0.message.contains("does not decode") })
    }

    @Test("after PASE succeeded, another PASE on the still open window succeeds too (a commissioner that retries)")
    func paseAgain() throws {
        var harness = try NodeHarness()
        var first = Commissioner()
        #expect(try Self.pase(&harness, &first).established != nil)
        var second = Commissioner(peer: "10.0.0.3:5540", ephemeralNodeID: 0x99, exchangeID: 0x4343)
        #expect(try Self.pase(&harness, &second).established != nil)
        #expect(harness.node.secureSessionCount == 2)
    }

    @Test("a retransmitted PBKDFParamRequest is acknowledged and dropped, not answered twice")
    func duplicateRequest() throws {
        var harness = try NodeHarness()
        var commissioner = Commissioner()
        let request = commissioner.pbkdfParamRequest()
        _ = try harness.send(request).onlyUnsecured()
        let ack = try harness.send(request).onlyUnsecured()
        #expect(ack.protocolHeader.isStandaloneAck)
        #expect(ack.protocolHeader.acknowledgedMessageCounter == commissioner.counter)
        #expect(harness.node.pasePhase == "awaiting Pake1")
    }

    @Test("an unacknowledged PBKDFParamResponse is retransmitted per MRP on tick, then given up")
    func retransmits() throws {
        var harness = try NodeHarness()
        var commissioner = Commissioner()
        let first = harness.send(commissioner.pbkdfParamRequest()).sent
        let deadline = try #require(harness.node.nextDeadline)
        #expect(deadline > harness.now)
        #expect(harness.tick(after: .milliseconds(100)).sent.isEmpty)
        var transmissions = 1
        for _ in 0..<20 where harness.node.nextDeadline != nil {
            let effects = harness.tick(after: .seconds(2))
            if !effects.sent.isEmpty {
                #expect(effects.sent == first)
                transmissions += 1
            }
        }
        #expect(transmissions == MRPParameters.maxTransmissions)
    }

    @Test("a wrong passcode ends with StatusReport failure and no session")
    func wrongPasscode() throws {
        var harness = try NodeHarness()
        var commissioner = Commissioner()
        let effects = try Self.pase(&harness, &commissioner, passcode: 20_202_022)
        let status = try effects.onlyUnsecured()
        let report = try StatusReport(decoding: status.payload)
        #expect(report.generalCode == .failure && report.secureChannelStatus == .invalidParameter)
        #expect(effects.established == nil && harness.node.secureSessionCount == 0)
        #expect(effects.logs.contains { $0.level == .warning && $0.message.contains("PASE failed") })
        // The window stays open: the right passcode then succeeds.
        var second = Commissioner(ephemeralNodeID: 99, exchangeID: 7)
        #expect(try Self.pase(&harness, &second).established != nil)
    }

    @Test("a second commissioner is answered BUSY while a handshake runs")
    func busy() throws {
        var harness = try NodeHarness()
        var first = Commissioner()
        _ = try harness.send(first.pbkdfParamRequest()).onlyUnsecured()
        var second = Commissioner(peer: "10.0.0.3:5540", ephemeralNodeID: 5, exchangeID: 9)
        let busy = try harness.send(second.pbkdfParamRequest(), from: second.peer).onlyUnsecured()
        #expect(try StatusReport(decoding: busy.payload).secureChannelStatus == .busy)
        #expect(harness.node.pasePhase == "awaiting Pake1")
    }
}
