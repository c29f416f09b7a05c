/// The unencrypted header that starts every Matter message (Core §4.4.1), little-endian:
/// message flags (version, S, DSIZ) · session ID (2) · security flags (P, C, MX, session type) ·
/// message counter (4) · source node ID (8, if S) · destination node ID (8, DSIZ 1) or group ID
/// (2, DSIZ 2) · message extensions (2-byte length and bytes, if MX). It exists because every
/// received datagram is classified by it, and its exact bytes are the additional data of AES-CCM.
public struct MessageHeader: Sendable, Hashable {
    /// The only message format version (message flags bits 7..4).
    public static let version: UInt8 = 0

    /// Security flags bits 1..0.
    public enum SessionType: UInt8, Sendable, Hashable {
        case unicast = 0
        case group = 1
    }

    /// Who the message is for, when the header says (DSIZ).
    public enum Destination: Sendable, Hashable {
        /// DSIZ 1: a 64-bit node ID (an unsecured session's reply to the initiator's ephemeral ID).
        case node(UInt64)
        /// DSIZ 2: a 16-bit group ID; only on group sessions.
        case group(UInt16)
    }

    /// The receiver's session ID for secure sessions; 0 with `.unicast` means unsecured.
    public var sessionID: UInt16
    public var sessionType: SessionType
    /// The C flag: a control message (message counter synchronisation on groups).
    public var isControlMessage: Bool
    public var messageCounter: UInt32
    /// Present (S flag) when the sender names itself: the unsecured initiator's ephemeral node ID.
    public var sourceNodeID: UInt64?
    public var destination: Destination?
    /// The message extensions block (MX flag) without its length. No extension is defined yet, so
    /// received blocks are kept only so the header re-encodes to the same bytes.
    public var extensions: [UInt8]?

    public init(
        sessionID: UInt16, sessionType: SessionType = .unicast, isControlMessage: Bool = false,
        messageCounter: UInt32, sourceNodeID: UInt64? = nil, destination: Destination? = nil,
        extensions: [UInt8]? = nil
    ) {
        self.sessionID = sessionID
        self.sessionType = sessionType
        self.isControlMessage = isControlMessage
        self.messageCounter = messageCounter
        self.sourceNodeID = sourceNodeID
        self.destination = destination
        self.extensions = extensions
    }

    /// Session 0 on a unicast session: the unsecured session of PASE and CASE.
    public var isUnsecured: Bool { sessionID == 0 && sessionType == .unicast }

    /// The message flags byte: version 0, S (bit 2), DSIZ (bits 1..0).
    public var messageFlags: UInt8 {
        let dsiz: UInt8
        switch destination {
        case nil: dsiz = 0
        case .node: dsiz = 1
        case .group: dsiz = 2
        }
        return Self.version << 4 | (sourceNodeID == nil ? 0 : 0x04) | dsiz
    }

    /// The security flags byte: P (bit 7, never set here), C (bit 6), MX (bit 5), session type.
    /// It is also the first byte of the AES-CCM nonce.
    public var securityFlags: UInt8 {
        (isControlMessage ? 0x40 : 0) | (extensions == nil ? 0 : 0x20) | sessionType.rawValue
    }

    /// The header's bytes. A group destination needs `sessionType == .group` (our bug otherwise).
    public var encoded: [UInt8] {
        if case .group = destination {
            precondition(sessionType == .group, "a group destination on a unicast session header")
        }
        var bytes: [UInt8] = [messageFlags]
        bytes.reserveCapacity(26)
        bytes.appendLittleEndian(sessionID)
        bytes.append(securityFlags)
        bytes.appendLittleEndian(messageCounter)
        if let sourceNodeID { bytes.appendLittleEndian(sourceNodeID) }
        switch destination {
        case .node(let node): bytes.appendLittleEndian(node)
        case .group(let group): bytes.appendLittleEndian(group)
        case nil: break
        }
        if let extensions { bytes.appendLengthPrefixed(extensions) }
        return bytes
    }

    /// Reads the header at the start of `bytes` and says where the rest (the protocol header, or
    /// the ciphertext) starts. Refuses any other version, the reserved DSIZ and session types,
    /// privacy (P), and every field or extension block that runs past the end.
    public static func decode(
        _ bytes: [UInt8]
    ) throws(MessageDecodeError) -> (header: MessageHeader, payloadOffset: Int) {
        var reader = ByteReader(bytes)
        let flags = try reader.integer(.messageFlags, as: UInt8.self)
        guard flags >> 4 == version else {
            throw MessageDecodeError(kind: .unsupportedVersion(flags >> 4), offset: 0)
        }
        let dsiz = flags & 0x03
        guard dsiz != 3 else { throw MessageDecodeError(kind: .reservedDestinationSize, offset: 0) }
        let sessionID = try reader.integer(.sessionID, as: UInt16.self)
        let securityFlags = try reader.integer(.securityFlags, as: UInt8.self)
        guard securityFlags & 0x80 == 0 else { throw MessageDecodeError(kind: .privacyUnsupported, offset: 3) }
        guard let sessionType = SessionType(rawValue: securityFlags & 0x03) else {
            throw MessageDecodeError(kind: .reservedSessionType(securityFlags & 0x03), offset: 3)
        }
        if dsiz == 2, sessionType == .unicast {
            throw MessageDecodeError(kind: .groupDestinationOnUnicastSession, offset: 0)
        }
        var header = MessageHeader(
            sessionID: sessionID, sessionType: sessionType, isControlMessage: securityFlags & 0x40 != 0,
            messageCounter: try reader.integer(.messageCounter))
        if flags & 0x04 != 0 { header.sourceNodeID = try reader.integer(.sourceNodeID, as: UInt64.self) }
        switch dsiz {
        case 1: header.destination = .node(try reader.integer(.destinationNodeID))
        case 2: header.destination = .group(try reader.integer(.destinationGroupID))
        default: break
        }
        if securityFlags & 0x20 != 0 {
            header.extensions = try reader.lengthPrefixed(.messageExtensionsLength, .messageExtensions)
        }
        return (header, reader.position)
    }
}
