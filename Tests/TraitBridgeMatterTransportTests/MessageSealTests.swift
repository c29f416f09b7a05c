import Crypto
import Testing
import TraitBridgeMatterCrypto
import TraitBridgeMatterTransport
import TraitBridgeTesting

/// A sealed Matter message from connectedhomeip's dispatch tests, with the key and nonce they use.
struct SealedVector: Sendable, CustomStringConvertible {
    var name: String
    var key: String
    var senderNodeID: UInt64
    var nonce: String
    var message: Message
    var sealed: String

    var description: String { name }
}

/// Seal and open against connectedhomeip `src/transport/tests/TestSessionManagerDispatch.cpp`
/// (`theMessageTestVector`: PASE messages under the SDK's test key, and a group message with its
/// operational group key), then round trips with a fixed key where any altered byte opens nothing.
@Suite("Matter message seal and open")
struct MessageSealTests {
    /// The SDK vectors' protocol header: I, R (PASE) or I alone (group), opcode 0x64, exchange
    /// 0x0EEE, protocol 0x7D20.
    static func sdkProtocolHeader(needsAck: Bool) -> ProtocolHeader {
        ProtocolHeader(
            isInitiator: true, needsAck: needsAck, opcode: 0x64, exchangeID: 0x0EEE, protocolID: ProtocolID(id: 0x7D20))
    }

    static let paseKey = "5eded244e5532b3cdc23409dbad052d2"

    static let sdkVectors: [SealedVector] = [
        SealedVector(
            name: "secure pase message (no payload)", key: paseKey, senderNodeID: 0,
            nonce: "00393000000000000000000000",
            message: Message(
                header: MessageHeader(sessionID: 0x0BB8, messageCounter: 12345),
                protocolHeader: sdkProtocolHeader(needsAck: true)),
            sealed: "00b80b00393000005a989ae42e8d847f535c3007e6150cd65867f2b817db"),
        SealedVector(
            name: "secure pase message (short payload)", key: paseKey, senderNodeID: 0,
            nonce: "00393000000000000000000000",
            message: Message(
                header: MessageHeader(sessionID: 0x0BB8, messageCounter: 12345),
                protocolHeader: sdkProtocolHeader(needsAck: true), payload: [0x11, 0x22, 0x33, 0x44, 0x55]),
            sealed: "00b80b00393000005a989ae42e8d0f7f885dfb2faa8949cf730a5728e0354610a0c4a7"),
        SealedVector(
            name: "secure group message (no privacy)", key: "ca92d7a0942d1a511a0e26ad074f4c2f", senderNodeID: 1,
            nonce: "01785634120100000000000000",
            message: Message(
                header: MessageHeader(
                    sessionID: 0xDB7D, sessionType: .group, messageCounter: 0x1234_5678, sourceNodeID: 1,
                    destination: .group(2)),
                protocolHeader: sdkProtocolHeader(needsAck: false)),
            sealed: "067ddb017856341201000000000000000200" + "65c767bc6cda0106c9801323900e9b3ce6d4bb0327d6"),
    ]

    @Test("the nonce is security flags, counter and sender node ID, as the SDK's vectors state", arguments: sdkVectors)
    func nonce(vector: SealedVector) {
        let header = vector.message.header
        let nonce = Message.nonce(
            securityFlags: header.securityFlags, messageCounter: header.messageCounter,
            senderNodeID: vector.senderNodeID)
        #expect(nonce.hex == vector.nonce)
    }

    @Test(
        "sealing the SDK's messages gives the SDK's bytes, and opening them gives the messages", arguments: sdkVectors)
    func sdk(vector: SealedVector) throws {
        let key = SymmetricKey(data: hex(vector.key))
        #expect(try vector.message.sealed(key: key, senderNodeID: vector.senderNodeID).hex == vector.sealed)
        #expect(try Message.open(hex(vector.sealed), key: key, senderNodeID: vector.senderNodeID) == vector.message)
    }

    @Test("the SDK's wrong-MIC PASE messages open to nothing")
    func sdkWrongMIC() {
        let key = SymmetricKey(data: hex(Self.paseKey))
        for sealed in [
            "00b80b00393000005a989ae42e8d847f535c3007e6150cd65867f2b817dd",
            "00b80b00393000005a989ae42e8d0f7f885dfb2faa8949cf730a5728e0354610a0c4aa",
        ] {
            #expect(throws: TransportError.crypto(.authenticationFailed)) {
                try Message.open(hex(sealed), key: key, senderNodeID: 0)
            }
        }
    }

    static var key: SymmetricKey { SymmetricKey(data: hex("000102030405060708090a0b0c0d0e0f")) }
    static let message = Message(
        header: MessageHeader(sessionID: 0x1234, messageCounter: 0x0102_0304),
        protocolHeader: ProtocolHeader(
            isInitiator: false, needsAck: true, acknowledgedMessageCounter: 77,
            opcode: InteractionModelOpcode.reportData.rawValue, exchangeID: 9, protocolID: .interactionModel),
        payload: Array("a report".utf8))

    @Test("a sealed message opens to itself; the header stays in clear, the rest does not")
    func roundTrip() throws {
        let sealed = try Self.message.sealed(key: Self.key, senderNodeID: 0x1122_3344_5566_7788)
        let header = Self.message.header.encoded
        #expect(Array(sealed.prefix(header.count)) == header)
        #expect(sealed.count == header.count + Self.message.protocolHeader.encoded.count + 8 + 16)
        #expect(!sealed.dropFirst(header.count).starts(with: Self.message.protocolHeader.encoded))
        #expect(try Message.open(sealed, key: Self.key, senderNodeID: 0x1122_3344_5566_7788) == Self.message)
    }

    @Test("a flipped bit anywhere, another sender node ID or another key opens nothing")
    func tampering() throws {
        let sealed = try Self.message.sealed(key: Self.key, senderNodeID: 42)
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(throws: TransportError.self) { try Message.open(altered, key: Self.key, senderNodeID: 42) }
        }
        #expect(throws: TransportError.crypto(.authenticationFailed)) {
            try Message.open(sealed, key: Self.key, senderNodeID: 43)
        }
        #expect(throws: TransportError.crypto(.authenticationFailed)) {
            try Message.open(sealed, key: SymmetricKey(data: [UInt8](repeating: 9, count: 16)), senderNodeID: 42)
        }
    }

    @Test("unsecured and secured messages each refuse the other's path")
    func paths() throws {
        let unsecured = MessageVectors.matterJS[0].bytes
        #expect(throws: TransportError.decode(MessageDecodeError(kind: .unsecuredMessage, offset: 1))) {
            try Message.open(unsecured, key: Self.key, senderNodeID: 0)
        }
        let sealed = try Self.message.sealed(key: Self.key, senderNodeID: 0)
        #expect(throws: MessageDecodeError(kind: .securedMessage(sessionID: 0x1234), offset: 1)) {
            try Message.decodeUnsecured(sealed)
        }
    }
}
