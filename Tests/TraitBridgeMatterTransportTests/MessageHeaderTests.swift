import Testing
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// The message and protocol headers against published bytes (MessageVectors.swift says where each
/// comes from): each decodes to the fields its source states and encodes back to the same bytes.
@Suite("Matter message and protocol headers")
struct MessageHeaderTests {
    @Test("published headers decode to their stated fields", arguments: MessageVectors.all)
    func decodes(vector: HeaderVector) throws {
        let (header, offset) = try MessageHeader.decode(vector.bytes)
        #expect(header == vector.header)
        #expect(offset == vector.protocolHeaderOffset)
        guard let expected = vector.protocolHeader else { return }
        let (protocolHeader, payloadOffset) = try ProtocolHeader.decode(Array(vector.bytes[offset...]))
        #expect(protocolHeader == expected)
        #expect(payloadOffset == vector.applicationPayloadOffset)
    }

    @Test("headers built from the stated fields encode to the published bytes", arguments: MessageVectors.all)
    func encodes(vector: HeaderVector) {
        var expected = vector.header.encoded
        if let protocolHeader = vector.protocolHeader { expected += protocolHeader.encoded }
        #expect(expected.hex == vector.bytes.prefix(expected.count).map { $0 }.hex)
        #expect(vector.header.encoded.count == vector.protocolHeaderOffset)
    }

    @Test("matter.js's PBKDFParamRequest decodes as a whole unsecured message, payload and all")
    func unsecuredMessage() throws {
        let vector = MessageVectors.matterJS[0]
        let message = try Message.decodeUnsecured(vector.bytes)
        #expect(message.header == vector.header)
        #expect(message.protocolHeader.opcode == SecureChannelOpcode.pbkdfParamRequest.rawValue)
        #expect(message.protocolHeader.protocolID == .secureChannel)
        #expect(message.payload.hex == MessageVectors.pbkdfParamRequestTLV)
        #expect(message.encodedUnsecured == vector.bytes)
        let response = try Message.decodeUnsecured(MessageVectors.matterJS[1].bytes)
        #expect(response.protocolHeader.acknowledgedMessageCounter == message.header.messageCounter)
        #expect(response.header.destination == .node(message.header.sourceNodeID ?? 0))
    }

    @Test(
        "a message with the privacy flag is refused at its security flags byte",
        arguments: MessageVectors.privacyVectors.map(\.1))
    func privacy(bytes: [UInt8]) {
        #expect(throws: MessageDecodeError(kind: .privacyUnsupported, offset: 3)) {
            try MessageHeader.decode(bytes)
        }
    }

    struct FlagCase: Sendable, CustomStringConvertible {
        var description: String
        var bytes: String
        var expected: MessageDecodeError
    }

    @Test(
        "reserved and unsupported flag values are refused where they sit",
        arguments: [
            FlagCase(
                description: "version 1", bytes: "10 00 00 00 01 00 00 00",
                expected: MessageDecodeError(kind: .unsupportedVersion(1), offset: 0)),
            FlagCase(
                description: "version 15", bytes: "f0 00 00 00 01 00 00 00",
                expected: MessageDecodeError(kind: .unsupportedVersion(15), offset: 0)),
            FlagCase(
                description: "DSIZ 3", bytes: "03 00 00 00 01 00 00 00",
                expected: MessageDecodeError(kind: .reservedDestinationSize, offset: 0)),
            FlagCase(
                description: "session type 2", bytes: "00 01 00 02 01 00 00 00",
                expected: MessageDecodeError(kind: .reservedSessionType(2), offset: 3)),
            FlagCase(
                description: "session type 3", bytes: "00 01 00 03 01 00 00 00",
                expected: MessageDecodeError(kind: .reservedSessionType(3), offset: 3)),
            FlagCase(
                description: "a group ID on a unicast session", bytes: "02 01 00 00 01 00 00 00 02 00",
                expected: MessageDecodeError(kind: .groupDestinationOnUnicastSession, offset: 0)),
        ])
    func flags(flagCase: FlagCase) {
        #expect(throws: flagCase.expected) { try MessageHeader.decode(hex(flagCase.bytes)) }
    }

    @Test("reserved flag bits are ignored, as the SDK ignores them")
    func reservedBits() throws {
        let (header, _) = try MessageHeader.decode(hex("08 01 00 1c 01 00 00 00"))
        #expect(header == MessageHeader(sessionID: 1, messageCounter: 1))
        let (protocolHeader, _) = try ProtocolHeader.decode(hex("e1 02 03 00 01 00"))
        #expect(protocolHeader.isInitiator && protocolHeader.opcode == 2 && protocolHeader.exchangeID == 3)
    }

    @Test("a vendor protocol carries the V flag and its vendor ID before the protocol ID")
    func vendorProtocol() throws {
        let header = ProtocolHeader(
            isInitiator: false, needsAck: false, opcode: 7, exchangeID: 0x1234,
            protocolID: ProtocolID(vendorID: 0xFFF1, id: 0x0042))
        #expect(header.encoded.hex == "10073412f1ff4200")
        #expect(try ProtocolHeader.decode(header.encoded).header == header)
    }

    @Test("extension lengths past the end are refused at the length field (matter.js's malformed vectors)")
    func extensionLengths() {
        var mx = MessageVectors.matterJS[2].bytes
        (mx[16], mx[17]) = (0xFF, 0xFF)
        let mxKind = MessageDecodeError.Kind.blockBeyondInput(
            .messageExtensions, declared: 0xFFFF, remaining: mx.count - 18)
        #expect(throws: MessageDecodeError(kind: mxKind, offset: 16)) { try MessageHeader.decode(mx) }
        var sx = MessageVectors.matterJS[3].bytes
        (sx[22], sx[23]) = (0xFF, 0xFF)
        let sxKind = MessageDecodeError.Kind.blockBeyondInput(
            .securedExtensions, declared: 0xFFFF, remaining: sx.count - 24)
        #expect(throws: MessageDecodeError(kind: sxKind, offset: 22)) { try Message.decodeUnsecured(sx) }
    }

    @Test("the opcode constants have the spec's values")
    func opcodes() {
        #expect(
            SecureChannelOpcode.allCases.map(\.rawValue) == [
                0x00, 0x01, 0x10, 0x20, 0x21, 0x22, 0x23, 0x24, 0x30, 0x31, 0x32, 0x33, 0x40, 0x50,
            ])
        #expect(InteractionModelOpcode.allCases.map(\.rawValue) == Array(0x01...0x0A))
        #expect(
            [ProtocolID.secureChannel, .interactionModel, .bdx, .userDirectedCommissioning].map(\.id) == [0, 1, 2, 3])
    }
}
