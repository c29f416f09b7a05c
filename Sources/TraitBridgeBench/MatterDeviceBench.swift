import Crypto
import Foundation
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The Matter device's own costs, in process and without sockets (`TB_BENCH=matter make bench`): the
/// device's side of a PASE handshake, a read of the whole node (every chunk, each answered), a Toggle,
/// a CASE handshake and its resumption, and the heap one more secure session holds. Only the node's
/// `handle` calls are timed: the controller's side (its PBKDF2 and SPAKE2+, its CASE signature and
/// checks) runs in the same process but outside the clock.
func benchmarkMatterDevice() throws {
    var generator = SystemRandomNumberGenerator()
    let setup = try MatterSetup(
        passcode: try SetupPasscode(20_202_021), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
        using: &generator)
    let commissioning = try setup.commissioning()
    func makeNode() -> MatterNode<String> {
        let model = NodeDataModel(root: RootEndpoint(), endpoints: [OnOffLight(id: 1)], using: &generator)
        return MatterNode(commissioning: commissioning, dataModel: model, using: &generator)
    }

    var paseNanoseconds: [UInt64] = []
    var readNanoseconds: [UInt64] = []
    var toggleNanoseconds: [UInt64] = []
    var chunks = 0
    for round in 0..<7 {
        var node = makeNode()
        var link = BenchCommissioner(peer: "bench-\(round)")
        paseNanoseconds.append(try link.pase(with: &node, passcode: 20_202_021))
        let read = ReadRequest(attributeRequests: [AttributePath()], isFabricFiltered: false).encoded
        var spent: UInt64 = 0
        var reply = try link.interact(.readRequest, read, exchange: 1, with: &node, spent: &spent)
        chunks = 1
        while let message = reply, try ReportData(decoding: message.payload).moreChunkedMessages, chunks < 50 {
            reply = try link.interact(
                .statusResponse, StatusResponse(.success).encoded, exchange: 1, ack: message.header.messageCounter,
                with: &node, spent: &spent)
            chunks += 1
        }
        readNanoseconds.append(spent)
        spent = 0
        let toggle = InvokeRequest(
            invokeRequests: [CommandData(path: CommandPath(endpoint: 1, cluster: 6, command: 2), fields: nil)])
        _ = try link.interact(.invokeRequest, toggle.encoded, exchange: 2, with: &node, spent: &spent)
        toggleNanoseconds.append(spent)
    }
    print("Matter device (in process, the device's side only), median of 7")
    print("  PASE, PBKDFParamRequest → session: \(String(format: "%.0f", median(paseNanoseconds))) µs")
    print(
        "  read of the whole node (\(chunks) ReportData messages):"
            + " \(String(format: "%.0f", median(readNanoseconds))) µs"
    )
    print("  Toggle invoke: \(String(format: "%.0f", median(toggleNanoseconds))) µs")
    try benchmarkMatterCASE(commissioning: commissioning)

    // Memory per secure session: 64 nodes with 16 sessions each (the table's bound), against the nodes alone.
    var nodes = (0..<64).map { _ in makeNode() }
    let before = residentKilobytes()
    for index in nodes.indices {
        for session in 0..<16 {
            var link = BenchCommissioner(peer: "memory-\(index)-\(session)")
            _ = try link.pase(with: &nodes[index], passcode: 20_202_021)
        }
    }
    let after = residentKilobytes()
    let held = nodes.map(\.secureSessionCount).reduce(0, +)
    print("  resident memory per secure session: \((after - before) * 1024 / max(1, held)) bytes (\(held) held)")
}

