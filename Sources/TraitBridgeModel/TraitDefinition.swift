/// What a trait is: its attributes with metadata, its commands, its features.
///
/// Loaded from `mappings/catalog/*.json` by TraitBridgeMapping. A Matter trait corresponds to a
/// cluster (``clusterID``); a Google or vendor trait has whatever id its owner gave it.
public struct TraitDefinition: Sendable, Hashable {
    public var id: TraitID
    public var displayName: String
    /// The Matter cluster id, or the 32-bit manufacturer-specific id (vendor << 16 | cluster).
    public var clusterID: UInt32?
    /// The Google Home APIs id, `home.matter.<vendor hex4>.clusters.<id hex4>`.
    public var homeAPIsID: String?
    public var attributes: [AttributeDefinition] {
        didSet { attributeIndex = Self.index(attributes) }
    }
    /// Attribute positions by name: `attribute(named:)` is asked for every reported value.
    private var attributeIndex: [String: Int]
    public var commands: [CommandDefinition]
    public var features: [FeatureDefinition]
    /// Where the facts come from (spec section, file, page).
    public var specReference: String?

    public init(
        id: TraitID,
        displayName: String,
        clusterID: UInt32? = nil,
        homeAPIsID: String? = nil,
        attributes: [AttributeDefinition] = [],
        commands: [CommandDefinition] = [],
        features: [FeatureDefinition] = [],
        specReference: String? = nil
    ) {
        self.id = id
        self.displayName = displayName
        self.clusterID = clusterID
        self.homeAPIsID = homeAPIsID
        self.attributes = attributes
        self.attributeIndex = Self.index(attributes)
        self.commands = commands
        self.features = features
        self.specReference = specReference
    }

    public func attribute(named name: String) -> AttributeDefinition? {
        attributeIndex[name].map { attributes[$0] }
    }

    /// An attribute's metadata, without copying the rest of its definition.
    public func metadata(of name: String) -> AttributeMetadata? {
        attributeIndex[name].map { attributes[$0].metadata }
    }

    /// The first position of each name (a duplicate name is the mappings loader's error to report).
    private static func index(_ attributes: [AttributeDefinition]) -> [String: Int] {
        var index: [String: Int] = [:]
        index.reserveCapacity(attributes.count)
        for (position, attribute) in attributes.enumerated() where index[attribute.name] == nil {
            index[attribute.name] = position
        }
        return index
    }

    public func command(named name: String) -> CommandDefinition? {
        commands.first { $0.name == name }
    }
}

/// One attribute of a trait.
public struct AttributeDefinition: Sendable, Hashable {
    /// lowerCamelCase, as the Home APIs spell it (`onOff`, `currentLevel`, `colorTemperatureMireds`).
    public var name: String
    public var id: UInt32?
    public var metadata: AttributeMetadata
    /// Mandatory whenever the trait is present (Matter conformance `M`).
    public var isRequired: Bool
    /// The specification's conformance expression (`M`, `O`, `LT`, `[CT]`…), kept for reference.
    public var conformance: String?

    public init(
        name: String, id: UInt32? = nil, metadata: AttributeMetadata, isRequired: Bool = false,
        conformance: String? = nil
    ) {
        self.name = name
        self.id = id
        self.metadata = metadata
        self.isRequired = isRequired
        self.conformance = conformance
    }
}

/// One command of a trait, with its fields.
public struct CommandDefinition: Sendable, Hashable {
    public var name: String
    public var id: UInt32?
    public var fields: [CommandField]
    public var isRequired: Bool
    public var conformance: String?

    public init(
        name: String, id: UInt32? = nil, fields: [CommandField] = [], isRequired: Bool = false,
        conformance: String? = nil
    ) {
        self.name = name
        self.id = id
        self.fields = fields
        self.isRequired = isRequired
        self.conformance = conformance
    }

    public func field(named name: String) -> CommandField? {
        fields.first { $0.name == name }
    }
}

/// One argument of a command.
public struct CommandField: Sendable, Hashable {
    public var name: String
    public var metadata: AttributeMetadata
    public var isOptional: Bool

    public init(name: String, metadata: AttributeMetadata, isOptional: Bool = false) {
        self.name = name
        self.metadata = metadata
        self.isOptional = isOptional
    }
}

/// A feature of a trait (Matter FeatureMap bit), e.g. ColorControl `CT` = color temperature.
public struct FeatureDefinition: Sendable, Hashable {
    public var bit: Int
    public var code: String
    public var name: String

    public init(bit: Int, code: String, name: String) {
        self.bit = bit
        self.code = code
        self.name = name
    }
}
