/// The QR code form (Core §5.1.3): `MT:` then the base-38 of 88 bits packed least significant bit
/// first into 11 bytes — version 3, vendor ID 16, product ID 16, commissioning flow 2, discovery
/// capabilities 8, discriminator 12, passcode 27, padding 4 (connectedhomeip
/// `QRCodeSetupPayloadGenerator`, rs-matter `pairing/qr.rs`).
extension SetupPayload {
    /// The text a QR code of this payload encodes, e.g. `MT:-24J0AFN00KA0648G00`.
    public var qrCode: String { Self.qrPrefix + Base38.encode(packedBits) }

    /// Reads a QR code's text back (surrounding whitespace ignored). Bounded: text over 256 bytes is
    /// refused before decoding; only the 11 fixed bytes are taken, a code with optional TLV data
    /// after them is refused with ``SetupPayloadError/optionalDataUnsupported(byteCount:)``.
    /// - Throws: ``SetupPayloadError`` naming what is wrong: prefix, length, character, version,
    ///   reserved flow, padding, passcode, or several payloads joined with `*`.
    public init(qrCode text: String) throws(SetupPayloadError) {
        let byteCount = text.utf8.count
        guard byteCount <= Self.qrTextLimit else { throw .tooLong(byteCount: byteCount, limit: Self.qrTextLimit) }
        let characters = Array(text.trimmingWhitespace)
        guard characters.starts(with: Self.qrPrefix) else { throw .missingPrefix }
        let body = Array(characters.dropFirst(Self.qrPrefix.count))
        guard !body.contains("*") else { throw .multiplePayloads }
        let bytes = try Base38.decode(body)
        guard bytes.count >= Self.packedByteCount else { throw .truncated(byteCount: bytes.count) }
        guard bytes.count == Self.packedByteCount else {
            throw .optionalDataUnsupported(byteCount: bytes.count - Self.packedByteCount)
        }
        var reader = BitReader(bytes: bytes)
        let version = UInt8(reader.read(3))
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let vendorID = UInt16(reader.read(16))
        let productID = UInt16(reader.read(16))
        guard let flow = CommissioningFlow(rawValue: UInt8(reader.read(2))) else { throw .reservedCommissioningFlow }
        let capabilities = DiscoveryCapabilities(rawValue: UInt8(reader.read(8)))
        let discriminator = UInt16(reader.read(12))
        let passcode = try SetupPasscode(UInt32(reader.read(27)))
        guard reader.read(4) == 0 else { throw .nonZeroPadding }
        try self.init(
            vendorID: vendorID, productID: productID, commissioningFlow: flow, discoveryCapabilities: capabilities,
            discriminator: discriminator, passcode: passcode)
    }

    static let qrPrefix = "MT:"
    static let packedByteCount = 11
    /// Longer than any single onboarding code with room for optional data (19 characters without).
    static let qrTextLimit = 256

    /// The 11 bytes the QR code's base-38 stands for.
    var packedBits: [UInt8] {
        Self.pack(
            vendorID: vendorID, productID: productID, flow: commissioningFlow.rawValue,
            capabilities: discoveryCapabilities.rawValue, discriminator: discriminator, passcode: passcode.value)
    }

    /// The fields packed as they are, unchecked: the SDK's vectors use passcodes no device may use.
    static func pack(
        vendorID: UInt16, productID: UInt16, flow: UInt8, capabilities: UInt8, discriminator: UInt16, passcode: UInt32
    ) -> [UInt8] {
        var writer = BitWriter(byteCount: packedByteCount)
        writer.write(UInt64(version), bits: 3)
        writer.write(UInt64(vendorID), bits: 16)
        writer.write(UInt64(productID), bits: 16)
        writer.write(UInt64(flow), bits: 2)
        writer.write(UInt64(capabilities), bits: 8)
        writer.write(UInt64(discriminator), bits: 12)
        writer.write(UInt64(passcode), bits: 27)
        writer.write(0, bits: 4)
        return writer.bytes
    }
}

/// Bits into bytes, least significant bit of the value and of each byte first.
struct BitWriter {
    private(set) var bytes: [UInt8]
    private var offset = 0

    init(byteCount: Int) { bytes = [UInt8](repeating: 0, count: byteCount) }

    /// The low `bits` bits of `value`; bits of `value` above them are ignored.
    mutating func write(_ value: UInt64, bits: Int) {
        for bit in 0..<bits where value >> bit & 1 == 1 {
            bytes[(offset + bit) / 8] |= 1 << UInt8((offset + bit) % 8)
        }
        offset += bits
    }
}

/// Bits out of bytes in ``BitWriter``'s order; the caller has checked there are enough.
struct BitReader {
    let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ bits: Int) -> UInt64 {
        var value: UInt64 = 0
        for bit in 0..<bits where bytes[(offset + bit) / 8] >> UInt8((offset + bit) % 8) & 1 == 1 {
            value |= 1 << UInt64(bit)
        }
        offset += bits
        return value
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (no Foundation in this module).
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
