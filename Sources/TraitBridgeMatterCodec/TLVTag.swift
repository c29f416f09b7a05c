/// The tag of a Matter TLV element (Matter Core spec Appendix A, tag control field A.7.2): what
/// names a member of a structure or list. Protocol messages use context tags (`{1: …, 2: …}`);
/// certificates and the SDK's own tests use the profile forms, so all of them are modelled.
///
/// A tag is its number, not its wire form: a common-profile tag 1 written in 4 bytes reads back
/// as `.commonProfile(1)` and is written again in 2. The writer picks the short form whenever the
/// number fits, as the SDK does.
public enum TLVTag: Sendable, Hashable, CustomStringConvertible {
    /// No tag: array elements, list elements, and the outermost element of a message.
    case anonymous
    /// A context-specific tag, 0...255, meaning given by the enclosing structure or list.
    case context(UInt8)
    /// A tag of the Matter common profile (tag control 2 = 2 bytes, 3 = 4 bytes).
    case commonProfile(UInt32)
    /// A tag of the profile implied by where the TLV is used (tag control 4 = 2 bytes, 5 = 4 bytes).
    case implicitProfile(UInt32)
    /// A tag with its vendor and profile numbers (tag control 6 = 2-byte tag, 7 = 4-byte tag).
    case fullyQualified(vendorID: UInt16, profile: UInt16, tag: UInt32)

    /// The notation of the spec's examples (A.12): `1` for a context tag, `Matter::100000` for a
    /// common-profile tag, `65521::57069:1` for a fully qualified one.
    public var description: String {
        switch self {
        case .anonymous: "anonymous"
        case .context(let number): "\(number)"
        case .commonProfile(let number): "Matter::\(number)"
        case .implicitProfile(let number): "implicit::\(number)"
        case .fullyQualified(let vendorID, let profile, let tag): "\(vendorID)::\(profile):\(tag)"
        }
    }

    /// The tag-control bits (the control byte's top three) and the tag bytes of this tag's shortest
    /// form, little-endian.
    var encoded: (control: UInt8, bytes: [UInt8]) {
        switch self {
        case .anonymous:
            return (0x00, [])
        case .context(let number):
            return (0x20, [number])
        case .commonProfile(let number):
            return Self.numbered(number, short: 0x40, long: 0x60, prefix: [])
        case .implicitProfile(let number):
            return Self.numbered(number, short: 0x80, long: 0xA0, prefix: [])
        case .fullyQualified(let vendorID, let profile, let tag):
            let prefix = littleEndian(vendorID, count: 2) + littleEndian(profile, count: 2)
            return Self.numbered(tag, short: 0xC0, long: 0xE0, prefix: prefix)
        }
    }

    /// A tag number in 2 bytes when it fits (`short` control), else in 4 (`long`), after `prefix`.
    private static func numbered(_ number: UInt32, short: UInt8, long: UInt8, prefix: [UInt8]) -> (UInt8, [UInt8]) {
        number <= 0xFFFF
            ? (short, prefix + littleEndian(number, count: 2)) : (long, prefix + littleEndian(number, count: 4))
    }
}

/// The low `count` bytes of `value`, least significant first (TLV is little-endian throughout).
func littleEndian<T: FixedWidthInteger>(_ value: T, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
