public import TraitBridgeMatterTransport

/// A StatusReport message (Matter Core Appendix D, "Status Report Messages"; Secure Channel opcode
/// 0x40): how PASE and CASE say "session established", "invalid parameter" or "busy". It exists so
/// the responder's answers and a peer's reports are built and read in one place. Not TLV: little-endian
/// fields — general code (2 bytes), protocol ID (4: vendor ID in the high 16 bits, protocol number in
/// the low), protocol code (2), then protocol-specific data to the end (connectedhomeip `StatusReport.cpp`).
public struct StatusReport: Sendable, Hashable, CustomStringConvertible {
    /// The 8 bytes before the protocol data.
    public static let headerByteCount = 8

    public var generalCode: GeneralCode
    public var protocolID: ProtocolID
    /// Meaningful under `protocolID`: for the Secure Channel, a ``SecureChannelStatus``.
    public var protocolCode: UInt16
    /// Whatever follows the fixed fields; for a Secure Channel BUSY, the minimum wait in milliseconds.
    public var protocolData: [UInt8]

    public init(generalCode: GeneralCode, protocolID: ProtocolID, protocolCode: UInt16, protocolData: [UInt8] = []) {
        self.generalCode = generalCode
        self.protocolID = protocolID
        self.protocolCode = protocolCode
        self.protocolData = protocolData
    }

    /// A Secure Channel report as connectedhomeip `PairingSession::SendStatusReport` and rs-matter
    /// `SCStatusCodes::as_report` build it: SUCCESS for session-establishment success and CLOSE_SESSION,
    /// BUSY for BUSY (see ``busy(minimumWaitMilliseconds:)``), FAILURE otherwise.
    public static func secureChannel(_ status: SecureChannelStatus) -> StatusReport {
        let general: GeneralCode =
            switch status {
            case .sessionEstablishmentSuccess, .closeSession: .success
            case .busy: .busy
            default: .failure
            }
        return StatusReport(generalCode: general, protocolID: .secureChannel, protocolCode: status.rawValue)
    }

    /// BUSY with the time the peer should wait before trying again, as connectedhomeip
    /// `StatusReport::MakeBusyStatusReportMessage` writes it (2 bytes, little-endian milliseconds).
    public static func busy(minimumWaitMilliseconds: UInt16) -> StatusReport {
        var report = secureChannel(.busy)
        report.protocolData = [UInt8(truncatingIfNeeded: minimumWaitMilliseconds), UInt8(minimumWaitMilliseconds >> 8)]
        return report
    }

    /// Reads a report; anything after the 8 fixed bytes is protocol data.
    /// - Throws: ``DecodeError/truncated(byteCount:)`` when fewer than 8 bytes came.
    public init(decoding bytes: [UInt8]) throws(DecodeError) {
        guard bytes.count >= Self.headerByteCount else { throw .truncated(byteCount: bytes.count) }
        func field(_ offset: Int, _ count: Int) -> UInt32 {
            (0..<count).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
        }
        self.init(
            generalCode: GeneralCode(rawValue: UInt16(field(0, 2))),
            protocolID: ProtocolID(statusReportField: field(2, 4)),
            protocolCode: UInt16(field(6, 2)),
            protocolData: Array(bytes[Self.headerByteCount...]))
    }

    /// The message payload.
    public var encoded: [UInt8] {
        littleEndianBytes(UInt32(generalCode.rawValue), count: 2)
            + littleEndianBytes(protocolID.statusReportField, count: 4)
            + littleEndianBytes(UInt32(protocolCode), count: 2) + protocolData
    }

    /// For a Secure Channel report, its code as a ``SecureChannelStatus``; nil under other protocols.
    public var secureChannelStatus: SecureChannelStatus? {
        protocolID == .secureChannel ? SecureChannelStatus(rawValue: protocolCode) : nil
    }

    /// The wait a Secure Channel BUSY asks for, when its data holds one.
    public var minimumWaitMilliseconds: UInt16? {
        guard secureChannelStatus == .busy, protocolData.count >= 2 else { return nil }
        return UInt16(protocolData[0]) | UInt16(protocolData[1]) << 8
    }

    public var description: String {
        let code = secureChannelStatus.map(\.description) ?? "code \(protocolCode)"
        return "StatusReport(\(generalCode), \(protocolID), \(code)"
            + (protocolData.isEmpty ? ")" : ", \(protocolData.count) bytes of data)")
    }

    /// Why bytes are not a StatusReport.
    public enum DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Fewer than the 8 fixed bytes.
        case truncated(byteCount: Int)

        public var description: String {
            switch self {
            case .truncated(let count):
                "StatusReport of \(count) bytes: it needs 8 (general code, protocol ID, protocol code) — drop it"
            }
        }
    }
}

extension ProtocolID {
    /// A StatusReport's 32-bit protocol field: vendor ID in the high half, protocol ID in the low
    /// (connectedhomeip `ToFullyQualifiedSpecForm`).
    public init(statusReportField field: UInt32) {
        self.init(vendorID: UInt16(field >> 16), id: UInt16(truncatingIfNeeded: field))
    }

    /// The field as a StatusReport writes it: `vendorID << 16 | id`.
    public var statusReportField: UInt32 { UInt32(vendorID) << 16 | UInt32(id) }
}

/// `count` little-endian bytes of `value`.
func littleEndianBytes(_ value: UInt32, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
