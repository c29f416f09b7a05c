/// One X.509 v3 extension in a Matter operational certificate's TLV form (Matter Core §6.5.11).
/// The list keeps the certificate's order, because the X.509 form writes them in that order and the
/// issuer's signature covers it.
public enum CertificateExtension: Sendable, Hashable {
    /// basic-cnstr (1): whether the subject is a CA, and how many CAs may follow it.
    case basicConstraints(isCA: Bool, pathLengthConstraint: UInt8?)
    /// key-usage (2).
    case keyUsage(KeyUsage)
    /// extended-key-usage (3), in the certificate's order.
    case extendedKeyUsage([KeyPurpose])
    /// subject-key-id (4): 20 bytes naming this certificate's key.
    case subjectKeyID([UInt8])
    /// authority-key-id (5): 20 bytes naming the issuer's key.
    case authorityKeyID([UInt8])
    /// future-extension (6): an X.509 `Extension` in DER, copied into the X.509 form verbatim.
    case future(der: [UInt8], isCritical: Bool)
}

/// The X.509 key usage bits (RFC 5280 §4.2.1.3) with Matter's TLV numbering: bit n is named bit n.
public struct KeyUsage: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let digitalSignature = KeyUsage(rawValue: 0x0001)
    public static let nonRepudiation = KeyUsage(rawValue: 0x0002)
    public static let keyEncipherment = KeyUsage(rawValue: 0x0004)
    public static let dataEncipherment = KeyUsage(rawValue: 0x0008)
    public static let keyAgreement = KeyUsage(rawValue: 0x0010)
    public static let keyCertSign = KeyUsage(rawValue: 0x0020)
    public static let cRLSign = KeyUsage(rawValue: 0x0040)
    public static let encipherOnly = KeyUsage(rawValue: 0x0080)
    public static let decipherOnly = KeyUsage(rawValue: 0x0100)
    /// Every bit RFC 5280 defines.
    public static let all = KeyUsage(rawValue: 0x01FF)

    /// The DER named-bit-list BIT STRING content: bit n first, trailing zero bits dropped.
    var bitString: (bytes: [UInt8], paddingBits: Int) {
        let bitCount = UInt16.bitWidth - rawValue.leadingZeroBitCount
        let byteCount = (bitCount + 7) / 8
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for bit in 0..<bitCount where rawValue & (1 << bit) != 0 { bytes[bit / 8] |= 0x80 >> (bit % 8) }
        return (bytes, byteCount * 8 - bitCount)
    }
}

/// An extended key usage purpose, numbered as Matter's TLV form numbers them (Matter Core §6.5.11.3).
public enum KeyPurpose: UInt8, Sendable, Hashable, CaseIterable {
    case serverAuth = 1
    case clientAuth = 2
    case codeSigning = 3
    case emailProtection = 4
    case timeStamping = 5
    case ocspSigning = 6

    /// 1.3.6.1.5.5.7.3.x (RFC 5280 §4.2.1.12).
    var oid: [UInt] { [1, 3, 6, 1, 5, 5, 7, 3, [1, 2, 3, 4, 8, 9][Int(rawValue) - 1]] }
}