/// The device's side of CASE on a fabric of connectedhomeip's test certificates (the node is Node01_01 under
/// ICA01 and Root01; the controller, a ``CASEInitiator``, presents Node01_02): a full handshake (Sigma1 → Sigma2,
/// Sigma3 → SUCCESS: the device's ECDH, its signature, the controller's chain and signature checked) and a
/// resumption of the session it left (Sigma1 → Sigma2_Resume, SUCCESS → session). A node of its own each round;
/// only its `handle` calls are timed.
func benchmarkMatterCASE(commissioning: PASEResponder<ExchangeKey>.Configuration) throws {
    var generator = SystemRandomNumberGenerator()
    let stored = CommissioningSnapshot.StoredFabric(
        index: 1, rootCertificate: MatterTestCertificates.root01TLV,
        intermediateCertificate: MatterTestCertificates.ica01TLV,
        nodeCertificate: MatterTestCertificates.node0101TLV, ipkEpochKey: [UInt8](repeating: 0x4A, count: 16),
        operationalKey: MatterTestCertificates.node0101PrivateKey, vendorID: 0xFFF1, label: "")
    let state = try CommissioningState(restoring: CommissioningSnapshot(fabrics: [stored]))
    guard let fabric = state.fabric(1), let ipk = fabric.ipk else { throw BenchError.noAnswer("no fabric 1") }
    let identity = CASEInitiator.Identity(
        noc: MatterTestCertificates.node0102TLV, icac: nil,
        key: try P256.Signing.PrivateKey(rawRepresentation: MatterTestCertificates.node0102PrivateKey))
    var fullNanoseconds: [UInt64] = []
    var resumedNanoseconds: [UInt64] = []
    for attempt in 0..<7 {
        let model = NodeDataModel(root: RootEndpoint(state: state), endpoints: [OnOffLight(id: 1)], using: &generator)
        var node = MatterNode<String>(
            commissioning: commissioning, isCommissioningWindowOpen: false, dataModel: model,
            validityPolicy: .ignoringTime, using: &generator)
        var initiator = CASEInitiator(ipk: ipk, root: fabric.chain.rcac, peerNodeID: fabric.nodeID, identity: identity)
        initiator.fabricID = fabric.fabricID
        initiator.random = (0..<32).map { UInt8(truncatingIfNeeded: $0 + attempt) }
        var link = BenchCommissioner(peer: "case-\(attempt)")
        let (spent, ticket) = try link.caseHandshake(with: &node, initiator: initiator)
        fullNanoseconds.append(spent)
        initiator.random = (0..<32).map { UInt8(truncatingIfNeeded: 0x80 + $0 + attempt) }
        var again = BenchCommissioner(peer: "resume-\(attempt)")
        resumedNanoseconds.append(try again.caseResumption(with: &node, initiator: initiator, ticket: ticket))
        guard node.secureSessionCount == 2 else { throw BenchError.noAnswer("\(node.secureSessionCount) sessions") }
    }
    print("  CASE, Sigma1 → session: \(String(format: "%.0f", median(fullNanoseconds))) µs")
    print("  CASE resumption, Sigma1 → session: \(String(format: "%.0f", median(resumedNanoseconds))) µs")
}

/// The median of nanosecond samples, in microseconds.
private func median(_ values: [UInt64]) -> Double { Double(values.sorted()[values.count / 2]) / 1000 }

/// VmRSS of this process, in kB (0 when /proc is not there).
func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// A commissioner's side for the bench: PASE through ``PASEInitiator``, then messages on the session.
struct BenchCommissioner {
    let peer: String
    var initiator = PASEInitiator(random: (0..<32).map { UInt8($0) }, sessionID: 0x7777)
    var counter: UInt32 = 100
    var keys: SessionKeys?
    let now = ContinuousClock.now

    init(peer: String) { self.peer = peer }

    /// PASE with the node; the nanoseconds the node's `handle` took.
    mutating func pase(with node: inout MatterNode<String>, passcode: UInt32) throws -> UInt64 {
        var spent: UInt64 = 0
        let response = try unsecured(
            .pbkdfParamRequest, initiator.pbkdfParamRequest, ack: nil, node: &node, spent: &spent)
        let pake1 = try initiator.pake1(answering: response.payload, passcode: passcode)
        let pake2 = try unsecured(.pasePake1, pake1, ack: response.header.messageCounter, node: &node, spent: &spent)
        let (pake3, keys) = try initiator.pake3(answering: pake2.payload)
        self.keys = keys
        _ = try unsecured(.pasePake3, pake3, ack: pake2.header.messageCounter, node: &node, spent: &spent)
        return spent
    }

    /// CASE with the node as `initiator`: the nanoseconds the node's `handle` took, and the resumption ticket.
    mutating func caseHandshake(
        with node: inout MatterNode<String>, initiator: CASEInitiator
    ) throws -> (UInt64, CASEInitiator.ResumptionTicket) {
        var spent: UInt64 = 0
        let sigma1 = try initiator.sigma1().encoded
        let sigma2 = try unsecured(.caseSigma1, sigma1, ack: nil, node: &node, spent: &spent)
        guard sigma2.protocolHeader.opcode == SecureChannelOpcode.caseSigma2.rawValue else {
            throw BenchError.noAnswer("Sigma1 answered with \(sigma2.protocolHeader.opcode)")
        }
        let finished = try initiator.finish(sigma1: sigma1, sigma2: sigma2.payload)
        let status = try unsecured(
            .caseSigma3, finished.sigma3, ack: sigma2.header.messageCounter, node: &node, spent: &spent)
        guard try StatusReport(decoding: status.payload).secureChannelStatus == .sessionEstablishmentSuccess else {
            throw BenchError.noAnswer("Sigma3 answered with \(status.payload)")
        }
        return (spent, finished.ticket)
    }

