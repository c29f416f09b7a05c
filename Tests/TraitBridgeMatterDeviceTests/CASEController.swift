import Crypto
import Testing
import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCredentials
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// A controller on a node's fabric made of the existing modules (``CASEInitiator``, the message layer):
/// CASE to the node in datagrams, then the interaction model on the session it made. Its NOC is
/// connectedhomeip's test `Node01_02` (node DEDEDEDE00010002 under Root01, no ICAC).
struct CASEController {
    static let nodeID: UInt64 = 0xDEDE_DEDE_0001_0002

    let peer: String
    let ephemeralNodeID: UInt64
    var initiator: CASEInitiator
    var counter: UInt32 = 7000
    var keys: SessionKeys?
    /// The node's session ID, from Sigma2.
    var deviceSessionID: UInt16 = 0
    /// What the node's last full Sigma2 left for resuming the session.
    var ticket: CASEInitiator.ResumptionTicket?

    /// A controller at `peer` reaching the node `deviceNodeID` on `fabric`; `random` fills its Sigma1 random.
    init(peer: String, ephemeralNodeID: UInt64, sessionID: UInt16, random: UInt8, fabric: Fabric) throws {
        self.peer = peer
        self.ephemeralNodeID = ephemeralNodeID
        let identity = CASEInitiator.Identity(
            noc: MatterTestCertificates.node0102TLV, icac: nil,
            key: try P256.Signing.PrivateKey(rawRepresentation: MatterTestCertificates.node0102PrivateKey))
        initiator = CASEInitiator(
            ipk: try #require(fabric.ipk), root: fabric.chain.rcac, peerNodeID: fabric.nodeID, identity: identity)
        initiator.fabricID = fabric.fabricID
        initiator.sessionID = sessionID
        initiator.random = [UInt8](repeating: random, count: 32)
    }

    /// An unsecured secure-channel message on `exchange` (ours), acknowledging `ack`.
    mutating func unsecured(
        _ opcode: SecureChannelOpcode, _ payload: [UInt8], exchange: UInt16, ack: UInt32? = nil, needsAck: Bool = true
    ) -> [UInt8] {
        counter += 1
        let header = MessageHeader(sessionID: 0, messageCounter: counter, sourceNodeID: ephemeralNodeID)
        let protocolHeader = ProtocolHeader(
            isInitiator: true, needsAck: needsAck, acknowledgedMessageCounter: ack, opcode: opcode.rawValue,
            exchangeID: exchange, protocolID: .secureChannel)
        return Message(header: header, protocolHeader: protocolHeader, payload: payload).encodedUnsecured
    }

    /// Sigma1 → Sigma2 → Sigma3 → the node's SUCCESS (acknowledged): a CASE session in the node's table.
    mutating func establish(_ harness: inout NodeHarness, exchange: UInt16) throws {
        let sigma1 = try initiator.sigma1().encoded
        let sigma2 = try harness.send(unsecured(.caseSigma1, sigma1, exchange: exchange), from: peer).onlyUnsecured()
        try #require(sigma2.protocolHeader.opcode == SecureChannelOpcode.caseSigma2.rawValue)
        let finished = try initiator.finish(sigma1: sigma1, sigma2: sigma2.payload)
        let sigma3 = unsecured(.caseSigma3, finished.sigma3, exchange: exchange, ack: sigma2.header.messageCounter)
        let effects = harness.send(sigma3, from: peer)
        try #require(effects.established != nil, "no session: \(effects.logs)")
        let success = try effects.onlyUnsecured()
        _ = harness.send(
            unsecured(
                .standaloneAck, [], exchange: exchange, ack: success.header.messageCounter, needsAck: false),
            from: peer)
        keys = finished.keys
        deviceSessionID = finished.sigma2.responderSessionID
        ticket = finished.ticket
    }

    /// What the node answers a Sigma1 that resumes ``ticket`` with: Sigma2_Resume while it holds the
    /// record, a full Sigma2 once it forgot it.
    mutating func resumptionAnswer(_ harness: inout NodeHarness, exchange: UInt16) throws -> SecureChannelOpcode? {
        var resuming = initiator
        resuming.random = [UInt8](repeating: 0x5A, count: 32)
        let sigma1 = try resuming.sigma1(resuming: try #require(ticket)).encoded
        let answer = try harness.send(unsecured(.caseSigma1, sigma1, exchange: exchange), from: peer).onlyUnsecured()
        return SecureChannelOpcode(rawValue: answer.protocolHeader.opcode)
    }

    /// A message on the CASE session and `exchange` (ours), sealed with I2R and our node ID; the node's effects.
    mutating func send(
        _ protocolID: ProtocolID, opcode: UInt8, _ payload: [UInt8], exchange: UInt16, ack: UInt32? = nil,
        needsAck: Bool = true, _ harness: inout NodeHarness
    ) throws -> [MatterNode<String>.Effect] {
        counter += 1
        let message = Message(
            header: MessageHeader(sessionID: deviceSessionID, messageCounter: counter),
            protocolHeader: ProtocolHeader(
                isInitiator: true, needsAck: needsAck, acknowledgedMessageCounter: ack, opcode: opcode,
                exchangeID: exchange, protocolID: protocolID),
            payload: payload)
        let keys = try #require(keys)
        return harness.send(try message.sealed(key: keys.initiatorToResponder, senderNodeID: Self.nodeID), from: peer)
    }

    /// One command invoked on endpoint 0 on a new `exchange`: the node's effects and its replies, opened.
    mutating func invoke(
        cluster: UInt32, command: UInt32, _ fields: TLVValue, exchange: UInt16, _ harness: inout NodeHarness
    ) throws -> (effects: [MatterNode<String>.Effect], replies: [Message]) {
        let data = CommandData(path: CommandPath(endpoint: 0, cluster: cluster, command: command), fields: fields)
        let request = InvokeRequest(invokeRequests: [data]).encoded
        let effects = try send(
            .interactionModel, opcode: InteractionModelOpcode.invokeRequest.rawValue, request, exchange: exchange,
            &harness)
        return (effects, try open(effects))
    }

    /// A standalone ack of `message` on `exchange`; the node's effects.
    mutating func acknowledge(
        _ message: Message, exchange: UInt16, _ harness: inout NodeHarness
    ) throws -> [MatterNode<String>.Effect] {
        try send(
            .secureChannel, opcode: SecureChannelOpcode.standaloneAck.rawValue, [], exchange: exchange,
            ack: message.header.messageCounter, needsAck: false, &harness)
    }

    /// What the node sent on this session, opened with R2I and its node ID; standalone acks left out.
    func open(_ effects: [MatterNode<String>.Effect]) throws -> [Message] {
        let keys = try #require(keys)
        let deviceNodeID = initiator.peerNodeID
        return try effects.sent.filter { try !MessageHeader.decode($0).header.isUnsecured }
            .map { try Message.open($0, key: keys.responderToInitiator, senderNodeID: deviceNodeID) }
            .filter { !$0.protocolHeader.isStandaloneAck }
    }
}

extension Message {
    /// An InvokeResponse's first response command: its fields (nil when it is a status or does not decode).
    var commandFields: TLVValue? {
        guard let message = try? TLVElement(decoding: payload).value, case .array(let responses)? = message[1]
        else { return nil }
        return responses.first?[0]?[1]
    }
}
