/// Which protocol a message's opcode belongs to (Core §4.4.3, table "Protocol IDs"): a vendor
/// ID (0 for the protocols the spec defines, sent without the V flag) and a 16-bit protocol ID.
/// It exists so dispatch compares one value instead of two loose integers.
public struct ProtocolID: Sendable, Hashable, CustomStringConvertible {
    /// 0 for the Matter standard protocols; otherwise the vendor that defines the protocol.
    public var vendorID: UInt16
    public var id: UInt16

    public init(vendorID: UInt16 = 0, id: UInt16) {
        self.vendorID = vendorID
        self.id = id
    }

    /// Secure channel: PASE, CASE, MRP standalone acks, status reports.
    public static let secureChannel = ProtocolID(id: 0x0000)
    /// Interaction model: reads, writes, invokes, subscriptions.
    public static let interactionModel = ProtocolID(id: 0x0001)
    /// Bulk data exchange.
    public static let bdx = ProtocolID(id: 0x0002)
    /// User-directed commissioning.
    public static let userDirectedCommissioning = ProtocolID(id: 0x0003)

    public var description: String {
        vendorID == 0 ? "protocol 0x\(Self.hex(id))" : "protocol 0x\(Self.hex(vendorID)):0x\(Self.hex(id))"
    }

    private static func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}

/// The secure channel protocol's opcodes (Core, table "Secure Channel Protocol Opcodes";
/// SDK `SecureChannelConstants.h`), so handlers name messages instead of writing numbers.
public enum SecureChannelOpcode: UInt8, Sendable, Hashable, CaseIterable {
    case messageCounterSyncRequest = 0x00
    case messageCounterSyncResponse = 0x01
    /// MRP standalone acknowledgement: an empty message whose only purpose is its A flag.
    case standaloneAck = 0x10
    case pbkdfParamRequest = 0x20
    case pbkdfParamResponse = 0x21
    case pasePake1 = 0x22
    case pasePake2 = 0x23
    case pasePake3 = 0x24
    case caseSigma1 = 0x30
    case caseSigma2 = 0x31
    case caseSigma3 = 0x32
    case caseSigma2Resume = 0x33
    case statusReport = 0x40
    case icdCheckIn = 0x50
}

/// The interaction model's opcodes (Core, Interaction Model chapter, table "Interaction Model Protocol Opcodes").
public enum InteractionModelOpcode: UInt8, Sendable, Hashable, CaseIterable {
    case statusResponse = 0x01
    case readRequest = 0x02
    case subscribeRequest = 0x03
    case subscribeResponse = 0x04
    case reportData = 0x05
    case writeRequest = 0x06
    case writeResponse = 0x07
    case invokeRequest = 0x08
    case invokeResponse = 0x09
    case timedRequest = 0x0A
}
