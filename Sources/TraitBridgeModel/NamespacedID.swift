/// Where a trait or device type is defined: the Matter specification, Google, or a vendor.
///
/// Written `matter`, `google` or `vendor.<org>` (org: lower-case letters, digits and `-`), the
/// same three collections the Google Home APIs have (standard, Google, custom traits).
public enum Namespace: Sendable, Hashable, Comparable, CustomStringConvertible {
    case matter
    case google
    case vendor(String)

    public var isVendor: Bool {
        if case .vendor = self { true } else { false }
    }

    /// Parses `matter`, `google` or `vendor.<org>`; `nil` for anything else.
    public init?(_ text: String) {
        switch text {
        case "matter": self = .matter
        case "google": self = .google
        default:
            guard text.hasPrefix("vendor.") else { return nil }
            let org = String(text.dropFirst("vendor.".count))
            guard !org.isEmpty,
                org.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" })
            else { return nil }
            self = .vendor(org)
        }
    }

    public var description: String {
        switch self {
        case .matter: "matter"
        case .google: "google"
        case .vendor(let org): "vendor.\(org)"
        }
    }
}

/// The shared shape of ``TraitID`` and ``DeviceTypeID``: a namespace and a name, written
/// `matter.OnOff`, `google.WebRtcLiveView`, `vendor.acme.FilterLife`.
public protocol NamespacedIdentifier: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    var namespace: Namespace { get }
    var name: String { get }
    init(namespace: Namespace, name: String)
}

extension NamespacedIdentifier {
    /// Parses the text form; `nil` when the namespace is unknown or the name is not an identifier
    /// (ASCII letter first, then letters and digits).
    public init?(parsing text: String) {
        guard let dot = text.lastIndex(of: ".") else { return nil }
        let name = String(text[text.index(after: dot)...])
        guard let namespace = Namespace(String(text[..<dot])), Self.isValidName(name) else { return nil }
        self.init(namespace: namespace, name: name)
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    public var description: String { "\(namespace).\(name)" }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let parsed = Self(parsing: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "malformed id '\(text)'"))
        }
        self = parsed
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Identifies a trait definition in the catalog, e.g. `matter.OnOff`.
public struct TraitID: NamespacedIdentifier {
    public let namespace: Namespace
    public let name: String

    public init(namespace: Namespace, name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// `matter.<name>`, for code that names standard traits.
    public static func matter(_ name: String) -> TraitID { TraitID(namespace: .matter, name: name) }
    /// `google.<name>`.
    public static func google(_ name: String) -> TraitID { TraitID(namespace: .google, name: name) }
}

/// Identifies a device type definition in the catalog, e.g. `matter.DimmableLight`, `google.Camera`.
public struct DeviceTypeID: NamespacedIdentifier {
    public let namespace: Namespace
    public let name: String

    public init(namespace: Namespace, name: String) {
        self.namespace = namespace
        self.name = name
    }

    public static func matter(_ name: String) -> DeviceTypeID { DeviceTypeID(namespace: .matter, name: name) }
    public static func google(_ name: String) -> DeviceTypeID { DeviceTypeID(namespace: .google, name: name) }
}
