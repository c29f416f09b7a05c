import TraitBridgeMatterCodec
import TraitBridgeMatterCommissioning
import TraitBridgeMatterDevice
import TraitBridgeMatterInteraction
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The Matter device's interaction model from outside, as a function of bytes: messages on a PASE session a real
/// handshake opened (so they open and reach the interaction layer), into a node with an On/Off Light and a bridged
/// light (endpoint 2: its commands handed on and their answers deferred, Identify answered there, a failing command,
/// writable labels). Every request decoder, path expansion, chunked report, subscription, timed request and
/// root-endpoint command (attestation, CSR, AddNOC with hostile certificates) is on this path.
enum MatterInteractionInputs {
    /// Endpoint 2: a bridge's light, as `TraitBridgeMatterBridge` makes them.
    static let bridgedLight = BridgedEndpoint(
        id: 2, deviceTypes: [DeviceTypeRevision(0x0100, revision: 3), DeviceTypeRevision(0x0013, revision: 3)],
        clusters: [
            BridgedEndpoint.Cluster(
                ClusterDescription(id: 0x0003, revision: 5, accepted: [0x00, 0x40]),
                values: [0: .unsigned(0), 1: .unsigned(0)], localWrites: [0]),
            BridgedEndpoint.Cluster(
                ClusterDescription(id: 0x0006, revision: 6, featureMap: 1, accepted: [0, 1, 2, 0x40]),
                values: [0: .bool(false), 0x4000: .bool(true), 0x4001: .unsigned(0)], localWrites: [0x4001],
                failingCommands: [0x40]),
            BridgedEndpoint.Cluster(
                ClusterDescription(id: 0x0039, revision: 5),
                values: [
                    0x05: .string("Hall light"), 0x11: .bool(true), 0x12: .string("00112233445566778899aabbccddeeff"),
                ],
                localWrites: [0x05]),
        ])

    /// The node after PASE, the keys and the device's session ID (the handshake takes a PBKDF2 run:
    /// made once, copied per input).
    static let paired: (node: MatterNode<String>, keys: SessionKeys, sessionID: UInt16) = {
        var generator = MatterDeviceInputs.SeededGenerator(state: 0x1A7E)
        let now = ContinuousClock.now
        do {
            let setup = try MatterSetup(
                passcode: try SetupPasscode(20_202_021), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
                using: &generator)
            let model = NodeDataModel(
                root: RootEndpoint(), endpoints: [OnOffLight(id: 1), bridgedLight], using: &generator)
            var node = MatterNode<String>(commissioning: try setup.commissioning(), dataModel: model, using: &generator)
            var initiator = PASEInitiator(random: (0..<32).map { UInt8($0) }, sessionID: 0x7777)
            var counter: UInt32 = 9000
            /// Sends one PASE message; the node's answer's payload and counter.
            func exchange(_ opcode: SecureChannelOpcode, _ payload: [UInt8], ack: UInt32?) throws -> Message {
                counter += 1
                let header = MessageHeader(sessionID: 0, messageCounter: counter, sourceNodeID: 0x0BAD_C0DE)
                let protocolHeader = ProtocolHeader(
                    isInitiator: true, needsAck: true, acknowledgedMessageCounter: ack, opcode: opcode.rawValue,
                    exchangeID: 0x4242, protocolID: .secureChannel)
                let datagram = Message(header: header, protocolHeader: protocolHeader, payload: payload)
                for effect in node.handle(
                    .datagram(datagram.encodedUnsecured, from: "commissioner", now: now), using: &generator)
                {
                    if case .send(let bytes, _) = effect, let reply = try? Message.decodeUnsecured(bytes),
                        !reply.protocolHeader.isStandaloneAck
                    {
                        return reply
                    }
                }
                preconditionFailure("the node did not answer \(opcode)")
            }
            let response = try exchange(.pbkdfParamRequest, initiator.pbkdfParamRequest, ack: nil)
            let pake1 = try initiator.pake1(answering: response.payload, passcode: 20_202_021)
            let pake2 = try exchange(.pasePake1, pake1, ack: response.header.messageCounter)
            let (pake3, keys) = try initiator.pake3(answering: pake2.payload)
            _ = try exchange(.pasePake3, pake3, ack: pake2.header.messageCounter)
            precondition(node.secureSessionCount == 1, "PASE did not establish a session")
            return (node, keys, initiator.responderSessionID)
        } catch {
            preconditionFailure("the fuzz node's PASE with a fixed passcode succeeds: \(error)")
        }
    }()

