import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The interaction model on a PASE session, in datagrams: reads (chunked), invokes on the root and
/// on a light, timed requests, and a subscription primed, reported and kept alive.
@Suite("Matter node: interactions")
struct MatterNodeInteractionTests {
    /// A node with an On/Off Light on endpoint 1, past PASE.
    static func paired() throws -> (NodeHarness, Commissioner) {
        var harness = try NodeHarness(endpoints: [OnOffLight(id: 1)])
        var commissioner = Commissioner()
        _ = try MatterNodeTests.pase(&harness, &commissioner)
        return (harness, commissioner)
    }

    @Test("a concrete read is answered in one ReportData with the value and its cluster's version")
    func concreteRead() throws {
        var (harness, commissioner) = try Self.paired()
        let path = AttributePath(endpoint: 0, cluster: ClusterID.basicInformation, attribute: 0x0002)
        let request = ReadRequest(attributeRequests: [path], isFabricFiltered: false)
        let replies = try commissioner.interact(.readRequest, request.encoded, exchange: 1, &harness)
        let report = try ReportData(decoding: try #require(replies.only).payload)
        #expect(report.suppressResponse && !report.moreChunkedMessages)
        guard case .data(let data) = try #require(report.attributeReports.first) else {
            Issue.record("not a value: \(report.attributeReports)")
            return
        }
        #expect(data.data == .unsigned(0xFFF1))
        #expect(
            data.dataVersion == harness.node.dataModel.dataVersion(endpoint: 0, cluster: ClusterID.basicInformation))
    }

    @Test("a path to a cluster the node lacks is answered with its status, not a refusal")
    func unsupportedCluster() throws {
        var (harness, commissioner) = try Self.paired()
        let concrete = ReadRequest(
            attributeRequests: [AttributePath(endpoint: 0, cluster: 0x0046, attribute: 0x0006)], isFabricFiltered: false
        )
        let replies = try commissioner.interact(.readRequest, concrete.encoded, exchange: 1, &harness)
        let report = try ReportData(decoding: try #require(replies.only).payload)
        guard case .status(let status) = try #require(report.attributeReports.first) else {
            Issue.record("not a status: \(report.attributeReports)")
            return
        }
        #expect(status.status.code == .unsupportedCluster)
    }

    @Test("a wildcard read comes in chunks, each after the client's StatusResponse; the last asks no answer")
    func chunkedRead() throws {
        var (harness, commissioner) = try Self.paired()
        let request = ReadRequest(attributeRequests: [AttributePath()], isFabricFiltered: false)
        var reply = try #require(try commissioner.interact(.readRequest, request.encoded, exchange: 2, &harness).only)
        var chunks = [try ReportData(decoding: reply.payload)]
        while chunks.last?.moreChunkedMessages == true, chunks.count < 20 {
            #expect(chunks.last?.suppressResponse == false)
            let ack = reply.header.messageCounter
            reply = try #require(
                try commissioner.interact(
                    .statusResponse, StatusResponse(.success).encoded, exchange: 2, ack: ack, &harness
                ).only)
            chunks.append(try ReportData(decoding: reply.payload))
        }
        #expect(chunks.count > 1, "the whole node fits one message? \(chunks.count)")
        #expect(chunks.last?.suppressResponse == true && chunks.last?.moreChunkedMessages == false)
        let paths = chunks.flatMap(\.attributeReports).compactMap(\.path.concrete)
        #expect(paths.contains(ConcreteAttributePath(endpoint: 1, cluster: 0x0006, attribute: 0)))
        #expect(paths.contains(ConcreteAttributePath(endpoint: 0, cluster: ClusterID.descriptor, attribute: 3)))
    }

    @Test("events: StartUp is read with its number and priority; EventMin above it leaves it out")
    func startUpEvent() throws {
        var (harness, commissioner) = try Self.paired()
        let all = ReadRequest(
            attributeRequests: [], eventRequests: [EventPath(endpoint: 0, cluster: ClusterID.basicInformation)],
            isFabricFiltered: false)
        let reply = try #require(try commissioner.interact(.readRequest, all.encoded, exchange: 8, &harness).only)
        // ReportData: 2 EventReports[0].1 EventData {0 path, 1 number, 2 priority, 4 system time, 7 data}.
        let message = try TLVElement(decoding: reply.payload).value
        guard case .array(let reports)? = message[2], let event = reports.first?[1] else {
            Issue.record("no event in \(message)")
            return
        }
        #expect(reports.count == 1)
        #expect(event[1] == .unsigned(0) && event[2] == .unsigned(2), "\(event)")
        #expect(
            event[0]?[3] == .unsigned(0) && event[7]?[0] == .unsigned(1), "StartUp with SoftwareVersion 1: \(event)")
        let later = ReadRequest(
            attributeRequests: [], eventRequests: [EventPath()], eventFilters: [EventFilter(eventMinimum: 1)],
            isFabricFiltered: false)
        let none = try #require(try commissioner.interact(.readRequest, later.encoded, exchange: 9, &harness).only)
        #expect(try TLVElement(decoding: none.payload).value[2] == nil)
    }

    @Test("ArmFailSafe on PASE is answered with ArmFailSafeResponse OK; the breadcrumb is kept")
    func armFailSafe() throws {
        var (harness, commissioner) = try Self.paired()
        let command = CommandData(
            path: CommandPath(endpoint: 0, cluster: ClusterID.generalCommissioning, command: 0),
            fields: .contextStructure([0: .unsigned(60), 1: .unsigned(3)]))
        let request = InvokeRequest(invokeRequests: [command])
        let reply = try #require(try commissioner.interact(.invokeRequest, request.encoded, exchange: 3, &harness).only)
        #expect(reply.protocolHeader.opcode == InteractionModelOpcode.invokeResponse.rawValue)
        // InvokeResponses[0].Command: path {0, 0x30, 1 ArmFailSafeResponse}, fields {0 ErrorCode OK}.
        let message = try TLVElement(decoding: reply.payload).value
        guard case .array(let responses)? = message[1], let command = responses.first?[0] else {
            Issue.record("no command in \(message)")
            return
        }
        #expect(command[0]?[2] == .unsigned(1) && command[1]?[0] == .unsigned(0), "\(command)")
        #expect(harness.node.dataModel.root.state.breadcrumb == 3)
        #expect(harness.node.dataModel.root.state.failSafe != nil)
    }

    @Test("Toggle on the light's endpoint switches it, is answered SUCCESS and said as a change")
    func toggle() throws {
        var (harness, commissioner) = try Self.paired()
        let request = InvokeRequest(
            invokeRequests: [CommandData(path: CommandPath(endpoint: 1, cluster: 0x0006, command: 2), fields: nil)])
        let effects = try commissioner.send(.invokeRequest, request.encoded, exchange: 4, &harness)
        #expect(
            effects.contains {
                if case .attributesChanged(let paths) = $0 { return paths.contains { $0.cluster == 0x0006 } }
                return false
            })
        let light = try #require(harness.node.dataModel.endpoints.first as? OnOffLight)
        #expect(light.isOn)
        let reply = try #require(try commissioner.open(effects).only)
        #expect(reply.protocolHeader.opcode == InteractionModelOpcode.invokeResponse.rawValue)
    }

    @Test("a timed invoke without its TimedRequest is refused TIMED_REQUEST_MISMATCH; with it, done")
    func timed() throws {
        var (harness, commissioner) = try Self.paired()
        let command = CommandData(path: CommandPath(endpoint: 1, cluster: 0x0006, command: 1), fields: nil)
        let timedInvoke = InvokeRequest(invokeRequests: [command], isTimedRequest: true)
        let refused = try #require(
            try commissioner.interact(.invokeRequest, timedInvoke.encoded, exchange: 5, &harness).only)
        #expect(try StatusResponse(decoding: refused.payload).status == .timedRequestMismatch)
        let ok = try #require(
            try commissioner.interact(
                .timedRequest, TimedRequest(timeoutMilliseconds: 500).encoded, exchange: 6, &harness
            )
            .only)
        #expect(try StatusResponse(decoding: ok.payload).status == .success)
        let done = try #require(
            try commissioner.interact(
                .invokeRequest, timedInvoke.encoded, exchange: 6, ack: ok.header.messageCounter, &harness
            ).only)
        #expect(done.protocolHeader.opcode == InteractionModelOpcode.invokeResponse.rawValue)
        #expect((harness.node.dataModel.endpoints.first as? OnOffLight)?.isOn == true)
    }

    @Test("a subscription is primed, answered with SubscribeResponse, reports a change and keeps alive")
    func subscription() throws {
        var (harness, commissioner) = try Self.paired()
        let request = SubscribeRequest(
            keepSubscriptions: false, minIntervalFloorSeconds: 1, maxIntervalCeilingSeconds: 10,
            attributeRequests: [AttributePath(endpoint: 1, cluster: 0x0006, attribute: nil)], isFabricFiltered: true)
        let priming = try #require(
            try commissioner.interact(.subscribeRequest, request.encoded, exchange: 7, &harness).only)
        let primed = try ReportData(decoding: priming.payload)
        let id = try #require(primed.subscriptionID)
        #expect(!primed.suppressResponse && primed.attributeReports.count == 6)
        let response = try #require(
            try commissioner.interact(
                .statusResponse, StatusResponse(.success).encoded, exchange: 7, ack: priming.header.messageCounter,
                &harness
            ).only)
        #expect(
            try SubscribeResponse(decoding: response.payload)
                == SubscribeResponse(subscriptionID: id, maxIntervalSeconds: 10))

        // The light switched at the device: after the minimum interval, one report of OnOff alone.
        let now = harness.now
        let first = harness.node.update(endpoint: 1, as: OnOffLight.self, now: now) { $0.set(isOn: true) }
        #expect(first.isEmpty, "reported within the minimum interval: \(first)")
        // (The SubscribeResponse, never acknowledged here, is retransmitted meanwhile: reports are picked out.)
        let change = try #require(try commissioner.open(harness.tick(after: .seconds(1))).reports.only)
        let changed = try ReportData(decoding: change.payload)
        #expect(changed.subscriptionID == id)
        #expect(changed.attributeReports.compactMap(\.path.concrete).map(\.attribute) == [0])
        #expect(change.protocolHeader.isInitiator, "a report opens the node's own exchange")
        _ = try commissioner.interact(
            .statusResponse, StatusResponse(.success).encoded, exchange: change.protocolHeader.exchangeID,
            ack: change.header.messageCounter, initiator: false, &harness)

        // Nothing changes: an empty report at the maximum interval.
        let later = try commissioner.open(harness.tick(after: .seconds(10))).reports
        let keepAlive = try #require(
            later.only, "\(later.map { ($0.protocolHeader.opcode, $0.protocolHeader.exchangeID) })")
        let empty = try ReportData(decoding: keepAlive.payload)
        #expect(empty.subscriptionID == id && empty.attributeReports.isEmpty)
    }
}

