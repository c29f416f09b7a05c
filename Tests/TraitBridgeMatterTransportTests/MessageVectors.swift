import TraitBridgeMatterTransport
import TraitBridgeTesting

/// A published message (or message prefix) and what it decodes to, named after where it comes from.
struct HeaderVector: Sendable, CustomStringConvertible {
    let name: String
    let bytes: [UInt8]
    let header: MessageHeader
    /// The protocol header when it is in clear (unsecured messages and the SDK's framing vectors).
    let protocolHeader: ProtocolHeader?
    /// Where the protocol header starts (the message header's length).
    let protocolHeaderOffset: Int
    /// Where the application payload starts, counted from the protocol header.
    let applicationPayloadOffset: Int

    var description: String { name }
}

enum MessageVectors {
    /// connectedhomeip `src/transport/raw/tests/TestMessageHeader.cpp`, `theSpecComplianceTestVector`
    /// (the two rows without the P flag; the third, a private group message, is in `privacyVectors`).
    static let sdkSpecCompliance: [HeaderVector] = [
        HeaderVector(
            name: "SDK spec compliance: secure unicast message", bytes: hex("00 88 77 00 44 33 22 11"),
            header: MessageHeader(sessionID: 0x7788, messageCounter: 0x1122_3344), protocolHeader: nil,
            protocolHeaderOffset: 8, applicationPayloadOffset: 0),
        HeaderVector(
            name: "SDK spec compliance: unsecured message", bytes: hex("00 00 00 00 40 30 20 10"),
            header: MessageHeader(sessionID: 0, messageCounter: 0x1020_3040), protocolHeader: nil,
            protocolHeaderOffset: 8, applicationPayloadOffset: 0),
    ]

    /// connectedhomeip `src/transport/raw/tests/TestMessageHeader.cpp`, `theTestVectorMsgExtensions`:
    /// every combination of source, destination, message extensions (MX) and secured extensions (SX).
    static let sdkExtensions: [HeaderVector] = {
        let source: UInt64 = 0x1111_1111_1111_1111
        let node = MessageHeader.Destination.node(0xDDDD_DDDD_DDDD_DDDD)
        let group = MessageHeader.Destination.group(0xDDDD)
        let mx: [UInt8] = [0xE4, 0xE3, 0xE2, 0xE1]
        func header(
            _ type: MessageHeader.SessionType = .unicast, source: UInt64? = nil,
            destination: MessageHeader.Destination? = nil, mx: [UInt8]? = nil
        ) -> MessageHeader {
            MessageHeader(
                sessionID: 0, sessionType: type, messageCounter: 0xCCCC_CCCC, sourceNodeID: source,
                destination: destination, extensions: mx)
        }
        func proto(initiator: Bool = true, sx: [UInt8]? = nil) -> ProtocolHeader {
            ProtocolHeader(
                isInitiator: initiator, needsAck: false, opcode: 0xCC, exchangeID: 0xEEEE,
                protocolID: ProtocolID(id: 0x6666), securedExtensions: sx)
        }
        let plainProto = "01 CC EE EE 66 66 BB BB"
        let rows: [(String, String, MessageHeader, ProtocolHeader, Int, Int)] = [
            ("SRC=none, DST=none, MX=0, SX=0", "00 00 00 00 CC CC CC CC" + plainProto, header(), proto(), 8, 6),
            (
                "SRC=none, DST=none, MX=1, SX=0", "00 00 00 20 CC CC CC CC 04 00 E4 E3 E2 E1" + plainProto,
                header(mx: mx), proto(), 14, 6
            ),
            (
                "SRC=1, DST=none, MX=1, SX=0",
                "04 00 00 20 CC CC CC CC 11 11 11 11 11 11 11 11 04 00 E4 E3 E2 E1" + plainProto,
                header(source: source, mx: mx), proto(), 22, 6
            ),
            (
                "SRC=none, DST=1, MX=1, SX=0",
                "01 00 00 20 CC CC CC CC DD DD DD DD DD DD DD DD 04 00 E4 E3 E2 E1" + plainProto,
                header(destination: node, mx: mx), proto(), 22, 6
            ),
            (
                "SRC=1, DST=1, MX=1, SX=0",
                "05 00 00 20 CC CC CC CC 11 11 11 11 11 11 11 11 DD DD DD DD DD DD DD DD 04 00 E4 E3 E2 E1"
                    + plainProto, header(source: source, destination: node, mx: mx), proto(), 30, 6
            ),
            (
                "SRC=none, DST=group, MX=1, SX=0", "02 00 00 21 CC CC CC CC DD DD 04 00 E4 E3 E2 E1" + plainProto,
                header(.group, destination: group, mx: mx), proto(), 16, 6
            ),
            (
                "SRC=1, DST=group, MX=1, SX=0",
                "06 00 00 21 CC CC CC CC 11 11 11 11 11 11 11 11 DD DD 04 00 E4 E3 E2 E1" + plainProto,
                header(.group, source: source, destination: group, mx: mx), proto(), 24, 6
            ),
            (
                "SRC=none, DST=none, MX=0, SX=1", "00 00 00 00 CC CC CC CC 08 CC EE EE 66 66 04 00 E4 E3 E2 E1 BB BB",
                header(), proto(initiator: false, sx: mx), 8, 12
            ),
            (
                "SRC=none, DST=none, MX=1, SX=1",
                "00 00 00 20 CC CC CC CC 04 00 E4 E3 E2 E1 08 CC EE EE 66 66 04 00 E4 E3 E2 E1 BB BB",
                header(mx: mx), proto(initiator: false, sx: mx), 14, 12
            ),
            (
                "SRC=1, DST=1, MX=1, SX=1",
                "05 00 00 20 CC CC CC CC 11 11 11 11 11 11 11 11 DD DD DD DD DD DD DD DD 04 00 E4 E3 E2 E1"
                    + "09 CC EE EE 66 66 04 00 E4 E3 E2 E1 BB BB",
                header(source: source, destination: node, mx: mx), proto(sx: mx), 30, 12
            ),
        ]
        return rows.map { name, bytes, header, proto, offset, appOffset in
            HeaderVector(
                name: "SDK extensions: \(name)", bytes: hex(bytes), header: header, protocolHeader: proto,
                protocolHeaderOffset: offset, applicationPayloadOffset: appOffset)
        }
    }()