    /// Records of [opcode][exchange: 2 bytes][flags][length: 2 bytes, big-endian][payload], each sealed on
    /// the PASE session: flags bit 0 says we opened the exchange, bit 1 acknowledges the node's last
    /// message, bit 7 advances the clock by (flags & 0x7C) × 100 ms and ticks first. At most 32 records.
    static func interactions(_ bytes: [UInt8]) {
        var (node, keys, sessionID) = paired
        var generator = MatterDeviceInputs.SeededGenerator(state: 0xF0F0)
        var now = ContinuousClock.now
        var counter: UInt32 = 20_000
        var lastCounter: UInt32?
        var offset = 0
        var records = 0
        while offset + 6 <= bytes.count, records < 32 {
            let opcode = bytes[offset]
            let exchange = UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset + 2])
            let flags = bytes[offset + 3]
            let length = Int(bytes[offset + 4]) << 8 | Int(bytes[offset + 5])
            offset += 6
            let payload = Array(bytes[offset..<min(bytes.count, offset + length)])
            offset += payload.count
            records += 1
            if flags & 0x80 != 0 {
                now = now.advanced(by: .milliseconds(Int(flags & 0x7C) * 100))
                _ = node.handle(.tick(now: now), using: &generator)
            }
            counter += 1
            let message = Message(
                header: MessageHeader(sessionID: sessionID, messageCounter: counter),
                protocolHeader: ProtocolHeader(
                    isInitiator: flags & 0x01 != 0, needsAck: true,
                    acknowledgedMessageCounter: flags & 0x02 != 0 ? lastCounter : nil, opcode: opcode,
                    exchangeID: exchange, protocolID: .interactionModel),
                payload: payload)
            guard let datagram = try? message.sealed(key: keys.initiatorToResponder, senderNodeID: 0) else { continue }
            for effect in node.handle(.datagram(datagram, from: "commissioner", now: now), using: &generator) {
                if case .send(let bytes, _) = effect, let header = try? MessageHeader.decode(bytes).header {
                    lastCounter = header.messageCounter
                }
            }
            precondition(node.secureSessionCount <= node.limits.secureSessions, "secure sessions unbounded")
        }
        _ = (keys, sessionID)
    }

    /// Seeds: a wildcard read and its chunks' answers, ArmFailSafe, a subscription, a timed Toggle.
    static func seeds() -> [[UInt8]] {
        func record(_ opcode: InteractionModelOpcode, exchange: UInt16, flags: UInt8 = 1, _ payload: [UInt8]) -> [UInt8]
        {
            [
                opcode.rawValue, UInt8(exchange >> 8), UInt8(exchange & 0xFF), flags, UInt8(payload.count >> 8),
                UInt8(payload.count & 0xFF),
            ] + payload
        }
        let read = ReadRequest(attributeRequests: [AttributePath()], isFabricFiltered: false).encoded
        let more = StatusResponse(.success).encoded
        let arm = InvokeRequest(invokeRequests: [
            CommandData(
                path: CommandPath(endpoint: 0, cluster: 0x30, command: 0),
                fields: .contextStructure([0: .unsigned(60), 1: .unsigned(1)]))
        ]).encoded
        let subscribe = SubscribeRequest(
            keepSubscriptions: false, minIntervalFloorSeconds: 0, maxIntervalCeilingSeconds: 5,
            attributeRequests: [AttributePath(endpoint: 1, cluster: nil, attribute: nil)], isFabricFiltered: true
        ).encoded
        let toggle = InvokeRequest(
            invokeRequests: [CommandData(path: CommandPath(endpoint: 1, cluster: 6, command: 2), fields: nil)],
            isTimedRequest: true
        ).encoded
        return [
            record(.readRequest, exchange: 1, read) + record(.statusResponse, exchange: 1, flags: 3, more)
                + record(.statusResponse, exchange: 1, flags: 3, more),
            record(.invokeRequest, exchange: 2, arm),
            record(.subscribeRequest, exchange: 3, subscribe) + record(.statusResponse, exchange: 3, flags: 3, more)
                + record(.statusResponse, exchange: 3, flags: 0x83 | 0x7C, more),
            record(.timedRequest, exchange: 4, TimedRequest(timeoutMilliseconds: 500).encoded)
                + record(.invokeRequest, exchange: 4, flags: 3, toggle),
        ]
    }
}