extension Commissioner {
    /// `payload` as `opcode` on the PASE session's `exchange` (ours when `initiator`), acknowledging `ack`;
    /// the node's effects.
    mutating func send(
        _ opcode: InteractionModelOpcode, _ payload: [UInt8], exchange: UInt16, ack: UInt32? = nil,
        initiator: Bool = true, _ harness: inout NodeHarness
    ) throws -> [MatterNode<String>.Effect] {
        counter += 1
        let keys = try #require(keys)
        let message = Message(
            header: MessageHeader(sessionID: responderSessionID, messageCounter: counter),
            protocolHeader: ProtocolHeader(
                isInitiator: initiator, needsAck: true, acknowledgedMessageCounter: ack, opcode: opcode.rawValue,
                exchangeID: exchange, protocolID: .interactionModel),
            payload: payload)
        return harness.send(try message.sealed(key: keys.initiatorToResponder, senderNodeID: 0))
    }

    /// What the node sent on the PASE session, opened, standalone acks left out (PASE's own last message,
    /// never acknowledged here, is retransmitted unsecured meanwhile).
    func open(_ effects: [MatterNode<String>.Effect]) throws -> [Message] {
        let keys = try #require(keys)
        return try effects.sent.filter { try !MessageHeader.decode($0).header.isUnsecured }
            .map { try Message.open($0, key: keys.responderToInitiator, senderNodeID: 0) }
            .filter { !$0.protocolHeader.isStandaloneAck }
    }

    /// ``send(_:_:exchange:ack:initiator:_:)``, then what the node answered.
    mutating func interact(
        _ opcode: InteractionModelOpcode, _ payload: [UInt8], exchange: UInt16, ack: UInt32? = nil,
        initiator: Bool = true, _ harness: inout NodeHarness
    ) throws -> [Message] {
        try open(send(opcode, payload, exchange: exchange, ack: ack, initiator: initiator, &harness))
    }
}

extension Array where Element == Message {
    /// The one message, or nil when there are none or several.
    var only: Message? { count == 1 ? first : nil }

    /// The ReportData messages.
    var reports: [Message] { filter { $0.protocolHeader.opcode == InteractionModelOpcode.reportData.rawValue } }
}