    /// The commissioner's ephemeral node ID in matter.js's captured PASE exchange.
    static let matterJSNodeID: UInt64 = 5_936_706_156_730_294_398
    /// The PBKDFParamRequest TLV that matter.js's captured message carries.
    static let pbkdfParamRequestTLV =
        "153001204715a406c6b0496ad52039e347db8528cb69a1cb2fce6f2318552ae65e103aca"
        + "250233dc240300280435052501881325022c011818"

    /// matter.js `packages/protocol/test/codec/MessageCodecTest.ts` (`ENCODED`, `ENCODED_2`,
    /// `ENCODED_WITH_PRIVACY_EXTENSION`, `ENCODED_WITH_SECURED_EXTENSION`): a real PBKDFParamRequest
    /// and PBKDFParamResponse on the unsecured session, and the request with MX or SX blocks added.
    static let matterJS: [HeaderVector] = {
        let request = ProtocolHeader(
            isInitiator: true, needsAck: true, opcode: 0x20, exchangeID: 25811, protocolID: .secureChannel)
        let response = ProtocolHeader(
            isInitiator: false, needsAck: true, acknowledgedMessageCounter: 401_755_914, opcode: 0x21,
            exchangeID: 25811, protocolID: .secureChannel)
        var withSX = request
        withSX.securedExtensions = [1, 2, 3]
        let requestHeader = MessageHeader(sessionID: 0, messageCounter: 401_755_914, sourceNodeID: matterJSNodeID)
        var withMX = requestHeader
        withMX.extensions = [1, 2, 3]
        return [
            HeaderVector(
                name: "matter.js ENCODED (PBKDFParamRequest)",
                bytes: hex("040000000a4ff2177ea0c8a7cb6a63520520d3640000" + pbkdfParamRequestTLV),
                header: requestHeader, protocolHeader: request, protocolHeaderOffset: 16, applicationPayloadOffset: 6),
            HeaderVector(
                name: "matter.js ENCODED_2 (PBKDFParamResponse)",
                bytes: hex(
                    "01000000218712797ea0c8a7cb6a63520621d36400000a4ff217153001204715a406c6b0496ad52039e347db85"
                        + "28cb69a1cb2fce6f2318552ae65e103aca3002201783302d95a4a9fb0decb8fdd6564b90a957681459aeee06"
                        + "9961bea61d7b247125039d8935042501e80330022099f813dd41bd081a1c63e811828f0662594bca89cd9d4e"
                        + "d26f7427fdb2a027361835052501881325022c011818"),
                header: MessageHeader(sessionID: 0, messageCounter: 2_031_257_377, destination: .node(matterJSNodeID)),
                protocolHeader: response, protocolHeaderOffset: 16, applicationPayloadOffset: 10),
            HeaderVector(
                name: "matter.js ENCODED_WITH_PRIVACY_EXTENSION (an MX block)",
                bytes: hex("040000200a4ff2177ea0c8a7cb6a635203000102030520d3640000" + pbkdfParamRequestTLV),
                header: withMX, protocolHeader: request, protocolHeaderOffset: 21, applicationPayloadOffset: 6),
            HeaderVector(
                name: "matter.js ENCODED_WITH_SECURED_EXTENSION (an SX block)",
                bytes: hex("040000000a4ff2177ea0c8a7cb6a63520d20d36400000300010203" + pbkdfParamRequestTLV),
                header: requestHeader, protocolHeader: withSX, protocolHeaderOffset: 16, applicationPayloadOffset: 11),
        ]
    }()

    static let all = sdkSpecCompliance + sdkExtensions + matterJS

    /// Messages with the P flag, which this node refuses at byte 3: connectedhomeip
    /// `TestMessageHeader.cpp` ("secure group message", security flags 0xC1),
    /// `src/transport/tests/TestSessionManagerDispatch.cpp` ("private group message", as matter.js's
    /// MessageCodecTest.ts quotes it, and "secure pase message (short payload / drop when privacy enabled)").
    static let privacyVectors: [(String, [UInt8])] = [
        ("SDK spec compliance: secure group message", hex("02 EE DD C1 40 30 20 10 56 34")),
        (
            "SDK dispatch: private group message",
            hex("067ddb81d926afce24c8a0981bdd44f4e7302b2f915a66c9596290ebe4408217b3c0c921a2fca4e1")
        ),
        (
            "SDK dispatch: PASE message with privacy",
            hex("00b80b8087beef06aa26a0f901efce9f9a67c8137917d15b81d15d3133083197 58ea3f")
        ),
    ]
}
