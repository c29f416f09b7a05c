public import Crypto
import TraitBridgeMatterCrypto

/// One Matter message: the header in clear, then the protocol header and the application payload,
/// encrypted with AES-128-CCM on a secure session with the 16-byte MIC appended (Core §4.8). It
/// exists so the session layer only supplies a key and the sender's node ID: this type builds the
/// nonce, uses the header bytes as additional data, and checks every length on the way in.
public struct Message: Sendable, Hashable {
    public var header: MessageHeader
    public var protocolHeader: ProtocolHeader
    public var payload: [UInt8]

    public init(header: MessageHeader, protocolHeader: ProtocolHeader, payload: [UInt8] = []) {
        self.header = header
        self.protocolHeader = protocolHeader
        self.payload = payload
    }

    /// The 13-byte AES-CCM nonce (Core §4.8.1): security flags ‖ message counter (LE) ‖ the
    /// sender's node ID (LE). The node ID is in the nonce even when the header does not carry it:
    /// 0 for PASE, the sender's operational node ID for CASE.
    public static func nonce(securityFlags: UInt8, messageCounter: UInt32, senderNodeID: UInt64) -> [UInt8] {
        var nonce: [UInt8] = [securityFlags]
        nonce.reserveCapacity(AESCCM.nonceByteCount)
        nonce.appendLittleEndian(messageCounter)
        nonce.appendLittleEndian(senderNodeID)
        return nonce
    }

    /// The message as sent on the unsecured session (PASE and CASE handshakes): all in clear.
    /// The header must be unsecured (session 0, unicast) — our bug otherwise.
    public var encodedUnsecured: [UInt8] {
        precondition(header.isUnsecured, "an unsecured encoding of a secure-session header")
        return header.encoded + protocolHeader.encoded + payload
    }

    /// A message received on the unsecured session. A secure-session message is refused (its
    /// payload is ciphertext), as is any header or protocol header that does not decode.
    public static func decodeUnsecured(_ bytes: [UInt8]) throws(MessageDecodeError) -> Message {
        let (header, offset) = try MessageHeader.decode(bytes)
        guard header.isUnsecured else {
            throw MessageDecodeError(kind: .securedMessage(sessionID: header.sessionID), offset: 1)
        }
        let (protocolHeader, payloadOffset) = try ProtocolHeader.decode(
            Array(bytes[offset...]), reportingFrom: offset)
        return Message(
            header: header, protocolHeader: protocolHeader, payload: Array(bytes[(offset + payloadOffset)...]))
    }

    /// Header ‖ AES-CCM(protocol header ‖ payload) ‖ MIC, sealed with this session's key for the
    /// direction we send in (the device, as responder, sends with R2I) and our own node ID.
    public func sealed(key: SymmetricKey, senderNodeID: UInt64) throws(TransportError) -> [UInt8] {
        let aad = header.encoded
        let nonce = Self.nonce(
            securityFlags: header.securityFlags, messageCounter: header.messageCounter, senderNodeID: senderNodeID)
        do {
            let plaintext = protocolHeader.encoded + payload
            return aad + (try AESCCM.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad))
        } catch {
            throw .crypto(error)
        }
    }

    /// Opens a secure-session message with the key for the direction it came in (the device
    /// receives with I2R) and the sender's node ID. Nothing is returned unless the MIC matches; a
    /// message shorter than its MIC, or an unsecured one, is refused before decryption.
    /// Check the counter against the peer's ``ReplayWindow`` only after this succeeds.
    public static func open(
        _ bytes: [UInt8], key: SymmetricKey, senderNodeID: UInt64
    ) throws(TransportError) -> Message {
        let header: MessageHeader
        let offset: Int
        do {
            (header, offset) = try MessageHeader.decode(bytes)
        } catch {
            throw .decode(error)
        }
        guard !header.isUnsecured else { throw .decode(MessageDecodeError(kind: .unsecuredMessage, offset: 1)) }
        let remaining = bytes.count - offset
        guard remaining >= AESCCM.tagByteCount else {
            let kind = MessageDecodeError.Kind.truncated(
                .messageIntegrityCheck, needed: AESCCM.tagByteCount, remaining: remaining)
            throw .decode(MessageDecodeError(kind: kind, offset: offset))
        }
        // The received security flags byte, reserved bits and all, as the sender put it in its nonce.
        let nonce = Self.nonce(
            securityFlags: bytes[3], messageCounter: header.messageCounter, senderNodeID: senderNodeID)
        let plaintext: [UInt8]
        do {
            plaintext = try AESCCM.open(
                key: key, nonce: nonce, sealed: Array(bytes[offset...]), aad: Array(bytes[..<offset]))
        } catch {
            throw .crypto(error)
        }
        do {
            let (protocolHeader, payloadOffset) = try ProtocolHeader.decode(plaintext, reportingFrom: offset)
            return Message(header: header, protocolHeader: protocolHeader, payload: Array(plaintext[payloadOffset...]))
        } catch {
            throw .decode(error)
        }
    }
}
