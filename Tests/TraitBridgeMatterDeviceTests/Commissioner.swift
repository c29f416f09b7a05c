import Crypto
import Testing
import TraitBridgeMatterCommissioning
import TraitBridgeMatterCrypto
import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// A commissioner made of the existing modules (``PASEInitiator``, the message layer), speaking to a
/// ``MatterNode`` in datagrams: the node's tests drive it without a socket.
struct Commissioner {
    let peer: String
    let ephemeralNodeID: UInt64
    let exchangeID: UInt16
    let initiatorSessionID: UInt16 = 0x7777
    var counter: UInt32
    var initiator = PASEInitiator(random: [], sessionID: 0)
    var keys: SessionKeys?
    /// The device's session ID, from PBKDFParamResponse.
    var responderSessionID: UInt16 = 0

    init(peer: String = "10.0.0.2:5540", ephemeralNodeID: UInt64 = 0x1122_3344_5566_7788, exchangeID: UInt16 = 0x4242) {
        self.peer = peer
        self.ephemeralNodeID = ephemeralNodeID
        self.exchangeID = exchangeID
        counter = 5000
    }

    /// An unsecured secure-channel message with I and R, acknowledging `ack`.
    mutating func unsecured(_ opcode: SecureChannelOpcode, _ payload: [UInt8], ack: UInt32? = nil) -> [UInt8] {
        counter += 1
        let header = MessageHeader(sessionID: 0, messageCounter: counter, sourceNodeID: ephemeralNodeID)
        let protocolHeader = ProtocolHeader(
            isInitiator: true, needsAck: true, acknowledgedMessageCounter: ack, opcode: opcode.rawValue,
            exchangeID: exchangeID, protocolID: .secureChannel)
        return Message(header: header, protocolHeader: protocolHeader, payload: payload).encodedUnsecured
    }

    mutating func pbkdfParamRequest() -> [UInt8] {
        initiator = PASEInitiator(random: (0..<32).map { UInt8($0) }, sessionID: initiatorSessionID)
        return unsecured(.pbkdfParamRequest, initiator.pbkdfParamRequest)
    }

    /// Pake1 after the device's PBKDFParamResponse (`reply`), with `passcode`.
    mutating func pake1(answering reply: Message, passcode: UInt32) throws -> [UInt8] {
        let pake1 = try initiator.pake1(answering: reply.payload, passcode: passcode)
        responderSessionID = initiator.responderSessionID
        return unsecured(.pasePake1, pake1, ack: reply.header.messageCounter)
    }

    /// Pake3 after Pake2: the real cA, or (the initiator refused cB: another passcode) a wrong one.
    mutating func pake3(answering reply: Message) throws -> [UInt8] {
        let pake3: [UInt8]
        do {
            let (payload, keys) = try initiator.pake3(answering: reply.payload)
            self.keys = keys
            pake3 = payload
        } catch {
            pake3 = Pake3(cA: [UInt8](repeating: 0xA5, count: 32)).encoded
        }
        return unsecured(.pasePake3, pake3, ack: reply.header.messageCounter)
    }

    /// A message on the PASE session, sealed with I2R (sender node ID 0), I and R set.
    mutating func secure(_ protocolID: ProtocolID, opcode: UInt8, payload: [UInt8] = []) throws -> [UInt8] {
        counter += 1
        let keys = try #require(keys)
        let message = Message(
            header: MessageHeader(sessionID: responderSessionID, messageCounter: counter),
            protocolHeader: ProtocolHeader(
                isInitiator: true, needsAck: true, opcode: opcode, exchangeID: exchangeID &+ 1, protocolID: protocolID),
            payload: payload)
        return try message.sealed(key: keys.initiatorToResponder, senderNodeID: 0)
    }
}

/// A node with the tests' setup (passcode 20202021, discriminator 3840) and a seeded generator.
struct NodeHarness {
    static let passcode: UInt32 = 20_202_021
    var node: MatterNode<String>
    var generator = SeededGenerator(seed: 7)
    var now = ContinuousClock.now

    init(limits: NodeLimits = NodeLimits(), endpoints: [any ApplicationEndpoint] = []) throws {
        var generator = SeededGenerator(seed: 42)
        let setup = try MatterSetup(
            passcode: try SetupPasscode(Self.passcode), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
            using: &generator)
        let dataModel = NodeDataModel(root: RootEndpoint(), endpoints: endpoints, using: &generator)
        node = MatterNode(
            commissioning: try setup.commissioning(), limits: limits, dataModel: dataModel, using: &generator)
    }

    mutating func send(_ bytes: [UInt8], from peer: String = "10.0.0.2:5540") -> [MatterNode<String>.Effect] {
        node.handle(.datagram(bytes, from: peer, now: now), using: &generator)
    }

    mutating func tick(after duration: Duration) -> [MatterNode<String>.Effect] {
        now += duration
        return node.handle(.tick(now: now), using: &generator)
    }
}

extension Array where Element == MatterNode<String>.Effect {
    var sent: [[UInt8]] {
        compactMap {
            if case .send(let bytes, _) = $0 { return bytes }
            return nil
        }
    }

    var logs: [NodeLogLine] {
        compactMap {
            if case .log(let line) = $0 { return line }
            return nil
        }
    }

    var established: EstablishedSession<String>? {
        lazy.compactMap {
            if case .sessionEstablished(let session) = $0 { return session }
            return nil
        }.first
    }

    /// The one unsecured message sent, decoded.
    func onlyUnsecured() throws -> Message {
        try #require(sent.count == 1, "sent \(sent.count) datagrams; logs: \(logs)")
        return try Message.decodeUnsecured(sent[0])
    }
}