    /// CASE resumption of `ticket`'s session as `initiator`: the nanoseconds the node's `handle` took.
    mutating func caseResumption(
        with node: inout MatterNode<String>, initiator: CASEInitiator, ticket: CASEInitiator.ResumptionTicket
    ) throws -> UInt64 {
        var spent: UInt64 = 0
        let sigma1 = try initiator.sigma1(resuming: ticket).encoded
        let sigma2 = try unsecured(.caseSigma1, sigma1, ack: nil, node: &node, spent: &spent)
        guard sigma2.protocolHeader.opcode == SecureChannelOpcode.caseSigma2Resume.rawValue else {
            throw BenchError.noAnswer("a resuming Sigma1 answered with \(sigma2.protocolHeader.opcode)")
        }
        _ = try initiator.finish(sigma2Resume: sigma2.payload, ticket: ticket)
        let success = StatusReport.secureChannel(.sessionEstablishmentSuccess).encoded
        _ = try deliver(.statusReport, success, ack: sigma2.header.messageCounter, node: &node, spent: &spent)
        return spent
    }

    /// One unsecured message to the node; its answer, which must be more than an ack.
    private mutating func unsecured(
        _ opcode: SecureChannelOpcode, _ payload: [UInt8], ack: UInt32?, node: inout MatterNode<String>,
        spent: inout UInt64
    ) throws -> Message {
        guard let reply = try deliver(opcode, payload, ack: ack, node: &node, spent: &spent) else {
            throw BenchError.noAnswer("\(opcode) was not answered")
        }
        return reply
    }

    /// One unsecured message to the node; its answer other than an ack, if any.
    private mutating func deliver(
        _ opcode: SecureChannelOpcode, _ payload: [UInt8], ack: UInt32?, node: inout MatterNode<String>,
        spent: inout UInt64
    ) throws -> Message? {
        counter += 1
        let message = Message(
            header: MessageHeader(
                sessionID: 0, messageCounter: counter, sourceNodeID: 0x0BE7_C400 | UInt64(peer.count)),
            protocolHeader: ProtocolHeader(
                isInitiator: true, needsAck: true, acknowledgedMessageCounter: ack, opcode: opcode.rawValue,
                exchangeID: 0x4242, protocolID: .secureChannel),
            payload: payload)
        let start = nanoseconds()
        let effects = node.handle(.datagram(message.encodedUnsecured, from: peer, now: now))
        spent += nanoseconds() - start
        for case .send(let bytes, _) in effects {
            let reply = try Message.decodeUnsecured(bytes)
            if !reply.protocolHeader.isStandaloneAck { return reply }
        }
        return nil
    }

    /// One interaction-model message on the PASE session; the node's answer (nil: none), the time added to `spent`.
    mutating func interact(
        _ opcode: InteractionModelOpcode, _ payload: [UInt8], exchange: UInt16, ack: UInt32? = nil,
        with node: inout MatterNode<String>, spent: inout UInt64
    ) throws -> Message? {
        guard let keys else { throw BenchError.noAnswer("no session") }
        counter += 1
        let message = Message(
            header: MessageHeader(sessionID: initiator.responderSessionID, messageCounter: counter),
            protocolHeader: ProtocolHeader(
                isInitiator: true, needsAck: true, acknowledgedMessageCounter: ack, opcode: opcode.rawValue,
                exchangeID: exchange, protocolID: .interactionModel),
            payload: payload)
        let sealed = try message.sealed(key: keys.initiatorToResponder, senderNodeID: 0)
        let start = nanoseconds()
        let effects = node.handle(.datagram(sealed, from: peer, now: now))
        spent += nanoseconds() - start
        for case .send(let bytes, _) in effects {
            guard (try? MessageHeader.decode(bytes).header.isUnsecured) == false else { continue }
            let reply = try Message.open(bytes, key: keys.responderToInitiator, senderNodeID: 0)
            if !reply.protocolHeader.isStandaloneAck { return reply }
        }
        return nil
    }
}

enum BenchError: Error {
    case noAnswer(String)
}
