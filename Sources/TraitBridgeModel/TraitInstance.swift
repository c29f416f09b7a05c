public import FoundationEssentials

/// Where a trait sits on a device: which device type holds it, and which trait it is.
///
/// A speaker + dimmable light holds two `matter.OnOff` traits; they are told apart by the device
/// type key (`speaker/matter.OnOff` vs `light/matter.OnOff`), never by the trait id alone.
public struct TraitAddress: Sendable, Hashable, Codable, CustomStringConvertible {
    public var deviceTypeKey: String
    public var traitID: TraitID

    public init(deviceTypeKey: String, traitID: TraitID) {
        self.deviceTypeKey = deviceTypeKey
        self.traitID = traitID
    }

    public var description: String { "\(deviceTypeKey)/\(traitID)" }
}

/// Which source feeds a trait or a device: the family, the instance and the device's native id.
public struct SourceReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `zigbee2mqtt`, `tasmota`, `shelly`, `homeassistant`, `generic`, `google-c2c`.
    public var family: String { didSet { rehash() } }
    /// The configured instance (one broker may carry two zigbee2mqtt networks).
    public var instance: String { didSet { rehash() } }
    /// The id the source knows the device by: IEEE address, MAC, Shelly id, unique_id, C2C id.
    public var nativeID: String { didSet { rehash() } }
    /// The three texts' hash, made once (a reference is looked up six times a message).
    private var textHash = 0

    public init(family: String, instance: String, nativeID: String) {
        self.family = family
        self.instance = instance
        self.nativeID = nativeID
        rehash()
    }

    private mutating func rehash() {
        textHash = IdentifierHash.of(family, instance, nativeID)
    }

    public static func == (lhs: SourceReference, rhs: SourceReference) -> Bool {
        lhs.textHash == rhs.textHash && lhs.nativeID == rhs.nativeID && lhs.family == rhs.family
            && lhs.instance == rhs.instance
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(textHash) }

    private enum CodingKeys: String, CodingKey { case family, instance, nativeID }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            family: try container.decode(String.self, forKey: .family),
            instance: try container.decode(String.self, forKey: .instance),
            nativeID: try container.decode(String.self, forKey: .nativeID))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(family, forKey: .family)
        try container.encode(instance, forKey: .instance)
        try container.encode(nativeID, forKey: .nativeID)
    }

    public var description: String { "\(family)[\(instance)]:\(nativeID)" }

    /// Reads back ``description`` (`family[instance]:nativeID`); nil for any other text.
    public init?(parsing text: String) {
        guard let open = text.firstIndex(of: "["), let close = text[open...].firstIndex(of: "]"),
            text.index(after: close) < text.endIndex, text[text.index(after: close)] == ":", open > text.startIndex
        else { return nil }
        self.init(
            family: String(text[..<open]), instance: String(text[text.index(after: open)..<close]),
            nativeID: String(text[text.index(close, offsetBy: 2)...]))
    }
}

/// One trait on a device: its attribute values, where they come from, and its connectivity.
public struct TraitInstance: Sendable, Hashable {
    public var traitID: TraitID
    /// Current values by attribute name; an attribute never reported is absent.
    public var attributes: [String: AttributeValue]
    public var connectivity: TraitConnectivity
    /// The source that feeds this trait (traits of one merged device may have different sources).
    public var source: SourceReference?
    /// When a value last changed or was confirmed.
    public var lastUpdated: Date?

    public init(
        traitID: TraitID,
        attributes: [String: AttributeValue] = [:],
        connectivity: TraitConnectivity = .initial,
        source: SourceReference? = nil,
        lastUpdated: Date? = nil
    ) {
        self.traitID = traitID
        self.attributes = attributes
        self.connectivity = connectivity
        self.source = source
        self.lastUpdated = lastUpdated
    }
}

/// One device type on a device (an "endpoint" in Matter terms) with its traits.
public struct DeviceTypeInstance: Sendable, Hashable {
    /// Distinguishes two instances on one device (`l1`, `l2` for a dual relay); unique per device.
    public var key: String
    public var typeID: DeviceTypeID
    /// The device's primary function (light = true, speaker = false on a combined device).
    public var isPrimaryType: Bool
    public var traits: [TraitInstance]

    public init(key: String, typeID: DeviceTypeID, isPrimaryType: Bool, traits: [TraitInstance]) {
        self.key = key
        self.typeID = typeID
        self.isPrimaryType = isPrimaryType
        self.traits = traits
    }

    /// Aggregated from the traits (ARCHITECTURE §3); never stored.
    public var sourceConnectivity: SourceConnectivity {
        SourceConnectivity.aggregate(traits.lazy.map(\.connectivity.sourceConnectivity))
    }

    public func trait(_ id: TraitID) -> TraitInstance? {
        traits.first { $0.traitID == id }
    }
}
