/// An issuer or subject of a Matter operational certificate (Matter Core §6.5.6): the ordered list
/// of attributes the TLV form carries, with the Matter identifiers (node, fabric, ICAC, RCAC, CATs)
/// as numbers. Chain checks compare names attribute by attribute, type and string kind included,
/// as the SDK's `ChipDN::IsEqual` does, so `==` is that comparison.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    /// One attribute; the TLV tag is the OID's last arc (+0x80 for a PrintableString).
    public enum Attribute: Sendable, Hashable {
        /// matter-node-id (17): the operational node id of a NOC.
        case nodeID(UInt64)
        /// matter-firmware-signing-id (18).
        case firmwareSigningID(UInt64)
        /// matter-icac-id (19): names an intermediate CA.
        case icacID(UInt64)
        /// matter-rcac-id (20): names a root CA.
        case rcacID(UInt64)
        /// matter-fabric-id (21).
        case fabricID(UInt64)
        /// matter-noc-cat (22): a CASE Authenticated Tag, identifier in the high 16 bits, version low.
        case caseAuthenticatedTag(UInt32)
        /// One of the X.520 attributes (tags 1–16), a UTF8String or, when `isPrintableString`, a
        /// PrintableString (domain-component is always an IA5String in X.509, whatever the flag says).
        case text(StandardAttribute, String, isPrintableString: Bool)
    }

    /// The attributes, in the certificate's order (the X.509 form keeps it).
    public var attributes: [Attribute]

    public init(_ attributes: [Attribute]) { self.attributes = attributes }

    /// The first node id, if any.
    public var nodeID: UInt64? { firstID { if case .nodeID(let v) = $0 { v } else { nil } } }
    /// The first fabric id, if any.
    public var fabricID: UInt64? { firstID { if case .fabricID(let v) = $0 { v } else { nil } } }
    /// The first RCAC id, if any.
    public var rcacID: UInt64? { firstID { if case .rcacID(let v) = $0 { v } else { nil } } }
    /// The first ICAC id, if any.
    public var icacID: UInt64? { firstID { if case .icacID(let v) = $0 { v } else { nil } } }
    /// The CASE Authenticated Tags, in order.
    public var caseAuthenticatedTags: [UInt32] {
        attributes.compactMap { if case .caseAuthenticatedTag(let v) = $0 { v } else { nil } }
    }

    public var description: String { attributes.map(\.description).joined(separator: ", ") }

    private func firstID(_ pick: (Attribute) -> UInt64?) -> UInt64? { attributes.lazy.compactMap(pick).first }
}

extension DistinguishedName.Attribute: CustomStringConvertible {
    /// `node-id=DEDEDEDE00010001`, the hex the X.509 form uses, or `CN="Matter Test"`.
    public var description: String {
        switch self {
        case .nodeID(let v): "node-id=\(hex(v, digits: 16))"
        case .firmwareSigningID(let v): "firmware-signing-id=\(hex(v, digits: 16))"
        case .icacID(let v): "icac-id=\(hex(v, digits: 16))"
        case .rcacID(let v): "rcac-id=\(hex(v, digits: 16))"
        case .fabricID(let v): "fabric-id=\(hex(v, digits: 16))"
        case .caseAuthenticatedTag(let v): "noc-cat=\(hex(UInt64(v), digits: 8))"
        case .text(let type, let value, _): "\(type)=\(value.debugDescription)"
        }
    }
}

/// The X.520 attribute types a Matter certificate may name (tags 1–16, Matter Core §6.5.6.1).
public enum StandardAttribute: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case commonName = 1
    case surname
    case serialNumber
    case countryName
    case localityName
    case stateOrProvinceName
    case organizationName
    case organizationalUnitName
    case title
    case name
    case givenName
    case initials
    case generationQualifier
    case dnQualifier
    case pseudonym
    case domainComponent

    /// The OID's arcs: 2.5.4.x for all but domain-component (0.9.2342.19200300.100.1.25).
    var oid: [UInt] {
        let x520: [UInt] = [3, 4, 5, 6, 7, 8, 10, 11, 12, 41, 42, 43, 44, 46, 65]
        if self == .domainComponent { return [0, 9, 2342, 19_200_300, 100, 1, 25] }
        return [2, 5, 4, x520[Int(rawValue) - 1]]
    }

    public var description: String {
        switch self {
        case .commonName: "CN"
        case .surname: "SN"
        case .serialNumber: "serialNumber"
        case .countryName: "C"
        case .localityName: "L"
        case .stateOrProvinceName: "ST"
        case .organizationName: "O"
        case .organizationalUnitName: "OU"
        case .title: "title"
        case .name: "name"
        case .givenName: "GN"
        case .initials: "initials"
        case .generationQualifier: "generationQualifier"
        case .dnQualifier: "dnQualifier"
        case .pseudonym: "pseudonym"
        case .domainComponent: "DC"
        }
    }
}

/// Upper-case hex, zero-padded to `digits` (16 by default): how Matter prints its 64-bit ids, in the X.509
/// form, DNS-SD names and logs alike.
public func hex(_ value: UInt64, digits: Int = 16) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}
