/// The protocol (exchange) header that starts every message's payload, encrypted with it on a
/// secure session (Core §4.4.3), little-endian: exchange flags (I, A, R, SX, V) · opcode ·
/// exchange ID (2) · protocol vendor ID (2, if V) · protocol ID (2) · acknowledged message counter
/// (4, if A) · secured extensions (2-byte length and bytes, if SX). It exists because MRP and the
/// exchange table act on these flags before any protocol looks at the payload.
public struct ProtocolHeader: Sendable, Hashable {
    /// I: the sender initiated this exchange.
    public var isInitiator: Bool
    /// R: the sender wants an acknowledgement (MRP).
    public var needsAck: Bool
    /// A: the counter of the message this one acknowledges.
    public var acknowledgedMessageCounter: UInt32?
    public var opcode: UInt8
    public var exchangeID: UInt16
    /// Sent with the V flag and a vendor ID when `protocolID.vendorID` is not 0.
    public var protocolID: ProtocolID
    /// The secured extensions block (SX) without its length; none is defined yet, so received
    /// blocks are kept only so the header re-encodes to the same bytes.
    public var securedExtensions: [UInt8]?

    public init(
        isInitiator: Bool, needsAck: Bool, acknowledgedMessageCounter: UInt32? = nil, opcode: UInt8,
        exchangeID: UInt16, protocolID: ProtocolID, securedExtensions: [UInt8]? = nil
    ) {
        self.isInitiator = isInitiator
        self.needsAck = needsAck
        self.acknowledgedMessageCounter = acknowledgedMessageCounter
        self.opcode = opcode
        self.exchangeID = exchangeID
        self.protocolID = protocolID
        self.securedExtensions = securedExtensions
    }

    /// An MRP standalone acknowledgement of `counter` on `exchange` (Core §4.12): secure channel
    /// opcode 0x10, A set, never R, I set when we initiated the exchange; its payload is empty.
    public static func standaloneAck(of counter: UInt32, on exchange: ExchangeKey) -> ProtocolHeader {
        ProtocolHeader(
            isInitiator: exchange.role == .initiator, needsAck: false, acknowledgedMessageCounter: counter,
            opcode: SecureChannelOpcode.standaloneAck.rawValue, exchangeID: exchange.exchangeID,
            protocolID: .secureChannel)
    }

    /// Whether this is an MRP standalone acknowledgement, which no protocol handler ever sees.
    public var isStandaloneAck: Bool {
        protocolID == .secureChannel && opcode == SecureChannelOpcode.standaloneAck.rawValue
    }

    /// The exchange flags byte.
    public var exchangeFlags: UInt8 {
        (isInitiator ? 0x01 : 0) | (acknowledgedMessageCounter == nil ? 0 : 0x02) | (needsAck ? 0x04 : 0)
            | (securedExtensions == nil ? 0 : 0x08) | (protocolID.vendorID == 0 ? 0 : 0x10)
    }

    public var encoded: [UInt8] {
        var bytes: [UInt8] = [exchangeFlags, opcode]
        bytes.reserveCapacity(14)
        bytes.appendLittleEndian(exchangeID)
        if protocolID.vendorID != 0 { bytes.appendLittleEndian(protocolID.vendorID) }
        bytes.appendLittleEndian(protocolID.id)
        if let acknowledgedMessageCounter { bytes.appendLittleEndian(acknowledgedMessageCounter) }
        if let securedExtensions { bytes.appendLengthPrefixed(securedExtensions) }
        return bytes
    }

    /// Reads the header at the start of `bytes` and says where the application payload starts.
    /// `base` is where `bytes` sit in the whole message, so errors give message offsets.
    /// Reserved exchange flag bits (7..5) are ignored, as the SDK does.
    public static func decode(
        _ bytes: [UInt8], reportingFrom base: Int = 0
    ) throws(MessageDecodeError) -> (header: ProtocolHeader, payloadOffset: Int) {
        var reader = ByteReader(bytes, reportingFrom: base)
        let flags = try reader.integer(.exchangeFlags, as: UInt8.self)
        let opcode = try reader.integer(.opcode, as: UInt8.self)
        let exchangeID = try reader.integer(.exchangeID, as: UInt16.self)
        let vendorID = flags & 0x10 != 0 ? try reader.integer(.protocolVendorID, as: UInt16.self) : 0
        var header = ProtocolHeader(
            isInitiator: flags & 0x01 != 0, needsAck: flags & 0x04 != 0, opcode: opcode, exchangeID: exchangeID,
            protocolID: ProtocolID(vendorID: vendorID, id: try reader.integer(.protocolID)))
        if flags & 0x02 != 0 { header.acknowledgedMessageCounter = try reader.integer(.acknowledgedMessageCounter) }
        if flags & 0x08 != 0 {
            header.securedExtensions = try reader.lengthPrefixed(.securedExtensionsLength, .securedExtensions)
        }
        return (header, reader.position)
    }
}
