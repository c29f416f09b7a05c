import TraitBridgeMatterDevice
import TraitBridgeMatterSecureChannel
import TraitBridgeMatterTransport

/// The Matter device's one entry point from outside, as a function of bytes: UDP datagrams from a
/// few peers, with time passing between them, into a ``MatterNode`` whose commissioning window is
/// open. Every header, handshake message and session lookup a datagram can reach is on this path.
enum MatterDeviceInputs {
    /// A deterministic generator (xorshift64*): a fuzz input must replay to the same run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 0x2545_F491_4F6C_DD1D
        }
    }

    /// The node every input starts from (its verifier takes a PBKDF2 run: made once, copied per input).
    static let node: MatterNode<String> = {
        var generator = SeededGenerator(state: 0x5EED)
        do {
            let setup = try MatterSetup(
                passcode: try SetupPasscode(20_202_021), discriminator: 3840, vendorID: 0xFFF1, productID: 0x8001,
                using: &generator)
            return MatterNode(commissioning: try setup.commissioning(), using: &generator)
        } catch {
            preconditionFailure("the fuzz node's fixed setup is valid: \(error)")
        }
    }()

    /// Records of [flags][length: 2 bytes, big-endian][datagram]: the low two bits of flags pick one
    /// of four peers, bit 7 advances the clock by (flags & 0x7C) × 100 ms and ticks before the datagram.
    /// At most 64 records an input.
    static func datagrams(_ bytes: [UInt8]) {
        var node = node
        var generator = SeededGenerator(state: 0xF022)
        var now = ContinuousClock.now
        var offset = 0
        var records = 0
        while offset + 3 <= bytes.count, records < 64 {
            let flags = bytes[offset]
            let length = Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2])
            offset += 3
            let datagram = Array(bytes[offset..<min(bytes.count, offset + length)])
            offset += datagram.count
            records += 1
            if flags & 0x80 != 0 {
                now = now.advanced(by: .milliseconds(Int(flags & 0x7C) * 100))
                _ = node.handle(.tick(now: now), using: &generator)
            }
            _ = node.handle(.datagram(datagram, from: "peer-\(flags & 0x03)", now: now), using: &generator)
            precondition(node.unsecuredSessionCount <= node.limits.unsecuredSessions, "unsecured sessions unbounded")
            precondition(node.secureSessionCount <= node.limits.secureSessions, "secure sessions unbounded")
        }
    }

    /// Seeds: a commissioner's PBKDFParamRequest, then a Pake1 with a point that is not on the curve
    /// and a standalone ack, as records.
    static func seeds() -> [[UInt8]] {
        func unsecured(_ opcode: SecureChannelOpcode, _ payload: [UInt8], counter: UInt32) -> [UInt8] {
            let header = MessageHeader(sessionID: 0, messageCounter: counter, sourceNodeID: 0x1122_3344_5566_7788)
            let protocolHeader = ProtocolHeader(
                isInitiator: true, needsAck: true, opcode: opcode.rawValue, exchangeID: 0x4242,
                protocolID: .secureChannel)
            return Message(header: header, protocolHeader: protocolHeader, payload: payload).encodedUnsecured
        }
        func record(_ flags: UInt8, _ datagram: [UInt8]) -> [UInt8] {
            [flags, UInt8(datagram.count >> 8), UInt8(datagram.count & 0xFF)] + datagram
        }
        let request = PBKDFParamRequest(
            initiatorRandom: (0..<32).map { UInt8($0) }, initiatorSessionID: 0x7777,
            initiatorSessionParameters: .mrpDefaults)
        let first = unsecured(.pbkdfParamRequest, request.encoded, counter: 5001)
        let pake1 = unsecured(.pasePake1, Pake1(pA: [0x04] + [UInt8](repeating: 1, count: 64)).encoded, counter: 5002)
        return [record(0, first), record(0, first) + record(0x84, pake1) + record(1, first)]
    }
}
